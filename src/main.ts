import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './bootstrap';
import { ConfigError, loadConfig } from './common/config/config';
import { resolveDatabase } from './database/database-url';
import { runMigrations } from './database/migrate';
import { seedDemoRealm } from './seed/demo-realm';

async function main(): Promise<void> {
  const logger = new Logger('Main');
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const db = await resolveDatabase(config);
  if (config.runMigrations) {
    const applied = await runMigrations(db.url);
    if (applied.length > 0) logger.log(`applied migrations: ${applied.join(', ')}`);
  }
  const app = await createApp(config, db.url);
  if (config.seedDemoRealm) await seedDemoRealm(app);
  await app.listen(config.port, config.host);
  logger.log(
    `${config.mode} server listening on http://${config.host}:${config.port} (realm host ${config.externalHost})`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received, shutting down`);
    await app.close();
    await db.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
