/**
 * `npm run bench:profile`: where the Node CPU of one send and one fetch goes, and what
 * PostgreSQL does for them. On the benchmark's realm (private PostgreSQL, bulk data):
 *
 * 1. runs the product with --cpu-prof under a send load (32 connections, channel of 10) and
 *    then a fetch load (8 connections, newest 100), and summarises the V8 CPU profile samples
 *    of each window by library (self time) and by concern (inclusive time), per request;
 * 2. reports the statements per send and per fetch with their mean time (pg_stat_statements);
 * 3. logs EXPLAIN (ANALYZE, BUFFERS) of every statement of one warm fetch and one warm send
 *    (auto_explain), and prints them.
 *
 * Options: --seconds N (15), --users N, --channels N, --messages N (1000000), --json FILE.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { tempDir } from './lib/children';
import { basicAuth, request } from './lib/http';
import { pickLoadGenerator, runLoad, type LoadSpec } from './lib/loadgen';
import { cpuSeconds } from './lib/proc';
import {
  log,
  resetStatements,
  setupEnvironment,
  startBenchProduct,
  statementStats,
  type Environment,
  type StatementStat,
} from './lib/setup';

/** dist/src/ of this build: the product the profile was taken of. */
const OWN_SRC = join(__dirname, '..', 'src') + '/';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The library or source area a frame belongs to (self-time view). */
export function frameLibrary(f: CallFrame): string {
  const url = f.url.replace(/^file:\/\//, '');
  if (f.functionName === '(garbage collector)') return 'GC';
  if (f.functionName === '(program)') return 'V8/native (program)';
  if (f.functionName === '(idle)') return '(idle)';
  if (url === '') {
    if (/^(stringify|parse)$/.test(f.functionName)) return 'JSON (builtin)';
    return 'V8 builtins / native';
  }
  if (url.startsWith('node:')) return /http|net|stream|_tls|dns/.test(url) ? 'Node http/net/streams' : 'Node internals';
  // Our compiled code, wherever this dist tree lives (even inside node_modules).
  if (url.startsWith(OWN_SRC))
    return `src/${url.slice(OWN_SRC.length).split('/').slice(0, 2).join('/')}`.replace(/\.js$/, '');
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) {
    const pkg = nm[1];
    if (/^(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|pgpass|pg-connection-string)$/.test(pkg)) return 'pg driver';
    if (pkg === 'typeorm') return 'TypeORM';
    if (
      /^(express|router|body-parser|multer|busboy|qs|raw-body|finalhandler|send|serve-static|type-is|accepts|content-type|on-finished|iconv-lite|path-to-regexp|mime-types|negotiator|statuses|http-errors|depd|debug|parseurl|cookie|fresh|etag|vary|merge-descriptors|encodeurl|escape-html|media-typer|proxy-addr|forwarded|range-parser|ms)$/.test(
        pkg,
      )
    )
      return 'Express and its middleware';
    if (pkg.startsWith('@nestjs/') || pkg === 'rxjs' || pkg === 'reflect-metadata') return 'Nest (+rxjs)';
    if (pkg === 'class-validator' || pkg === 'class-transformer' || pkg === 'validator')
      return 'class-validator/transformer';
    if (pkg.startsWith('passport')) return 'Passport';
    if (
      pkg === 'markdown-it' ||
      pkg === 'katex' ||
      pkg === 'linkify-it' ||
      pkg === 'mdurl' ||
      pkg === 'uc.micro' ||
      pkg === 'entities' ||
      pkg === 'punycode.js'
    )
      return 'Markdown libraries';
    if (pkg === 'secure-json-parse') return 'JSON (secure-json-parse)';
    return `npm ${pkg}`;
  }
  const src = /\/dist\/(src\/[^/]+(?:\/[^/]+)?)/.exec(url) ?? /\/(src\/[^/]+)/.exec(url);
  if (src) return src[1].replace(/\.js$/, '');
  return url;
}

