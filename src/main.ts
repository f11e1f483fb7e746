import 'reflect-metadata';
import type { Server } from 'node:http';
import { INestApplication, Logger } from '@nestjs/common';
import { createApp } from './bootstrap';
import { AppConfig, ConfigError, loadConfig, startupWarnings } from './common/config/config';
import { EmbeddedDatabaseError, resolveDatabase, ResolvedDatabase } from './database/database-url';
import { runMigrations } from './database/migrate';
import { drainAndClose } from './lifecycle/shutdown';
import { checkDatabase, explainDatabaseError, explainListenError, maskUrl, StartupError } from './lifecycle/startup';
import { AppLogger, createRootLogger } from './logging/logger';
import { MetricsListener } from './metrics/metrics-listener';
import { seedDemoRealm } from './seed/demo-realm';

/**
 * Start-up, one line per step: configuration, database, migrations, demo realm, listening. A
 * known failure ends with one sentence and its fix (StartupError), never a stack trace.
 */
async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${err.message}. See the configuration table in README.md.`);
      process.exit(1);
    }
    throw err;
  }
  const root = createRootLogger(config);
  const logger = new AppLogger(root);
  Logger.overrideLogger(logger);
  const step = (message: string) => logger.log(message, 'Start');
  const exit = (code: number) => root.flush(() => process.exit(code));

  let db: ResolvedDatabase | undefined;
  let app: INestApplication | undefined;
  try {
    step(
      `configuration: ${config.mode} mode, log level ${config.logLevel === 'log' ? 'info' : config.logLevel}, ` +
        `${config.ops.logFormat} logs, data in ${config.dataDir}`,
    );
    for (const warning of startupWarnings(config)) logger.warn(`!!! ${warning}`, 'Start');
    if (!config.databaseUrl) step(`database: starting the embedded PostgreSQL (DATABASE_URL is not set)`);
    db = await resolveDatabase(config, (line) => logger.warn(line, 'EmbeddedPostgres'));
    const version = await checkDatabase(db.url);
    step(
      db.embedded
        ? `database: embedded PostgreSQL ${version} in ${db.embedded.dataDir}, port ${db.embedded.port}`
        : `database: PostgreSQL ${version} at ${maskUrl(db.url)}`,
    );
    if (config.runMigrations) {
      let applied: string[];
      try {
        applied = await runMigrations(db.url);
      } catch (err) {
        throw (
          explainDatabaseError(err, db.url) ??
          new StartupError(
            `Database migrations failed: ${err instanceof Error ? err.message : String(err)}. ` +
              `The failed migration was rolled back; fix the cause (see the PostgreSQL log) and start again.`,
          )
        );
      }
      step(applied.length > 0 ? `migrations: applied ${applied.join(', ')}` : 'migrations: schema up to date');
    } else {
      step('migrations: not run here (RUN_MIGRATIONS=false)');
    }
    app = await createApp(config, db.url, { logger: root });
    if (config.seedDemoRealm) {
      const created = await seedDemoRealm(app);
      step(`demo realm: ${created ? 'created' : 'present'} (zulip, "Zulip Dev"; users iago, hamlet, … @zulip.com)`);
    }
    // The HTTP server itself (the app is initialised), so that a listen error is ours to explain.
    const server = app.getHttpServer() as Server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => reject(explainListenError(err, config.host, config.port) ?? err));
      server.listen(config.port, config.host, () => resolve());
    });
    const port = (server.address() as { port: number } | null)?.port ?? config.port;
    const listener = app.get(MetricsListener);
    try {
      await listener.start();
    } catch (err) {
      throw explainListenError(err, config.ops.metricsHost, config.ops.metricsPort ?? 0, 'METRICS_PORT') ?? err;
    }
    const metrics =
      config.ops.metricsPort !== undefined
        ? `metrics on port ${listener.port()}`
        : config.ops.metricsToken || config.devEndpoints
          ? 'metrics at /metrics'
          : 'metrics off (set METRICS_PORT or METRICS_TOKEN)';
    step(
      `listening on http://${config.host}:${port} (${config.mode} mode; realms at ${config.externalScheme}://` +
        `${config.externalHost}; ${metrics})`,
    );
    if (config.devEndpoints && config.seedDemoRealm) {
      const local = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
      step(`API key for a demo user: curl -sX POST ${local}/api/v1/dev_fetch_api_key -d username=iago@zulip.com`);
    }
  } catch (err) {
    const known =
      err instanceof StartupError || err instanceof EmbeddedDatabaseError
        ? err
        : db
          ? explainDatabaseError(err, db.url)
          : undefined;
    if (known) logger.fatal(known.message, 'Start');
    else logger.fatal(err instanceof Error ? err : new Error(String(err)), 'Start');
    await app?.close().catch(() => undefined);
    await db?.stop().catch(() => undefined);
    return exit(1);
  }

  const running = app;
  const database = db;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      if (signal === 'SIGINT') exit(1); // a second Ctrl-C: stop waiting
      return;
    }
    stopping = true;
    const { shutdownDelayMs: delayMs, shutdownGraceMs: graceMs } = config.ops;
    step(`${signal}: shutting down (readiness fails now; up to ${graceMs} ms for requests in flight)`);
    setTimeout(() => {
      logger.error('shutdown did not finish within SHUTDOWN_GRACE_MS; exiting now', 'Shutdown');
      exit(1);
    }, graceMs + 5000).unref();
    drainAndClose(running, { delayMs, graceMs }, logger)
      .then(() => database.stop())
      .then(() => {
        step('stopped');
        exit(0);
      })
      .catch((err: unknown) => {
        logger.error(err instanceof Error ? err : new Error(String(err)), 'Shutdown');
        exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
