import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { AppConfig } from '../common/config/config';
import { startEmbeddedPostgres } from './embedded-postgres';

/**
 * The database to use: DATABASE_URL when given, otherwise an embedded PostgreSQL kept under
 * `<DATA_DIR>/postgres` (started here and stopped with the process).
 */
export async function resolveDatabase(config: AppConfig): Promise<{ url: string; stop: () => Promise<void> }> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => undefined };
  const logger = new Logger('EmbeddedPostgres');
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  logger.log(
    `DATABASE_URL not set; starting embedded PostgreSQL in ${join(config.dataDir, 'postgres')} on port ${port}`,
  );
  const db = await startEmbeddedPostgres(join(config.dataDir, 'postgres'), 'zulip', {
    port,
    log: (line) => {
      if (/error|fatal/i.test(line)) logger.warn(line.trim());
    },
  });
  return { url: db.url, stop: db.stop };
}