/** The concern a frame's own code serves, or null for frames that only pass control on (builtins, glue). */
export function frameConcern(f: CallFrame): string | null {
  const url = f.url.replace(/^file:\/\//, '');
  const lib = frameLibrary(f);
  if (lib === 'GC') return 'GC';
  if (lib === 'V8/native (program)') return 'V8/native (program)';
  if (lib === 'JSON (builtin)' || lib === 'JSON (secure-json-parse)') return 'JSON';
  if (lib === 'pg driver') return 'pg driver';
  if (lib === 'TypeORM' || /src\/database\/transaction/.test(url)) return 'TypeORM (transactions, query runner)';
  if (/src\/common\/auth|src\/users\/(auth\.service|basic\.strategy|api-keys)|passport/.test(url))
    return 'auth (guard, Basic, key lookup)';
  if (
    /src\/common\/http\/(params|request-params)|\/dto\/|class-validator|class-transformer|node_modules\/validator\//.test(
      url,
    )
  )
    return 'parameter parsing/validation';
  if (
    /src\/markdown|src\/messaging\/(markdown|message-render)|markdown-it|katex|linkify-it|mdurl|uc\.micro|entities/.test(
      url,
    )
  )
    return 'Markdown';
  if (/src\/messaging\/message-format/.test(url)) return 'message dict';
  if (/src\/events\//.test(url)) return 'events (queues, sendOnCommit)';
  if (/src\/(push|uploads)\/|message-lifecycle|channel-messages\.handler/.test(url)) return 'push/uploads hooks';
  if (/src\/users\/group-settings|src\/users\/group-membership|src\/realm\/system-groups/.test(url))
    return 'group permission checks';
  if (/src\/messaging\/(message-send|messages\.repository|send\.policy|named-query|message-text|flags)/.test(url))
    return 'send service + repository (own code)';
  if (/src\/messaging\/(message-fetch|narrow|message-access)/.test(url)) return 'fetch service + repository (own code)';
  if (/src\/realm\//.test(url)) return 'realm cache/service';
  if (
    lib === 'Express and its middleware' ||
    lib === 'Nest (+rxjs)' ||
    /src\/common\/|src\/bootstrap|src\/app\.module/.test(url)
  )
    return 'Express/Nest framework (+ our interceptors, filters, body parsing)';
  if (lib === 'Node http/net/streams' || lib === 'Node internals') return null;
  if (url === '') return null;
  return `other: ${lib}`;
}

export interface WindowSummary {
  requests: number;
  sampledMs: number;
  /** Node CPU per request (/proc) when given, else busy sample time per request. */
  cpuUsPerRequest: number;
  byLibrary: Array<{ name: string; usPerRequest: number; share: number }>;
  byConcern: Array<{ name: string; usPerRequest: number; share: number }>;
  inclusive: Array<{ name: string; usPerRequest: number; share: number }>;
}

/**
 * The samples between t0 and t1 (µs, the monotonic clock of process.hrtime) three ways: self
 * time by library (builtins charged to their nearest JavaScript caller), each sample charged to
 * the innermost concern on its stack (a partition: the rows add up to the total), and inclusive
 * time per concern (a sample counts for every concern on its stack).
 */
export function summariseWindow(
  profile: CpuProfile,
  t0: number,
  t1: number,
  requests: number,
  cpuUs?: number,
): WindowSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = <T>(fn: (id: number) => T) => {
    const cache = new Map<number, T>();
    return (id: number) => {
      if (!cache.has(id)) cache.set(id, fn(id));
      return cache.get(id)!;
    };
  };
  const library: (id: number) => string = memo((id) => {
    const f = byId.get(id)!.callFrame;
    const lib = frameLibrary(f);
    const p = parent.get(id);
    if (lib === 'V8 builtins / native' && p !== undefined && byId.get(p)!.callFrame.functionName !== '(root)')
      return library(p);
    return lib;
  });
  const innermost: (id: number) => string = memo((id) => {
    const c = frameConcern(byId.get(id)!.callFrame);
    if (c !== null) return c;
    const p = parent.get(id);
    if (p !== undefined) return innermost(p);
    return 'unclassified (Node internals, builtins)';
  });
  // Node's http/net code is charged to the nearest concern that called it (the pg driver's
  // socket writes to the pg driver); what no JavaScript of ours or of a library called is the
  // server side of HTTP: accepting, parsing requests, writing responses.
  const nodeHttp: (id: number) => boolean = memo((id) => {
    if (frameLibrary(byId.get(id)!.callFrame) === 'Node http/net/streams') return true;
    const p = parent.get(id);
    return p !== undefined && nodeHttp(p);
  });
  const stack: (id: number) => Set<string> = memo((id) => {
    const p = parent.get(id);
    const set = new Set(p === undefined ? [] : stack(p));
    const c = frameConcern(byId.get(id)!.callFrame);
    if (c !== null) set.add(c);
    return set;
  });
  const self = new Map<string, number>();
  const concern = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  let total = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < t0 || t > t1) continue;
    // A sample's weight: the time until the next sample.
    const dt = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0;
    const id = profile.samples[i];
    if (frameLibrary(byId.get(id)!.callFrame) === '(idle)') continue;
    total += dt;
    add(self, library(id), dt);
    const c = innermost(id);
    add(
      concern,
      c.startsWith('unclassified') && nodeHttp(id) ? 'Node http server (parsing, sockets, responses)' : c,
      dt,
    );
    for (const c of stack(id)) add(inclusive, c, dt);
  }
  // Sample intervals are wall time: when the machine is oversubscribed the process is also
  // charged for time it spent descheduled. Scale the busy samples to the CPU time /proc measured.
  const scale = cpuUs !== undefined && total > 0 ? cpuUs / total : 1;
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ name, usPerRequest: (us * scale) / requests, share: us / total }));
  return {
    requests,
    sampledMs: total / 1000,
    cpuUsPerRequest: (total * scale) / requests,
    byLibrary: rows(self),
    byConcern: rows(concern),
    // The framework and Node's http code are ancestors of every request's work: no inclusive row.
    inclusive: rows(inclusive).filter((r) => !/^(Express\/Nest|Node http)/.test(r.name)),
  };
}

