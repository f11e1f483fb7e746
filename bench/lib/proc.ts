/** CPU time and memory of processes, read from /proc (Linux). */
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

let ticksPerSecond: number | null = null;

function clockTicks(): number {
  if (ticksPerSecond === null) {
    const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    ticksPerSecond = Number(r.stdout.trim()) || 100;
  }
  return ticksPerSecond;
}

interface StatFields {
  ppid: number;
  utime: number;
  stime: number;
  cutime: number;
  cstime: number;
}

function readStat(pid: number): StatFields | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may contain spaces: parse after its closing parenthesis.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); field N is rest[N - 3].
  return {
    ppid: Number(rest[1]),
    utime: Number(rest[11]),
    stime: Number(rest[12]),
    cutime: Number(rest[13]),
    cstime: Number(rest[14]),
  };
}

/** User and system CPU seconds of one process (all its threads), apart. */
export function cpuSplit(pid: number): { user: number; system: number } {
  const s = readStat(pid);
  return s ? { user: s.utime / clockTicks(), system: s.stime / clockTicks() } : { user: 0, system: 0 };
}

/** User + system CPU seconds of one process (all its threads). */
export function cpuSeconds(pid: number): number {
  const s = readStat(pid);
  return s ? (s.utime + s.stime) / clockTicks() : 0;
}

/**
 * CPU seconds of a PostgreSQL cluster: the postmaster, its live children (backends and
 * background workers) and the children it has already reaped (cutime/cstime), so connections
 * that closed during a measurement still count.
 */
export function clusterCpuSeconds(postmasterPid: number): number {
  const root = readStat(postmasterPid);
  if (!root) return 0;
  let ticks = root.utime + root.stime + root.cutime + root.cstime;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = readStat(Number(entry));
    if (s && s.ppid === postmasterPid) ticks += s.utime + s.stime;
  }
  return ticks / clockTicks();
}

/** Resident set size in bytes. */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The machine's 1-minute load average and CPU count, for the report. */
export function machineLoad(): { load1: number; cpus: number } {
  const load1 = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const cpus = readFileSync('/proc/cpuinfo', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('processor')).length;
  return { load1, cpus };
}
