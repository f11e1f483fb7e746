/**
 * End-to-end API benchmark: starts the real server process (dist/src/main.js) on DATABASE_URL or
 * the embedded PostgreSQL, builds its data through the API, then drives each workload with a
 * keep-alive HTTP client for a bounded time and reports requests/s, latency percentiles, errors
 * and the server's memory.
 *
 *   npm run bench                         # build, then run every workload (5 s each)
 *   node dist/bench/api.bench.js --seconds 10 --concurrency 32 --only send
 *
 * Options: --seconds N (default 5), --warmup N (default 1), --concurrency N (default 16),
 * --users N (largest channel, default 1000), --only <substring>, --json <file>.
 * Ratios: every workload is also reported relative to GET /health measured in the same run
 * (framework + one trivial query), so numbers from different machines compare.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Options {
  seconds: number;
  warmup: number;
  concurrency: number;
  users: number;
  only?: string;
  json?: string;
}

function parseOptions(argv: string[]): Options {
  const opts: Options = { seconds: 5, warmup: 1, concurrency: 16, users: 1000 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--seconds') opts.seconds = Number(v);
    else if (k === '--warmup') opts.warmup = Number(v);
    else if (k === '--concurrency') opts.concurrency = Number(v);
    else if (k === '--users') opts.users = Number(v);
    else if (k === '--only') opts.only = v;
    else if (k === '--json') opts.json = v;
    else throw new Error(`unknown option ${k}`);
  }
  return opts;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

interface Resp {
  status: number;
  body: Record<string, unknown>;
}

function request(
  port: number,
  method: string,
  path: string,
  auth: string | null,
  form?: Record<string, string>,
): Promise<Resp> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          ...(auth ? { authorization: `Basic ${auth}` } : {}),
          ...(body
            ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown> = {};
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            parsed = { raw: text };
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

interface Workload {
  name: string;
  /** One request; returns whether it succeeded. */
  run: (i: number) => Promise<boolean>;
}

interface Result {
  name: string;
  requests: number;
  errors: number;
  rps: number;
  p50ms: number;
  p90ms: number;
  p99ms: number;
  ratioToHealth?: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function drive(w: Workload, opts: Options): Promise<Result> {
  const phase = async (seconds: number, record: boolean) => {
    const latencies: number[] = [];
    let errors = 0;
    let counter = 0;
    const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
    const worker = async () => {
      while (process.hrtime.bigint() < deadline) {
        const t0 = process.hrtime.bigint();
        let ok = false;
        try {
          ok = await w.run(counter++);
        } catch {
          ok = false;
        }
        if (record) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (!ok) errors++;
      }
    };
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    return { latencies, errors, elapsed };
  };
  await phase(opts.warmup, false);
  const { latencies, errors, elapsed } = await phase(opts.seconds, true);
  latencies.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    name: w.name,
    requests: latencies.length,
    errors,
    rps: Math.round(latencies.length / elapsed),
    p50ms: round(percentile(latencies, 50)),
    p90ms: round(percentile(latencies, 90)),
    p99ms: round(percentile(latencies, 99)),
  };
}