function table(title: string, s: WindowSummary, limit = 18): string {
  const row = (r: { name: string; usPerRequest: number; share: number }) =>
    `| ${r.name} | ${r.usPerRequest.toFixed(0)} | ${(r.share * 100).toFixed(1)} % |`;
  const total = `| **total Node CPU** | **${s.cpuUsPerRequest.toFixed(0)}** | 100 % |`;
  return [
    `| ${title}: where the Node CPU goes (innermost concern on the stack) | µs per request | share |`,
    '|---|---|---|',
    ...s.byConcern.map(row),
    total,
    '',
    `| ${title}: self time by library (builtins charged to their caller) | µs per request | share |`,
    '|---|---|---|',
    ...s.byLibrary.slice(0, limit).map(row),
    total,
    '',
    `| ${title}: inclusive time (everything below a concern) | µs per request | share |`,
    '|---|---|---|',
    ...s.inclusive.map(row),
  ].join('\n');
}

/**
 * Statements per request, counted against a statement that runs exactly once per request (the
 * message insert, the fetch window), so requests still in flight at the window's edges don't
 * skew the figures.
 */
function perRequest(stats: StatementStat[], anchor: RegExp, fallback: number): number {
  return stats.find((s) => anchor.test(s.query))?.calls ?? fallback;
}

function statementTable(title: string, stats: StatementStat[], requests: number): string {
  const lines = [
    `| ${title}: statement | calls per request | mean ms | rows per call |`,
    '|---|---|---|---|',
    ...stats
      .filter((s) => s.calls / requests >= 0.01)
      .map(
        (s) =>
          `| \`${s.query.replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 160)}\` | ${(s.calls / requests).toFixed(2)} | ${s.meanMs.toFixed(3)} | ${(s.rows / Math.max(1, s.calls)).toFixed(1)} |`,
      ),
  ];
  return lines.join('\n');
}

const hrUs = () => Number(process.hrtime.bigint() / 1000n);

