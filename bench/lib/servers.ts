/**
 * Starting the product server (dist/src/main.js, with the probe preloaded) and the ceiling
 * server as separate processes, with their output in a log file.
 */
import { openSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { startChild, type Child } from './children';
import { freePort } from './cluster';
import { request } from './http';
import type { ProbeRequest } from './server-probe';

export interface RunningServer {
  name: string;
  port: number;
  child: Child;
  logFile: string;
  /** Asks the server's probe (bench/lib/server-probe.ts): event-loop delay, memory. */
  probe(cmd: ProbeRequest['cmd']): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

const distRoot = join(__dirname, '..', '..');

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function waitFor(port: number, path: string, child: Child, logFile: string, seconds = 180): Promise<void> {
  const agent = new http.Agent({ keepAlive: false });
  let exited: number | null | undefined;
  child.proc.once('exit', (code) => (exited = code));
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`server exited (${exited}) during start-up:\n${tail(logFile)}`);
    try {
      if ((await request(agent, port, 'GET', path, null)).status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server did not answer ${path} within ${seconds} s:\n${tail(logFile)}`);
}

export interface ProductOptions {
  databaseUrl: string;
  logDir: string;
  secretKey: string;
  redisUrl?: string;
  /**
   * Directory for a V8 CPU profile written at exit (--cpu-prof). Without it, the environment's
   * BENCH_CPU_PROF_DIR turns profiling on for every product server of the run
   * (e.g. `BENCH_CPU_PROF_DIR=/tmp/prof npm run bench -- --quick events`).
   */
  cpuProfDir?: string;
  extraEnv?: NodeJS.ProcessEnv;
  /** The build whose server runs (its dist/ directory); this build's by default (bench/compare.ts). */
  distRoot?: string;
}

let serial = 0;

export async function startProduct(opts: ProductOptions): Promise<RunningServer> {
  const port = await freePort();
  const logFile = join(opts.logDir, `product-${++serial}.log`);
  const cpuProfDir = opts.cpuProfDir ?? (process.env.BENCH_CPU_PROF_DIR || undefined);
  const out = openSync(logFile, 'a');
  const args = [
    '--expose-gc',
    '-r',
    join(distRoot, 'bench', 'lib', 'server-probe.js'),
    ...(cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : []),
    // Sampling interval in µs (V8's default is 1,000): finer for short phases such as a delivery.
    ...(cpuProfDir && process.env.BENCH_CPU_PROF_INTERVAL
      ? ['--cpu-prof-interval', process.env.BENCH_CPU_PROF_INTERVAL]
      : []),
    // Further Node/V8 flags for the product alone (e.g. --trace-gc; its lines go to the server log).
    ...(process.env.BENCH_PRODUCT_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
    join(opts.distRoot ?? distRoot, 'src', 'main.js'),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...opts.extraEnv,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: opts.databaseUrl,
    SERVER_MODE: 'development',
    SECRET_KEY: opts.secretKey,
    RATE_LIMIT: 'off',
    LOG_LEVEL: 'warn',
    DATA_DIR: join(opts.logDir, 'data'),
    // No heartbeats while long-polls are parked in a measurement.
    EVENTS_HEARTBEAT_MS: '600000',
    EVENTS_HEARTBEAT_JITTER_MS: '0',
  };
  delete env.REDIS_URL;
  if (opts.redisUrl) {
    env.REDIS_URL = opts.redisUrl;
    env.REDIS_PREFIX = `bench${serial}`;
  }
  const child = startChild('product server', process.execPath, args, {
    env,
    stdio: ['ignore', out, out, 'ipc'],
  });
  const probe = probeOf(child);
  await waitFor(port, '/health', child, logFile);
  return { name: 'product', port, child, logFile, probe, stop: () => child.stop() };
}

/** Asks a server started with `-r server-probe.js` and an IPC channel (see server-probe.ts). */
function probeOf(child: Child): RunningServer['probe'] {
  const pending = new Map<number, (reply: Record<string, number>) => void>();
  let nextId = 0;
  child.proc.on('message', (msg: { id: number } & Record<string, number>) => {
    pending.get(msg.id)?.(msg);
    pending.delete(msg.id);
  });
  return (cmd) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => reject(new Error(`probe ${cmd} timed out`)), 60_000);
      pending.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      child.proc.send({ id, cmd } satisfies ProbeRequest);
    });
}

export async function startCeiling(databaseUrl: string, logDir: string, poolSize: number): Promise<RunningServer> {
  const port = await freePort();
  const logFile = join(logDir, `ceiling-${++serial}.log`);
  const out = openSync(logFile, 'a');
  // BENCH_CEILING_CPU_PROF_DIR: a CPU profile of the ceiling too (same interval as the product's).
  const profDir = process.env.BENCH_CEILING_CPU_PROF_DIR || undefined;
  const profile = profDir
    ? [
        '--cpu-prof',
        '--cpu-prof-dir',
        profDir,
        ...(process.env.BENCH_CPU_PROF_INTERVAL ? ['--cpu-prof-interval', process.env.BENCH_CPU_PROF_INTERVAL] : []),
      ]
    : [];
  // The same probe as the product's: the events workloads read its event-loop delay too.
  const child = startChild(
    'ceiling server',
    process.execPath,
    [...profile, '-r', join(distRoot, 'bench', 'lib', 'server-probe.js'), join(distRoot, 'bench', 'ceiling-server.js')],
    {
      env: { ...process.env, PORT: String(port), DATABASE_URL: databaseUrl, POOL_SIZE: String(poolSize) },
      stdio: ['ignore', out, out, 'ipc'],
    },
  );
  const probe = probeOf(child);
  await waitFor(port, '/hello', child, logFile);
  return { name: 'ceiling', port, child, logFile, probe, stop: () => child.stop() };
}
