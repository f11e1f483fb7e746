/**
 * Every process and temporary directory the benchmark creates is registered here, so that a
 * normal exit, an error, Ctrl-C or SIGTERM ends the processes (by their pid, process group
 * included) and removes the directories. Cleanup functions run in reverse order of
 * registration (servers before the database they use).
 */
import { ChildProcess, spawn, SpawnOptions, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Cleanup = { name: string; run: () => void };
const cleanups: Cleanup[] = [];
let installed = false;

function runCleanups(): void {
  while (cleanups.length > 0) {
    const c = cleanups.pop()!;
    try {
      c.run();
    } catch (err) {
      console.error(`cleanup ${c.name} failed:`, err);
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runCleanups);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping child processes`);
      runCleanups();
      process.exit(130);
    });
  }
  process.on('uncaughtException', (err) => {
    console.error(err);
    runCleanups();
    process.exit(1);
  });
}

/** Registers a synchronous cleanup; returns a function that runs it now (once). */
export function onCleanup(name: string, run: () => void): () => void {
  install();
  const entry = { name, run };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) {
      cleanups.splice(i, 1);
      run();
    }
  };
}

/** A temporary directory removed at exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(`rm ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An exited child that Node has not reaped yet (we are in a synchronous exit path) is a zombie.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Sends `signal` to the child's process group (it was started detached), falling back to the pid. */
function signalTree(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Synchronous kill for exit paths: SIGTERM, a short grace period, then SIGKILL. */
export function killNow(pid: number, graceMs = 3000): void {
  if (!alive(pid)) return;
  signalTree(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) spawnSync('sleep', ['0.05']);
  if (alive(pid)) signalTree(pid, 'SIGKILL');
}

export interface Child {
  proc: ChildProcess;
  pid: number;
  /** Stops the process (SIGTERM, then SIGKILL after `graceMs`) and waits for it to exit. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns a process in its own process group, registered for cleanup. `stop()` is the normal
 * way to end it; the exit hook kills it if the benchmark dies first.
 */
export function startChild(name: string, command: string, args: string[], options: SpawnOptions = {}): Child {
  const proc = spawn(command, args, { ...options, detached: true });
  if (proc.pid === undefined) throw new Error(`could not start ${name}`);
  const pid = proc.pid;
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) =>
    proc.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const cancel = onCleanup(`kill ${name} (${pid})`, () => {
    if (!exited) killNow(pid);
  });
  return {
    proc,
    pid,
    async stop(graceMs = 10_000) {
      if (!exited) {
        signalTree(pid, 'SIGTERM');
        const timer = setTimeout(() => signalTree(pid, 'SIGKILL'), graceMs);
        await exitedPromise;
        clearTimeout(timer);
      }
      cancel();
    },
  };
}

/** Runs a command to completion; throws with its output on a non-zero exit. */
export function run(command: string, args: string[], options: { user?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const [cmd, argv] =
    options.user && process.getuid?.() === 0
      ? ['runuser', ['-u', options.user, '--', command, ...args]]
      : [command, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', env: options.env ?? process.env });
  if (r.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout || String(r.error)}`);
  }
  return r.stdout;
}