async function explainOnce(env: Environment, port: number, specs: Array<{ name: string; spec: LoadSpec }>) {
  const agent = new http.Agent({ keepAlive: true });
  const once = async (spec: LoadSpec) => {
    const u = new URL(spec.url);
    const form = spec.body ? Object.fromEntries(new URLSearchParams(spec.body)) : undefined;
    const r = await request(agent, port, spec.method, u.pathname + u.search, spec.headers?.authorization ?? null, form);
    if (r.status !== 200) throw new Error(`${spec.method} ${u.pathname}: ${JSON.stringify(r.body).slice(0, 300)}`);
  };
  // Warm: caches filled, statements prepared, as in steady state.
  for (let i = 0; i < 5; i++) for (const s of specs) await once(s.spec);
  const settings = [
    'auto_explain.log_min_duration = 0',
    'auto_explain.log_analyze = on',
    'auto_explain.log_buffers = on',
    'auto_explain.log_timing = on',
    'auto_explain.log_verbose = off',
  ];
  for (const s of settings) await env.stats.query(`ALTER SYSTEM SET ${s}`);
  await env.stats.query('SELECT pg_reload_conf()');
  await new Promise((r) => setTimeout(r, 1000));
  const out: Record<string, string> = {};
  try {
    for (const s of specs) {
      const start = statSync(env.pg.logFile).size;
      await once(s.spec);
      await new Promise((r) => setTimeout(r, 500));
      out[s.name] = readFileSync(env.pg.logFile).subarray(start).toString('utf8');
    }
  } finally {
    await env.stats.query('ALTER SYSTEM RESET ALL');
    await env.stats.query('SELECT pg_reload_conf()');
  }
  agent.destroy();
  return out;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (name: string, dflt: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  const jsonIdx = argv.indexOf('--json');
  const seconds = arg('--seconds', 15);
  const gen = pickLoadGenerator();
  const env = await setupEnvironment({
    users: arg('--users', 10_000),
    channels: arg('--channels', 1000),
    messages: arg('--messages', 1_000_000),
  });
  const { hamlet, channels } = env.data;
  const profDir = tempDir('zulip-bench-prof-');
  const product = await startBenchProduct(env, { cpuProfDir: profDir });
  const p = (path: string) => `http://127.0.0.1:${product.port}${path}`;
  const auth = basicAuth(hamlet.email, hamlet.key);
  const send: LoadSpec = {
    method: 'POST',
    url: p('/api/v1/messages'),
    headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      type: 'stream',
      to: String(channels.c10.id),
      topic: 'bench topic',
      content: 'Benchmark message with **some** markdown, a [link](https://example.com) and :smile:',
    }).toString(),
    connections: 32,
    seconds,
  };
  const narrow = encodeURIComponent(JSON.stringify([{ operator: 'channel', operand: channels.fetch.id }]));
  const fetch: LoadSpec = {
    method: 'GET',
    url: p(`/api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow=${narrow}`),
    headers: { authorization: auth },
    connections: 8,
    seconds,
  };
  // The framework's own cost: no auth, no SQL (issue 15 item 5).
  const hello: LoadSpec = { method: 'GET', url: p('/api/v1/server_settings'), connections: 32, seconds };
  const windows: Array<{
    name: string;
    t0: number;
    t1: number;
    requests: number;
    stats: StatementStat[];
    anchor: RegExp;
    cpuUs: number;
  }> = [];
  for (const [name, spec, anchor] of [
    ['send', send, /^\s*WITH m AS \(\s*INSERT INTO message/],
    ['fetch', fetch, /^SELECT \* FROM \(\(SELECT m\.id AS message_id/],
    ['hello', hello, /^$/],
  ] as const) {
    log(`profiling ${name}: warm-up, then ${seconds} s at ${spec.connections} connections`);
    await runLoad(gen, { ...spec, seconds: 3 });
    await resetStatements(env);
    const cpu0 = cpuSeconds(product.child.pid);
    const t0 = hrUs();
    const r = await runLoad(gen, spec);
    const t1 = hrUs();
    const cpuUs = (cpuSeconds(product.child.pid) - cpu0) * 1e6;
    const stats = await statementStats(env);
    windows.push({ name, t0, t1, requests: r.requests, stats, anchor, cpuUs });
    log(`  ${r.requests} requests, ${r.rps.toFixed(0)} req/s, p99 ${r.p99ms} ms, ${r.errors} errors`);
  }
  await product.stop();
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile was written');
  const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile;
  const keepIdx = argv.indexOf('--cpuprofile');
  if (keepIdx >= 0) copyFileSync(join(profDir, file), argv[keepIdx + 1]);

  log('EXPLAIN (ANALYZE, BUFFERS) of one warm fetch and one warm send (auto_explain)');
  const explainServer = await startBenchProduct(env);
  const fixPort = (s: LoadSpec): LoadSpec => ({
    ...s,
    url: s.url.replace(`:${product.port}/`, `:${explainServer.port}/`),
  });
  const plans = await explainOnce(env, explainServer.port, [
    { name: 'fetch', spec: fixPort(fetch) },
    { name: 'send', spec: fixPort(send) },
  ]);
  await explainServer.stop();

  const sections: string[] = [];
  const report: Record<string, unknown> = { date: new Date().toISOString(), data: env.data, windows: {} };
  for (const w of windows) {
    const s = summariseWindow(profile, w.t0, w.t1, w.requests, w.cpuUs);
    (report.windows as Record<string, unknown>)[w.name] = { ...s, statements: w.stats, requests: w.requests };
    sections.push(
      `### ${w.name}: Node CPU per request (${w.requests} requests; ${(w.cpuUs / 1e6).toFixed(1)} s of Node CPU over ${(s.sampledMs / 1000).toFixed(1)} s of busy samples)`,
      '',
      table(w.name, s),
      '',
      statementTable(w.name, w.stats, perRequest(w.stats, w.anchor, w.requests)),
      '',
    );
  }
  for (const [name, text] of Object.entries(plans)) {
    sections.push(`### EXPLAIN (ANALYZE, BUFFERS): every statement of one ${name}`, '', '```', text.trim(), '```', '');
  }
  report.plans = plans;
  await env.stats.end();
  const text = sections.join('\n');
  console.log(`\n${text}`);
  const out =
    jsonIdx >= 0
      ? argv[jsonIdx + 1]
      : join(process.cwd(), 'bench', 'results', `profile-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2));
  writeFileSync(out.replace(/\.json$/, '.md'), text);
  log(`report: ${out}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
