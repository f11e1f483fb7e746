/**
 * `npm run bench`: the product and a ceiling (bench/ceiling-server.ts) measured side by side in
 * one run, on a private PostgreSQL cluster with a bulk-built realm. See bench/README.md.
 *
 *   npm run bench                          every workload, 3 interleaved rounds, 10 s each
 *   npm run bench -- send fetch            a subset
 *   npm run bench -- --quick               1 round of 3 s, a 100k-message realm, events at N=1,000
 *   npm run bench -- --quick fetch1m       the newest-100 fetch on a realm of 1M messages (built even with --quick)
 *
 * Options: --rounds N (3), --seconds N (10), --warmup N (2), --loadgen wrk|autocannon,
 * --users N (10000), --channels N (1000), --messages N (1000000), --queues N (10000),
 * --events-sizes 1000,10000, --json FILE.
 */
import { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { startChild, type Child } from './lib/children';
import { startRedis } from './lib/cluster';
import { benchEmail, benchKey } from './lib/data';
import { request } from './lib/http';
import { pickLoadGenerator, runLoad, type LoadGenerator, type LoadSpec } from './lib/loadgen';
import { cpuSeconds, machineLoad } from './lib/proc';
import { startCeiling, type RunningServer } from './lib/servers';
import { log, quiesce, setupEnvironment, snapshot, startBenchProduct, type Environment } from './lib/setup';
import { HTTP_WORKLOADS, httpWorkloads, type HttpWorkload } from './lib/workloads';

/** `fetch1m` measures the fetch on a realm of at least this many messages, even with --quick. */
const FETCH_1M_MESSAGES = 1_000_000;
const OTHER_WORKLOADS = ['events', 'events-redis', 'queues'] as const;
const ALL = [...HTTP_WORKLOADS, ...OTHER_WORKLOADS];
type WorkloadName = (typeof ALL)[number];

interface Options {
  workloads: WorkloadName[];
  quick: boolean;
  rounds: number;
  seconds: number;
  warmup: number;
  loadgen?: string;
  users: number;
  channels: number;
  messages: number;
  queues: number;
  eventSizes: number[];
  json?: string;
}

function parseOptions(argv: string[]): Options {
  const quick = argv.includes('--quick');
  const o: Options = {
    workloads: [],
    quick,
    rounds: quick ? 1 : 3,
    seconds: quick ? 3 : 10,
    warmup: quick ? 1 : 2,
    users: 10_000,
    channels: 1000,
    messages: quick ? 100_000 : 1_000_000,
    queues: quick ? 2000 : 10_000,
    eventSizes: quick ? [1000] : [1000, 10_000],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--quick') continue;
    else if (a === '--rounds') o.rounds = Number(value());
    else if (a === '--seconds') o.seconds = Number(value());
    else if (a === '--warmup') o.warmup = Number(value());
    else if (a === '--loadgen') o.loadgen = value();
    else if (a === '--users') o.users = Number(value());
    else if (a === '--channels') o.channels = Number(value());
    else if (a === '--messages') o.messages = Number(value());
    else if (a === '--queues') o.queues = Number(value());
    else if (a === '--events-sizes') o.eventSizes = value().split(',').map(Number);
    else if (a === '--json') o.json = value();
    else if ((ALL as readonly string[]).includes(a)) o.workloads.push(a as WorkloadName);
    else throw new Error(`unknown argument ${a} (workloads: ${ALL.join(', ')})`);
  }
  if (o.workloads.length === 0) o.workloads = [...ALL];
  if (o.workloads.includes('fetch1m')) o.messages = Math.max(o.messages, FETCH_1M_MESSAGES);
  o.eventSizes = o.eventSizes.map((n) => Math.min(n, o.users));
  o.queues = Math.min(o.queues, o.users);
  return o;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

interface Sample {
  rps: number;
  p50ms: number;
  p99ms: number;
  requests: number;
  errors: number;
  nodeCpuUs: number;
  pgCpuUs: number;
  statements: number;
}

async function measure(
  env: Environment,
  gen: LoadGenerator,
  server: RunningServer,
  spec: Omit<LoadSpec, 'connections' | 'seconds'>,
  connections: number,
  opts: Options,
): Promise<Sample> {
  const idle = await quiesce(env, server.child.pid);
  if (idle > 3) log(`  (waited ${idle.toFixed(0)} s for ${server.name} and PostgreSQL to go idle)`);
  if (opts.warmup > 0) await runLoad(gen, { ...spec, connections, seconds: opts.warmup });
  await quiesce(env, server.child.pid);
  const before = await snapshot(env, server.child.pid);
  const r = await runLoad(gen, { ...spec, connections, seconds: opts.seconds });
  // The requests in flight when the load generator stopped (one per connection) still run to
  // completion on the server: let them finish and count them in the CPU and statement figures.
  await quiesce(env, server.child.pid, 5);
  const after = await snapshot(env, server.child.pid);
  // With no completed request the per-request figures are unknown.
  const n = r.requests > 0 ? r.requests + connections : NaN;
  return {
    rps: r.rps,
    p50ms: r.p50ms,
    p99ms: r.p99ms,
    requests: r.requests,
    errors: r.errors,
    nodeCpuUs: ((after.nodeCpu - before.nodeCpu) * 1e6) / n,
    pgCpuUs: ((after.pgCpu - before.pgCpu) * 1e6) / n,
    // The snapshot's own statement is not in the bench database; nothing to subtract.
    statements: (after.statements - before.statements) / n,
  };
}

const setupAgent = new http.Agent({ keepAlive: true });

/** Statements of one request on an idle server (median of three). */
async function statementsOfOneRequest(
  env: Environment,
  server: RunningServer,
  spec: Omit<LoadSpec, 'connections' | 'seconds'>,
): Promise<number> {
  const counts: number[] = [];
  const u = new URL(spec.url);
  const form = spec.body !== undefined ? Object.fromEntries(new URLSearchParams(spec.body)) : undefined;
  for (let i = 0; i < 3; i++) {
    await quiesce(env, server.child.pid, 30);
    const before = await snapshot(env, server.child.pid);
    await request(
      setupAgent,
      u.port ? Number(u.port) : 80,
      spec.method,
      u.pathname + u.search,
      spec.headers?.authorization ?? null,
      form,
    );
    await quiesce(env, server.child.pid, 5);
    counts.push((await snapshot(env, server.child.pid)).statements - before.statements);
  }
  return median(counts);
}

interface Summary {
  rps: number;
  p50ms: number;
  p99ms: number;
  errors: number;
  nodeCpuUs: number;
  pgCpuUs: number;
  statements: number;
  rowsPerSec?: number;
  samples: Sample[];
}

function summarise(samples: Sample[], rowsPerRequest?: number): Summary {
  const m = (k: keyof Sample) => median(samples.map((s) => s[k]));
  const rps = m('rps');
  return {
    rps,
    p50ms: m('p50ms'),
    p99ms: m('p99ms'),
    errors: samples.reduce((a, s) => a + s.errors, 0),
    nodeCpuUs: m('nodeCpuUs'),
    pgCpuUs: m('pgCpuUs'),
    statements: m('statements'),
    ...(rowsPerRequest ? { rowsPerSec: rps * rowsPerRequest } : {}),
    samples,
  };
}

// ---- events ----------------------------------------------------------------------------------

interface EventsClient {
  call(msg: Record<string, unknown>): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

function startEventsClient(): EventsClient {
  const child: Child = startChild('events client', process.execPath, [join(__dirname, 'events-client.js')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const proc: ChildProcess = child.proc;
  let next = 0;
  const pending = new Map<number, (r: Record<string, unknown>) => void>();
  proc.on('message', (m: { id: number } & Record<string, unknown>) => {
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
  return {
    call(msg) {
      return new Promise((resolve, reject) => {
        const id = ++next;
        // Nothing the client does should take half an hour: fail rather than hang.
        const timer = setTimeout(() => reject(new Error(`events client: ${String(msg.cmd)} timed out`)), 1_800_000);
        pending.set(id, (r) => {
          clearTimeout(timer);
          if (r.ok) resolve(r);
          else reject(new Error(String(r.error)));
        });
        proc.send({ id, ...msg });
      });
    },
    stop: () => child.stop(),
  };
}

function eventUsers(env: Environment, n: number) {
  // The channel of N: hamlet + bench0…bench{N-2}; every subscriber parks a poll.
  const users = [{ email: env.data.hamlet.email, key: env.data.hamlet.key }];
  for (let i = 0; i < n - 1; i++) users.push({ email: benchEmail(i), key: benchKey(i) });
  return users;
}

/** Latencies of one target's deliveries over the measured rounds. */
interface Deliveries {
  deliveries: number;
  expected: number;
  p50ms: number;
  p99ms: number;
  maxMs: number;
  sendMs: number;
  /** The server's CPU over each send and its deliveries, per delivery. */
  nodeCpuUsPerDelivery: number;
  /** The events client's CPU per delivery (it shares the machine with the server). */
  clientCpuUsPerDelivery: number;
  errors: number;
  /** The server's longest event-loop delay over the sends and their deliveries (1 ms resolution). */
  eventLoopMaxMs: number;
  /** The median over the rounds of the event-loop delay's p99. */
  eventLoopP99Ms: number;
}

interface EventsResult extends Deliveries {
  n: number;
  redis: boolean;
  registerSeconds: number;
  /** The same N polls answered by the ceiling server (bench/ceiling-server.ts) in the same rounds. */
  ceiling: Deliveries;
  /** The ceiling's p99 ÷ ours (1 = as fast as the raw server). */
  ratio: number;
}

interface RoundOut {
  latencies: number[];
  sendMs: number;
  clientCpuUs: number;
  errors: number;
  failureKinds?: Record<string, number>;
  retries?: number;
  expected: number;
  timedOut: boolean;
}

/** Collects one target's rounds. */
class DeliveryStats {
  private latencies: number[] = [];
  private sendMs: number[] = [];
  private cpu = 0;
  private clientCpuUs = 0;
  private errors = 0;
  private expected = 0;
  private loopMax = 0;
  private loopP99: number[] = [];

  add(out: RoundOut, cpuSeconds: number, loop: { maxMs: number; p99Ms: number }, label: string): void {
    this.loopMax = Math.max(this.loopMax, loop.maxMs);
    this.loopP99.push(loop.p99Ms);
    this.latencies.push(...out.latencies);
    this.expected += out.expected;
    this.errors += out.errors + (out.timedOut ? 1 : 0);
    if (out.errors > 0 || out.timedOut)
      log(
        `  ${label}: ${out.errors} failed polls ${JSON.stringify(out.failureKinds ?? {})}` +
          `${out.timedOut ? ', timed out' : ''}`,
      );
    if (out.retries) log(`  ${label}: ${out.retries} polls retried (reset reused keep-alive connection)`);
    this.sendMs.push(out.sendMs);
    this.cpu += cpuSeconds;
    this.clientCpuUs += out.clientCpuUs;
  }

  result(): Deliveries {
    const latencies = [...this.latencies].sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
    return {
      deliveries: latencies.length,
      expected: this.expected,
      p50ms: pct(50),
      p99ms: pct(99),
      maxMs: latencies[latencies.length - 1] ?? NaN,
      sendMs: median(this.sendMs),
      nodeCpuUsPerDelivery: (this.cpu * 1e6) / Math.max(1, latencies.length),
      clientCpuUsPerDelivery: this.clientCpuUs / Math.max(1, latencies.length),
      errors: this.errors,
      eventLoopMaxMs: this.loopMax,
      eventLoopP99Ms: median(this.loopP99),
    };
  }
}

async function eventsWorkload(
  env: Environment,
  n: number,
  redisUrl: string | undefined,
  rounds: number,
): Promise<EventsResult> {
  const channel = n <= 1000 ? env.data.channels.c1000 : env.data.channels.c10000;
  if (channel.subscribers !== n)
    log(`  note: channel ${channel.name} has ${channel.subscribers} subscribers, parking ${n}`);
  const product = await startBenchProduct(env, { redisUrl });
  // The ceiling: the same send statement, then the same N polls answered by raw node:http.
  const ceiling = await startCeiling(env.dbUrl, env.logDir, 10);
  const client = startEventsClient();
  try {
    const users = eventUsers(env, n);
    const reg = await client.call({ cmd: 'register', port: product.port, users, concurrency: 8 });
    await client.call({ cmd: 'ceiling', port: ceiling.port, n });
    const ours = new DeliveryStats();
    const raw = new DeliveryStats();
    for (let r = 0; r < rounds + 1; r++) {
      // The order alternates, as for the HTTP workloads; round 0 warms up both.
      const order: Array<'product' | 'ceiling'> = r % 2 === 0 ? ['product', 'ceiling'] : ['ceiling', 'product'];
      for (const target of order) {
        const server = target === 'product' ? product : ceiling;
        const park = await client.call({ cmd: 'park', target });
        if (park.serverParked !== undefined && park.serverParked !== n)
          log(`  round ${r} (${target}): ${Number(park.serverParked)} of ${n} polls parked`);
        await new Promise((res) => setTimeout(res, 1000 + n / 5));
        await server.probe('eld-reset');
        const cpu0 = cpuSeconds(server.child.pid);
        const out = (await client.call(
          target === 'product'
            ? {
                cmd: 'send',
                sender: { email: env.data.hamlet.email, key: env.data.hamlet.key },
                channel: channel.name,
                topic: `events ${r}`,
              }
            : { cmd: 'send', target, channelId: channel.id, senderId: env.data.hamlet.id, topic: `events ${r}` },
        )) as unknown as RoundOut;
        const cpu1 = cpuSeconds(server.child.pid);
        if (r === 0) continue; // the first round warms up code paths and caches
        const loop = (await server.probe('eld')) as { maxMs: number; p99Ms: number };
        if (target === 'ceiling') raw.add(out, cpu1 - cpu0, loop, `round ${r} (ceiling)`);
        else ours.add(out, cpu1 - cpu0, loop, `round ${r}`);
      }
    }
    const mine = ours.result();
    const theirs = raw.result();
    return {
      n,
      redis: redisUrl !== undefined,
      registerSeconds: reg.seconds as number,
      ...mine,
      ceiling: theirs,
      ratio: theirs.p99ms / mine.p99ms,
    };
  } finally {
    await client.call({ cmd: 'exit' }).catch(() => undefined);
    await client.stop();
    await ceiling.stop();
    await product.stop();
  }
}

interface QueuesResult {
  queues: number;
  redis: boolean;
  rssDeltaBytesPerQueue: number;
  heapDeltaBytesPerQueue: number;
  redisBytesPerQueue?: number;
  registerSeconds: number;
}

async function queuesWorkload(
  env: Environment,
  count: number,
  redis?: { url: string; usedMemory(): Promise<number> },
): Promise<QueuesResult> {
  const product = await startBenchProduct(env, { redisUrl: redis?.url });
  const client = startEventsClient();
  try {
    const users: Array<{ email: string; key: string }> = [];
    for (let i = 0; i < count; i++) users.push({ email: benchEmail(i), key: benchKey(i) });
    // Authenticate everyone first, so the auth cache is not counted as queue memory.
    await client.call({ cmd: 'prime', port: product.port, users, concurrency: 8 });
    await new Promise((r) => setTimeout(r, 1000));
    const m0 = await product.probe('gc');
    const r0 = redis ? await redis.usedMemory() : 0;
    const reg = await client.call({ cmd: 'register', port: product.port, users, concurrency: 8 });
    await new Promise((r) => setTimeout(r, 1000));
    const m1 = await product.probe('gc');
    const r1 = redis ? await redis.usedMemory() : 0;
    const registered = reg.registered as number;
    return {
      queues: registered,
      redis: redis !== undefined,
      rssDeltaBytesPerQueue: (m1.rss - m0.rss) / registered,
      heapDeltaBytesPerQueue: (m1.heapUsed - m0.heapUsed) / registered,
      ...(redis ? { redisBytesPerQueue: (r1 - r0) / registered } : {}),
      registerSeconds: reg.seconds as number,
    };
  } finally {
    await client.call({ cmd: 'exit' }).catch(() => undefined);
    await client.stop();
    await product.stop();
  }
}

// ---- report ---------------------------------------------------------------------------------

/** One line per workload target: the figure measured against it. */
function targetLines(workloads: HttpWorkload[], results: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const w of workloads) {
    if (!w.targets) continue;
    const r = results[w.name] as { product: Summary; ratio?: number };
    const checks: string[] = [];
    const check = (what: string, value: number | undefined, limit: number, atLeast: boolean, digits: number) => {
      const ok = value !== undefined && !Number.isNaN(value) && (atLeast ? value >= limit : value <= limit);
      checks.push(
        `${what} ${fmt(value, digits)} (target ${atLeast ? '≥' : '≤'} ${fmt(limit, digits)}) ${ok ? 'met' : 'MISSED'}`,
      );
    };
    if (w.targets.ratio !== undefined) check('ratio', r.ratio, w.targets.ratio, true, 2);
    if (w.targets.p99ms !== undefined) check('p99 ms', r.product.p99ms, w.targets.p99ms, false, 1);
    if (w.targets.pgCpuUs !== undefined) check('PG CPU µs/req', r.product.pgCpuUs, w.targets.pgCpuUs, false, 0);
    out.push(`Targets, ${w.name}: ${checks.join('; ')}.`);
  }
  return out;
}

const fmt = (x: number | undefined, digits = 0) =>
  x === undefined || Number.isNaN(x)
    ? '–'
    : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  const gen = pickLoadGenerator(opts.loadgen);
  const load0 = machineLoad();
  log(
    `workloads: ${opts.workloads.join(', ')}; ${opts.rounds} round(s) of ${opts.seconds} s (+${opts.warmup} s warm-up); load generator ${gen}`,
  );
  log(`machine: ${load0.cpus} CPUs, load average ${load0.load1}`);
  const needsBigRealm = opts.workloads.some((w) => w !== 'hello');
  const env = await setupEnvironment({
    users: opts.users,
    channels: opts.channels,
    messages: needsBigRealm ? opts.messages : 0,
  });
  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    options: opts,
    loadGenerator: gen,
    machine: load0,
    data: env.data,
  };
  const lines: string[] = [];

  const httpNames = opts.workloads.filter((w) => (HTTP_WORKLOADS as readonly string[]).includes(w));
  if (httpNames.length > 0) {
    const product = await startBenchProduct(env);
    const ceiling = await startCeiling(env.dbUrl, env.logDir, 10);
    const workloads = httpWorkloads(env, product.port, ceiling.port).filter((w) => httpNames.includes(w.name));
    const samples = new Map<string, { product: Sample[]; ceiling: Sample[] }>();
    for (const w of workloads) samples.set(w.name, { product: [], ceiling: [] });
    for (let round = 0; round < opts.rounds; round++) {
      for (const w of workloads) {
        const order: Array<'product' | 'ceiling'> = round % 2 === 0 ? ['product', 'ceiling'] : ['ceiling', 'product'];
        for (const which of order) {
          const spec = which === 'product' ? w.product : w.ceiling;
          if (!spec) continue;
          const server = which === 'product' ? product : ceiling;
          const s = await measure(env, gen, server, spec, w.connections, opts);
          samples.get(w.name)![which].push(s);
          log(
            `round ${round + 1} ${w.name.padEnd(9)} ${which.padEnd(8)} ${fmt(s.rps).padStart(7)} req/s  p50 ${fmt(s.p50ms, 1)} ms  p99 ${fmt(s.p99ms, 1)} ms  node ${fmt(s.nodeCpuUs)} µs  pg ${fmt(s.pgCpuUs)} µs  stmts ${fmt(s.statements, 1)}  errors ${s.errors}`,
          );
        }
      }
    }
    // Exact statement counts: single requests on idle servers (load windows blur the edges).
    const exact = new Map<string, { product: number; ceiling?: number }>();
    for (const w of workloads) {
      const product1 = await statementsOfOneRequest(env, product, w.product);
      const ceiling1 = w.ceiling ? await statementsOfOneRequest(env, ceiling, w.ceiling) : undefined;
      exact.set(w.name, { product: product1, ceiling: ceiling1 });
      log(`${w.name}: ${product1} statements per request${ceiling1 === undefined ? '' : ` (ceiling ${ceiling1})`}`);
    }
    await ceiling.stop();
    await product.stop();
    const results: Record<string, unknown> = {};
    lines.push(
      '| Workload | Conns | Server | req/s | p50 ms | p99 ms | Node CPU µs/req | PG CPU µs/req | Statements/req (load; one idle request) | Ratio to ceiling | Errors |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const w of workloads) {
      const s = samples.get(w.name)!;
      const prod = summarise(s.product, w.rowsPerRequest);
      const ceil = s.ceiling.length ? summarise(s.ceiling, w.rowsPerRequest) : undefined;
      const ratio = ceil ? prod.rps / ceil.rps : undefined;
      const one = exact.get(w.name)!;
      results[w.name] = {
        title: w.title,
        connections: w.connections,
        product: { ...prod, statementsOneRequest: one.product },
        ceiling: ceil && { ...ceil, statementsOneRequest: one.ceiling },
        ratio,
      };
      const rate = (x: Summary) => `${fmt(x.rps)}${x.rowsPerSec ? ` (${fmt(x.rowsPerSec / 1000)}k rows/s)` : ''}`;
      lines.push(
        `| ${w.title} | ${w.connections} | ours | ${rate(prod)} | ${fmt(prod.p50ms, 1)} | ${fmt(prod.p99ms, 1)} | ${fmt(prod.nodeCpuUs)} | ${fmt(prod.pgCpuUs)} | ${fmt(prod.statements, 1)}; ${fmt(one.product)} | ${ratio === undefined ? '–' : fmt(ratio, 2)} | ${prod.errors} |`,
      );
      if (ceil) {
        lines.push(
          `| | | ceiling | ${rate(ceil)} | ${fmt(ceil.p50ms, 1)} | ${fmt(ceil.p99ms, 1)} | ${fmt(ceil.nodeCpuUs)} | ${fmt(ceil.pgCpuUs)} | ${fmt(ceil.statements, 1)}; ${fmt(one.ceiling)} | 1 | ${ceil.errors} |`,
        );
      }
    }
    report.http = results;
    lines.push('', ...targetLines(workloads, results));
  }

  const eventsResults: EventsResult[] = [];
  const queueResults: QueuesResult[] = [];
  const needsRedis = opts.workloads.includes('events-redis') || opts.workloads.includes('queues');
  const redis = needsRedis ? await startRedis() : undefined;
  for (const variant of ['events', 'events-redis'] as const) {
    if (!opts.workloads.includes(variant)) continue;
    for (const n of opts.eventSizes) {
      log(`${variant}: one message to ${n} parked long-polls (${opts.rounds} round(s) after a warm-up)`);
      const r = await eventsWorkload(env, n, variant === 'events-redis' ? redis!.url : undefined, opts.rounds);
      eventsResults.push(r);
      log(
        `  delivered ${r.deliveries}/${r.expected}: p50 ${fmt(r.p50ms, 1)} ms, p99 ${fmt(r.p99ms, 1)} ms, max ${fmt(r.maxMs, 1)} ms; event loop max ${fmt(r.eventLoopMaxMs, 1)} ms; ${fmt(r.nodeCpuUsPerDelivery)} µs Node CPU per delivery (client ${fmt(r.clientCpuUsPerDelivery)} µs)`,
      );
      const c = r.ceiling;
      log(
        `  ceiling ${c.deliveries}/${c.expected}: p50 ${fmt(c.p50ms, 1)} ms, p99 ${fmt(c.p99ms, 1)} ms, max ${fmt(c.maxMs, 1)} ms; event loop max ${fmt(c.eventLoopMaxMs, 1)} ms; ${fmt(c.nodeCpuUsPerDelivery)} µs Node CPU per delivery (client ${fmt(c.clientCpuUsPerDelivery)} µs); ratio ${fmt(r.ratio, 2)}`,
      );
    }
  }
  if (opts.workloads.includes('queues')) {
    for (const withRedis of [false, true]) {
      log(`queues: memory of ${opts.queues} idle event queues${withRedis ? ' (REDIS_URL)' : ''}`);
      const r = await queuesWorkload(env, opts.queues, withRedis ? redis : undefined);
      queueResults.push(r);
      log(
        `  ${fmt(r.rssDeltaBytesPerQueue)} B RSS, ${fmt(r.heapDeltaBytesPerQueue)} B heap per queue${r.redisBytesPerQueue !== undefined ? `, ${fmt(r.redisBytesPerQueue)} B in Redis` : ''}`,
      );
    }
  }
  if (redis) await redis.child.stop();
  if (eventsResults.length) {
    report.events = eventsResults;
    lines.push(
      '',
      '| Events: one message to N parked GET /events | Redis | Server | Delivered | p50 ms | p99 ms | max ms | Send ms | Event-loop delay max ms | Node CPU µs/delivery | Ratio to ceiling (p99) |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...eventsResults.flatMap((r) => [
        `| N = ${fmt(r.n)} | ${r.redis ? 'yes' : 'no'} | ours | ${r.deliveries}/${r.expected} | ${fmt(r.p50ms, 1)} | ${fmt(r.p99ms, 1)} | ${fmt(r.maxMs, 1)} | ${fmt(r.sendMs, 1)} | ${fmt(r.eventLoopMaxMs, 1)} | ${fmt(r.nodeCpuUsPerDelivery)} | ${fmt(r.ratio, 2)} |`,
        `| | | ceiling | ${r.ceiling.deliveries}/${r.ceiling.expected} | ${fmt(r.ceiling.p50ms, 1)} | ${fmt(r.ceiling.p99ms, 1)} | ${fmt(r.ceiling.maxMs, 1)} | ${fmt(r.ceiling.sendMs, 1)} | ${fmt(r.ceiling.eventLoopMaxMs, 1)} | ${fmt(r.ceiling.nodeCpuUsPerDelivery)} | 1 |`,
      ]),
    );
  }
  if (queueResults.length) {
    report.queues = queueResults;
    lines.push(
      '',
      '| Idle event queues | Redis | RSS B/queue | JS heap B/queue | Redis B/queue |',
      '|---|---|---|---|---|',
      ...queueResults.map(
        (r) =>
          `| ${fmt(r.queues)} | ${r.redis ? 'yes' : 'no'} | ${fmt(r.rssDeltaBytesPerQueue)} | ${fmt(r.heapDeltaBytesPerQueue)} | ${fmt(r.redisBytesPerQueue)} |`,
      ),
    );
  }
  const load1 = machineLoad();
  lines.push(
    '',
    `Load average before/after: ${load0.load1} / ${load1.load1} on ${load1.cpus} CPUs; load generator: ${gen}.`,
  );
  report.machineAfter = load1;
  await env.stats.end();
  setupAgent.destroy();
  console.log(`\n${lines.join('\n')}\n`);
  const out =
    opts.json ??
    join(process.cwd(), 'bench', 'results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, JSON.stringify({ ...report, table: lines }, null, 2));
  log(`report: ${out}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
