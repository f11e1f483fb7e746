import { join } from 'node:path';
import { AppConfig } from '../common/config/config';
import { startEmbeddedPostgres } from './embedded-postgres';

export interface ResolvedDatabase {
  url: string;
  /** Set when the embedded PostgreSQL runs: where its files are and its port. */
  embedded?: { dataDir: string; port: number };
  stop: () => Promise<void>;
}

/** The embedded PostgreSQL failed to start; the message says why and what to do. */
export class EmbeddedDatabaseError extends Error {}

/**
 * The database to use: DATABASE_URL when given, otherwise an embedded PostgreSQL kept under
 * `<DATA_DIR>/postgres` (started here and stopped with the process).
 */
export async function resolveDatabase(
  config: AppConfig,
  log: (line: string) => void = () => undefined,
): Promise<ResolvedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => undefined };
  const dir = join(config.dataDir, 'postgres');
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  try {
    const db = await startEmbeddedPostgres(dir, 'zulip', {
      port,
      log: (line) => {
        if (/\b(ERROR|FATAL|PANIC)\b/.test(line)) log(line.trim());
      },
    });
    return { url: db.url, embedded: { dataDir: db.dataDir, port: db.port }, stop: db.stop };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new EmbeddedDatabaseError(
      `The embedded PostgreSQL in ${dir} could not start (${reason.replace(/\.$/, '')}). ` +
        `Set DATABASE_URL to use a PostgreSQL server instead, or fix the cause${
          /address already in use|could not bind/i.test(reason) ? ` (port ${port} is taken: set EMBEDDED_PG_PORT)` : ''
        } and start again.`,
    );
  }
}
