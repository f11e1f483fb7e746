/**
 * The common start of `npm run bench` and the profile script: a private PostgreSQL cluster, a
 * database migrated and seeded by the product itself, the bench realm built in bulk, and
 * helpers to measure CPU and statements over a window.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { startPgCluster, type PgCluster } from './cluster';
import { buildBenchData, type BenchData } from './data';
import { clusterCpuSeconds, cpuSeconds } from './proc';
import { startProduct, type RunningServer } from './servers';

export const DB_NAME = 'zulip_bench';

export interface Environment {
  pg: PgCluster;
  dbUrl: string;
  logDir: string;
  secretKey: string;
  data: BenchData;
  /** A connection to the `postgres` database for statistics. */
  stats: Client;
}

export function log(line: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
}

export async function setupEnvironment(opts: {
  users: number;
  channels: number;
  messages: number;
}): Promise<Environment> {
  if (!existsSync(join(__dirname, '..', '..', 'src', 'main.js'))) {
    throw new Error('dist/src/main.js is missing: run `npm run build` first (npm run bench does).');
  }
  // Server logs are kept (bench/results/ is not committed) for looking into failures afterwards.
  const logDir = join(process.cwd(), 'bench', 'results', `logs-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(logDir, { recursive: true });
  log(`server logs in ${logDir}`);
  const pg = await startPgCluster({ log });
  await pg.query('postgres', `CREATE DATABASE ${DB_NAME}`);
  const dbUrl = pg.url(DB_NAME);
  const secretKey = randomBytes(32).toString('base64');
  log('starting the product once to migrate and seed the demo realm');
  const seeding = await startProduct({ databaseUrl: dbUrl, logDir, secretKey });
  log(`building the bench realm: ${opts.users} users, ${opts.channels} channels, ${opts.messages} messages`);
  const data = await buildBenchData(seeding.port, dbUrl, secretKey, { ...opts, log });
  await seeding.stop();
  const stats = new Client({ connectionString: pg.url('postgres') });
  await stats.connect();
  return { pg, dbUrl, logDir, secretKey, data, stats };
}

export function startBenchProduct(
  env: Environment,
  extra: { redisUrl?: string; cpuProfDir?: string } = {},
): Promise<RunningServer> {
  return startProduct({ databaseUrl: env.dbUrl, logDir: env.logDir, secretKey: env.secretKey, ...extra });
}

export interface Snapshot {
  nodeCpu: number;
  pgCpu: number;
  statements: number;
}

export async function snapshot(env: Environment, serverPid: number): Promise<Snapshot> {
  const { rows } = await env.stats.query<{ calls: string | null }>(
    `SELECT sum(calls) AS calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)`,
    [DB_NAME],
  );
  return {
    nodeCpu: cpuSeconds(serverPid),
    pgCpu: clusterCpuSeconds(env.pg.postmasterPid()),
    statements: Number(rows[0].calls ?? 0),
  };
}

/**
 * Waits until the server process and PostgreSQL are idle (under 5 % of a core each over half a
 * second), so a measurement does not pay for work left over from the previous one (requests
 * abandoned by the load generator, autovacuum, checkpoints). Returns the seconds waited.
 */
export async function quiesce(env: Environment, serverPid: number, maxSeconds = 180): Promise<number> {
  const started = Date.now();
  for (;;) {
    const n0 = cpuSeconds(serverPid);
    const p0 = clusterCpuSeconds(env.pg.postmasterPid());
    await new Promise((r) => setTimeout(r, 500));
    const busy = Math.max(cpuSeconds(serverPid) - n0, clusterCpuSeconds(env.pg.postmasterPid()) - p0);
    const waited = (Date.now() - started) / 1000;
    if (busy < 0.025 || waited > maxSeconds) return waited;
  }
}

export async function resetStatements(env: Environment): Promise<void> {
  await env.stats.query('SELECT pg_stat_statements_reset()');
}

export interface StatementStat {
  query: string;
  calls: number;
  meanMs: number;
  totalMs: number;
  rows: number;
}

/** Statements of the bench database since the last reset, most called first. */
export async function statementStats(env: Environment): Promise<StatementStat[]> {
  const { rows } = await env.stats.query<{
    query: string;
    calls: string;
    mean_exec_time: number;
    total_exec_time: number;
    rows: string;
  }>(
    `SELECT query, calls, mean_exec_time, total_exec_time, rows FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
      ORDER BY calls DESC, total_exec_time DESC`,
    [DB_NAME],
  );
  return rows.map((r) => ({
    query: r.query,
    calls: Number(r.calls),
    meanMs: r.mean_exec_time,
    totalMs: r.total_exec_time,
    rows: Number(r.rows),
  }));
}
