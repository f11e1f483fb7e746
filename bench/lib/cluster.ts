/**
 * A private PostgreSQL cluster and a private Redis for the benchmark: started under a temporary
 * directory on free ports, so the numbers are not polluted by other users of the machine's
 * shared servers and the benchmark may reset statistics or change settings freely. Both are
 * stopped and removed at exit.
 */
import { chownSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { onCleanup, run, startChild, tempDir, type Child } from './children';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/** The newest PostgreSQL server binaries installed by the OS packages (Debian layout). */
function postgresBinDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      'The benchmark needs PostgreSQL server binaries under /usr/lib/postgresql/<version>/bin ' +
        '(Debian: apt-get install postgresql) to run a private cluster with pg_stat_statements.',
    );
  }
  return join(base, versions[0], 'bin');
}

export interface PgCluster {
  port: number;
  /** Connection URL for a database of the cluster. */
  url(database: string): string;
  postmasterPid(): number;
  logFile: string;
  /** Runs SQL as the superuser on `database`. */
  query<T = Record<string, unknown>>(database: string, sql: string, params?: unknown[]): Promise<T[]>;
  stop(): void;
}

export interface PgClusterOptions {
  sharedBuffers?: string;
  log?: (line: string) => void;
}

export async function startPgCluster(opts: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = postgresBinDir();
  const dir = tempDir('zulip-bench-pg-');
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  const asRoot = process.getuid?.() === 0;
  // PostgreSQL refuses to run as root: the cluster belongs to the `postgres` user then.
  const user = asRoot ? 'postgres' : undefined;
  if (asRoot) {
    const pw = run('id', ['-u', 'postgres']).trim();
    const gid = run('id', ['-g', 'postgres']).trim();
    chownSync(dir, Number(pw), Number(gid));
  }
  run(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { user });
  const port = await freePort();
  const settings: Record<string, string> = {
    port: String(port),
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${dir}'`,
    max_connections: '400',
    shared_buffers: opts.sharedBuffers ?? '512MB',
    max_wal_size: '4GB',
    checkpoint_timeout: '15min',
    shared_preload_libraries: "'pg_stat_statements,auto_explain'",
    'pg_stat_statements.track': 'top',
    'pg_stat_statements.track_utility': 'on',
    'pg_stat_statements.max': '10000',
    'auto_explain.log_min_duration': '-1',
    log_min_messages: 'warning',
    log_line_prefix: "'%m [%p] '",
  };
  writeFileSync(
    join(dataDir, 'postgresql.auto.conf'),
    Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n') + '\n',
  );
  run(join(bin, 'pg_ctl'), ['-D', dataDir, '-l', logFile, '-w', '-t', '60', 'start'], { user });
  const stop = onCleanup(`stop PostgreSQL (${dataDir})`, () => {
    try {
      run(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop'], { user });
    } catch (err) {
      console.error(String(err));
    }
  });
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async <T>(database: string, sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: url(database) });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  await query('postgres', 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  opts.log?.(`private PostgreSQL (${bin}) on 127.0.0.1:${port}, data ${dataDir}`);
  return {
    port,
    url,
    logFile,
    postmasterPid: () => Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
    query,
    stop,
  };
}

export interface PrivateRedis {
  url: string;
  child: Child;
  usedMemory(): Promise<number>;
}

/** A private redis-server (no persistence) on a free port. */
export async function startRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = tempDir('zulip-bench-redis-');
  const child = startChild(
    'redis-server',
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      run('redis-cli', ['-p', String(port), 'ping']);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    child,
    async usedMemory() {
      const info = run('redis-cli', ['-p', String(port), 'info', 'memory']);
      const m = /used_memory:(\d+)/.exec(info);
      return m ? Number(m[1]) : 0;
    },
  };
}
