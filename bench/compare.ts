/**
 * `node dist/bench/compare.js OTHER_DIST [options] [workloads]`: this build and another one
 * measured on one benchmark environment, taking turns (A B, B A, …), so that the machine's drift
 * during the run falls on both alike. For judging a change: build the commit before it in another
 * worktree (`git worktree add --detach ../before <commit> && cd ../before && npm ci && npm run
 * build`) and pass its dist/ directory.
 *
 * Reports, per workload and build, the medians over the rounds of req/s, p99, and the server's
 * user and system CPU per request apart (from /proc): user CPU is what code changes move; system
 * CPU is mostly socket writes, and wall-clock profiles charge the time PostgreSQL or the load
 * generator holds the core to whatever Node was doing.
 *
 * Options: --rounds N (3), --seconds N (8), --users N (10000), --channels N (1000),
 * --messages N (100000). Workloads: send, send1000, fetch, hello, streams, register (default:
 * send, fetch, register). Both builds must share the schema this build migrates to.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pickLoadGenerator, runLoad } from './lib/loadgen';
import { cpuSplit } from './lib/proc';
import { startProduct } from './lib/servers';
import { log, setupEnvironment } from './lib/setup';
import { HTTP_WORKLOADS, httpWorkloads, type HttpWorkloadName } from './lib/workloads';

interface Row {
  rps: number;
  p99ms: number;
  userUs: number;
  systemUs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const num = (name: string, dflt: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  const valued = new Set(['--rounds', '--seconds', '--users', '--channels', '--messages']);
  const positional = argv.filter((a, i) => !a.startsWith('--') && !valued.has(argv[i - 1]));
  const [other, ...names] = positional;
  if (!other || !existsSync(resolve(other, 'src', 'main.js'))) {
    throw new Error('usage: node dist/bench/compare.js OTHER_DIST [--rounds N] [--seconds N] [workloads]');
  }
  const workloads = (names.length > 0 ? names : ['send', 'fetch', 'register']) as HttpWorkloadName[];
  for (const w of workloads) {
    if (!(HTTP_WORKLOADS as readonly string[]).includes(w) || w === 'fetch1m') throw new Error(`unknown workload ${w}`);
  }
  const rounds = num('--rounds', 3);
  const seconds = num('--seconds', 8);
  const gen = pickLoadGenerator();
  const env = await setupEnvironment({
    users: num('--users', 10_000),
    channels: num('--channels', 1000),
    messages: num('--messages', 100_000),
  });
  const builds = { this: resolve(__dirname, '..'), other: resolve(other) };
  const results = new Map<string, Row[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['other', 'this'] as const) : (['this', 'other'] as const);
      for (const build of order) {
        const server = await startProduct({
          databaseUrl: env.dbUrl,
          logDir: env.logDir,
          secretKey: env.secretKey,
          distRoot: builds[build],
        });
        try {
          for (const w of httpWorkloads(env, server.port, 0).filter((x) => workloads.includes(x.name))) {
            const spec = { ...w.product, connections: w.connections };
            await runLoad(gen, { ...spec, seconds: 2 });
            const before = cpuSplit(server.child.proc.pid ?? 0);
            const load = await runLoad(gen, { ...spec, seconds });
            const after = cpuSplit(server.child.proc.pid ?? 0);
            const n = Math.max(1, load.requests);
            const row = {
              rps: load.rps,
              p99ms: load.p99ms,
              userUs: ((after.user - before.user) / n) * 1e6,
              systemUs: ((after.system - before.system) / n) * 1e6,
            };
            log(
              `round ${round + 1} ${w.name.padEnd(9)} ${build.padEnd(5)} ${JSON.stringify(row, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v))}`,
            );
            const key = `${w.name} ${build}`;
            results.set(key, [...(results.get(key) ?? []), row]);
          }
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    await env.stats.end();
    env.pg.stop();
  }
  console.log(`\nthis = ${builds.this}\nother = ${builds.other}\n`);
  console.log('| Workload | Build | req/s | p99 ms | user CPU µs/req | system CPU µs/req |');
  console.log('|---|---|---|---|---|---|');
  for (const w of workloads) {
    for (const build of ['other', 'this']) {
      const rows = results.get(`${w} ${build}`) ?? [];
      const m = (k: keyof Row) => median(rows.map((r) => r[k]));
      console.log(
        `| ${w} | ${build} | ${m('rps').toFixed(0)} | ${m('p99ms').toFixed(1)} | ${m('userUs').toFixed(0)} | ${m('systemUs').toFixed(0)} |`,
      );
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
