/**
 * Presence load (`npm run bench:presence`): N users (10,000) each pinging POST /users/me/presence
 * once a minute, as every Zulip app does, against the product on a private PostgreSQL (the set-up
 * of `npm run bench`). Open loop: user i pings at i/N of every period, whatever the answers do.
 *
 * Real time by default (the period is 60 s): Zulip stores a ping only when the stored times are
 * more than 55 s old, so a compressed schedule (`--period 10`) measures the no-change path
 * (pings that must cost no query) rather than the writes. The first period creates every user's
 * row; the following ones are the steady state, reported separately.
 *
 *   npm run bench:presence                                  # 10,000 users, 1 + 2 periods of 60 s, ping_only
 *   npm run bench:presence -- --mode incremental            # ping_only=false with last_update_id (web app)
 *   npm run bench:presence -- --users 2000 --periods 1 --period 10 --json out.json
 *
 * Reports per period: pings/s, p50/p99 latency (client side), Node and PostgreSQL CPU per ping,
 * statements per ping, rows written to user_presence per second and per ping.
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { benchEmail, benchKey } from './lib/data';
import { basicAuth, request } from './lib/http';
import { machineLoad } from './lib/proc';
import { log, quiesce, setupEnvironment, snapshot, startBenchProduct } from './lib/setup';

interface Options {
  users: number;
  periods: number;
  period: number;
  mode: 'ping_only' | 'incremental';
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { users: 10_000, periods: 2, period: 60, mode: 'ping_only' };
  for (let i = 0; i < argv.length; i++) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (name === '--users') opts.users = Number(value);
    else if (name === '--periods') opts.periods = Number(value);
    else if (name === '--period') opts.period = Number(value);
    else if (name === '--mode') opts.mode = value as Options['mode'];
    else if (name === '--json') opts.json = value;
    else continue;
    i++;
  }
  return opts;
}

interface PeriodResult {
  label: string;
  pings: number;
  errors: number;
  seconds: number;
  pingsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  nodeCpuUsPerPing: number;
  pgCpuUsPerPing: number;
  statementsPerPing: number;
  rowsWrittenPerSecond: number;
  rowsWrittenPerPing: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function rowsWritten(db: Client): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT (n_tup_ins + n_tup_upd)::text AS n FROM pg_stat_user_tables WHERE relname = 'user_presence'`,
  );
  return Number(rows[0]?.n ?? 0);
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  log(`presence bench: ${opts.users} users, ${opts.periods} + 1 periods of ${opts.period} s, mode ${opts.mode}`);
  const env = await setupEnvironment({ users: opts.users, channels: 10, messages: 1000 });
  const server = await startBenchProduct(env);
  const db = new Client({ connectionString: env.dbUrl });
  await db.connect();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const auths = Array.from({ length: opts.users }, (_, i) => basicAuth(benchEmail(i), benchKey(i)));
  const lastUpdateIds = new Array<number>(opts.users).fill(-1);

  // Every user authenticates once (the server caches credentials, as in steady state).
  log('warming the authentication cache');
  for (let i = 0; i < opts.users; i += 64) {
    await Promise.all(auths.slice(i, i + 64).map((a) => request(agent, server.port, 'GET', '/api/v1/users/me', a)));
  }

  async function runPeriod(label: string): Promise<PeriodResult> {
    await quiesce(env, server.child.pid);
    const before = await snapshot(env, server.child.pid);
    const rows0 = await rowsWritten(db);
    const latencies: number[] = [];
    let errors = 0;
    const started = performance.now();
    const periodMs = opts.period * 1000;
    const inFlight: Array<Promise<void>> = [];
    for (let i = 0; i < opts.users; i++) {
      const due = started + (i / opts.users) * periodMs;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const form: Record<string, string> =
        opts.mode === 'ping_only'
          ? { status: 'active', ping_only: 'true' }
          : { status: 'active', last_update_id: String(lastUpdateIds[i]), history_limit_days: '14' };
      const t0 = performance.now();
      inFlight.push(
        request(agent, server.port, 'POST', '/api/v1/users/me/presence', auths[i], form).then(
          (res) => {
            latencies.push(performance.now() - t0);
            if (res.status !== 200) errors++;
            else if (typeof res.body.presence_last_update_id === 'number') {
              lastUpdateIds[i] = res.body.presence_last_update_id;
            }
          },
          () => {
            errors++;
          },
        ),
      );
    }
    await Promise.all(inFlight);
    const seconds = (performance.now() - started) / 1000;
    // The last batch, and PostgreSQL's table statistics (flushed within a second or so).
    await new Promise((r) => setTimeout(r, 2500));
    const after = await snapshot(env, server.child.pid);
    const rows = (await rowsWritten(db)) - rows0;
    latencies.sort((a, b) => a - b);
    const result: PeriodResult = {
      label,
      pings: opts.users,
      errors,
      seconds,
      pingsPerSecond: opts.users / seconds,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies[latencies.length - 1] ?? 0,
      nodeCpuUsPerPing: ((after.nodeCpu - before.nodeCpu) * 1e6) / opts.users,
      pgCpuUsPerPing: ((after.pgCpu - before.pgCpu) * 1e6) / opts.users,
      statementsPerPing: (after.statements - before.statements) / opts.users,
      rowsWrittenPerSecond: rows / seconds,
      rowsWrittenPerPing: rows / opts.users,
    };
    log(
      `${label}: ${result.pingsPerSecond.toFixed(0)} pings/s, p50 ${result.p50Ms.toFixed(1)} ms, ` +
        `p99 ${result.p99Ms.toFixed(1)} ms, Node ${result.nodeCpuUsPerPing.toFixed(0)} µs/ping, ` +
        `PostgreSQL ${result.pgCpuUsPerPing.toFixed(0)} µs/ping, ${result.statementsPerPing.toFixed(3)} statements/ping, ` +
        `${result.rowsWrittenPerSecond.toFixed(0)} rows written/s (${result.rowsWrittenPerPing.toFixed(2)} per ping), ` +
        `${errors} errors`,
    );
    return result;
  }

  const loadBefore = machineLoad();
  const results: PeriodResult[] = [await runPeriod('first period (creates the rows)')];
  if (opts.mode === 'incremental') {
    // As after /register: every client knows the realm's newest update id.
    const { rows } = await db.query<{ id: string }>(`SELECT max(last_update_id)::text AS id FROM user_presence`);
    lastUpdateIds.fill(Number(rows[0].id));
  }
  for (let p = 1; p <= opts.periods; p++) results.push(await runPeriod(`steady period ${p}`));
  const loadAfter = machineLoad();

  const statements = await env.stats.query<{ query: string; calls: string; mean: number }>(
    `SELECT query, calls::text, mean_exec_time AS mean FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'zulip_bench') AND query ILIKE '%user_presence%'
      ORDER BY calls DESC LIMIT 5`,
  );
  for (const s of statements.rows) {
    log(`  ${s.calls} × ${s.mean.toFixed(2)} ms: ${s.query.replace(/\s+/g, ' ').slice(0, 120)}`);
  }
  log(`machine load: ${loadBefore.load1.toFixed(2)} → ${loadAfter.load1.toFixed(2)} on ${loadAfter.cpus} CPUs`);
  const out = opts.json ?? `bench/results/presence-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(out, JSON.stringify({ options: opts, results, loadBefore, loadAfter }, null, 2));
  log(`results in ${out}`);
  agent.destroy();
  await db.end();
  await server.stop();
  await env.stats.end();
  env.pg.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