function rssOf(pid: number): number {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const status = (require('node:fs') as typeof import('node:fs')).readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function startServer(port: number): Promise<ChildProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'zulip-bench-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    SERVER_MODE: 'development',
    RATE_LIMIT: 'off',
    LOG_LEVEL: 'warn',
    DATA_DIR: process.env.DATABASE_URL ? dataDir : (process.env.DATA_DIR ?? join(process.cwd(), '.data', 'bench')),
  };
  if (process.env.DATABASE_URL) {
    // A fresh database for every run on the given server.
    const url = new URL(process.env.DATABASE_URL);
    const name = `zulip_bench_${Date.now()}`;
    const { Client } = await import('pg');
    const admin = new Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
  } else {
    env.EMBEDDED_PG_PORT = String(await freePort());
  }
  const child = spawn(process.execPath, [join(__dirname, '..', 'src', 'main.js')], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    try {
      const r = await request(port, 'GET', '/health', null);
      if (r.status === 200) {
        const seeded = await request(port, 'POST', '/api/v1/dev_fetch_api_key', null, { username: 'iago@zulip.com' });
        if (seeded.status === 200) return child;
      }
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error('server did not start');
}

const basic = (email: string, key: string) => Buffer.from(`${email}:${key}`).toString('base64');

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  const port = await freePort();
  console.log(`starting server on :${port} (${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'})`);
  const server = await startServer(port);
  try {
    const keyOf = async (email: string) => {
      const r = await request(port, 'POST', '/api/v1/dev_fetch_api_key', null, { username: email });
      return basic(email, r.body.api_key as string);
    };
    const iago = await keyOf('iago@zulip.com');
    const hamlet = await keyOf('hamlet@zulip.com');

    // Data: users for the large channels, and channels of 10 / 100 / N subscribers.
    console.log(`creating ${opts.users} users…`);
    const userIds: number[] = [];
    for (let i = 0; i < opts.users; i++) {
      const r = await request(port, 'POST', '/api/v1/users', iago, {
        email: `bench${i}@zulip.com`,
        full_name: `Bench User ${i}`,
        password: 'bench-password-1',
      });
      if (r.status !== 200) throw new Error(`creating users failed: ${JSON.stringify(r.body)}`);
      userIds.push(r.body.user_id as number);
    }
    const sizes = [10, 100, opts.users].filter((n, i, a) => n <= opts.users && a.indexOf(n) === i);
    for (const n of sizes) {
      const r = await request(port, 'POST', '/api/v1/users/me/subscriptions', hamlet, {
        subscriptions: JSON.stringify([{ name: `bench ${n}` }]),
        principals: JSON.stringify(userIds.slice(0, n - 1)),
      });
      if (r.status !== 200) throw new Error(`subscribing failed: ${JSON.stringify(r.body)}`);
    }
    const othello = (await request(port, 'GET', '/api/v1/users/othello@zulip.com', iago, undefined)).body.user as {
      user_id: number;
    };

    const ok = (r: Resp) => r.status === 200;
    const workloads: Workload[] = [
      { name: 'GET /health (baseline)', run: async () => ok(await request(port, 'GET', '/health', null)) },
      { name: 'GET /users/me', run: async () => ok(await request(port, 'GET', '/api/v1/users/me', hamlet)) },
      { name: 'GET /streams', run: async () => ok(await request(port, 'GET', '/api/v1/streams', hamlet)) },
      ...sizes.map((n) => ({
        name: `POST /messages channel, ${n} subscribers`,
        run: async (i: number) =>
          ok(
            await request(port, 'POST', '/api/v1/messages', hamlet, {
              type: 'stream',
              to: `bench ${n}`,
              topic: `bench topic ${i % 20}`,
              content: `Benchmark message ${i} with **some** markdown and a :smile:`,
            }),
          ),
      })),
      {
        name: 'POST /messages direct, 1:1',
        run: async (i: number) =>
          ok(
            await request(port, 'POST', '/api/v1/messages', hamlet, {
              type: 'direct',
              to: JSON.stringify([othello.user_id]),
              content: `DM ${i}`,
            }),
          ),
      },
      {
        name: 'GET /messages (newest 50, channel narrow)',
        run: async () =>
          ok(
            await request(
              port,
              'GET',
              `/api/v1/messages?anchor=newest&num_before=50&num_after=0&narrow=${encodeURIComponent(
                JSON.stringify([{ operator: 'channel', operand: `bench ${sizes[Math.min(1, sizes.length - 1)]}` }]),
              )}`,
              hamlet,
            ),
          ),
      },
      {
        name: 'POST /messages/render',
        run: async (i: number) =>
          ok(
            await request(port, 'POST', '/api/v1/messages/render', hamlet, {
              content: `**bold** ${i} @**Iago** :smile:`,
            }),
          ),
      },
    ].filter((w) => !opts.only || w.name.includes(opts.only));

    const results: Result[] = [];
    for (const w of workloads) {
      const r = await drive(w, opts);
      results.push(r);
      console.log(
        `${r.name.padEnd(45)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50ms} ms  p90 ${r.p90ms} ms  p99 ${r.p99ms} ms  errors ${r.errors}/${r.requests}`,
      );
    }
    const health = results.find((r) => r.name.startsWith('GET /health'));
    for (const r of results)
      if (health && health.rps > 0) r.ratioToHealth = Math.round((r.rps / health.rps) * 1000) / 1000;
    const rss = rssOf(server.pid ?? 0);
    console.log(`server RSS after the run: ${(rss / 1048576).toFixed(1)} MiB`);
    const report = { date: new Date().toISOString(), options: opts, results, serverRssBytes: rss };
    const out = opts.json ?? join(process.cwd(), 'bench', 'results', `api-${Date.now()}.json`);
    mkdirSync(join(out, '..'), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2));
    console.log(`report: ${out}`);
  } finally {
    server.kill('SIGTERM');
    agent.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
