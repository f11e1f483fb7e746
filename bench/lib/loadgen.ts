/**
 * Closed-loop HTTP load from a separate process: wrk (C, one thread; preferred because it
 * takes the least CPU from the server on a 2-core machine) when it is installed, otherwise
 * autocannon (npm, a Node process). Each connection sends its next request as soon as the
 * previous response arrived.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startChild, tempDir } from './children';

export interface LoadSpec {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
}

export type LoadGenerator = 'wrk' | 'autocannon';

export function pickLoadGenerator(requested?: string): LoadGenerator {
  if (requested === 'wrk' || requested === 'autocannon') return requested;
  if (requested) throw new Error(`unknown load generator ${requested}`);
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error ? 'autocannon' : 'wrk';
}

let scriptDir: string | null = null;

function luaString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

function collect(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = startChild('load generator', command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.proc.on('error', reject);
    child.proc.on('exit', (code) => {
      void child.stop();
      if (code === 0) resolve(out);
      else reject(new Error(`${command} exited ${code}: ${err}`));
    });
  });
}

async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  scriptDir ??= tempDir('zulip-bench-wrk-');
  const script = join(scriptDir, `load-${Date.now()}-${Math.random().toString(36).slice(2)}.lua`);
  const headers = Object.entries(spec.headers ?? {})
    .map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`)
    .join('\n');
  writeFileSync(
    script,
    `wrk.method = ${luaString(spec.method)}
${spec.body !== undefined ? `wrk.body = ${luaString(spec.body)}` : ''}
${headers}
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCHJSON {"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`,
  );
  const out = await collect('wrk', [
    '-t1',
    `-c${spec.connections}`,
    `-d${spec.seconds}s`,
    '--timeout',
    '30s',
    '-s',
    script,
    spec.url,
  ]);
  const line = out.split('\n').find((l) => l.startsWith('BENCHJSON '));
  if (!line) throw new Error(`unexpected wrk output: ${out}`);
  const r = JSON.parse(line.slice('BENCHJSON '.length)) as {
    requests: number;
    duration_us: number;
    errors: number;
    p50_us: number;
    p99_us: number;
  };
  const seconds = r.duration_us / 1e6;
  return {
    requests: r.requests,
    errors: r.errors,
    seconds,
    rps: r.requests / seconds,
    p50ms: r.p50_us / 1000,
    p99ms: r.p99_us / 1000,
  };
}

async function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const bin = require.resolve('autocannon/autocannon.js');
  const args = [bin, '-c', String(spec.connections), '-d', String(spec.seconds), '-m', spec.method, '--json'];
  for (const [k, v] of Object.entries(spec.headers ?? {})) args.push('-H', `${k}=${v}`);
  // An empty `-b ''` makes autocannon's argument parser take the URL as the body: leave it out.
  if (spec.body) args.push('-b', spec.body);
  args.push(spec.url);
  const out = await collect(process.execPath, args);
  const r = JSON.parse(out) as {
    requests: { total: number };
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    latency: { p50: number; p99: number };
  };
  return {
    requests: r.requests.total,
    errors: r.errors + r.timeouts + r.non2xx,
    seconds: r.duration,
    rps: r.requests.total / r.duration,
    p50ms: r.latency.p50,
    p99ms: r.latency.p99,
  };
}

export function runLoad(gen: LoadGenerator, spec: LoadSpec): Promise<LoadResult> {
  return gen === 'wrk' ? runWrk(spec) : runAutocannon(spec);
}
