/**
 * Two real server processes on one PostgreSQL database and one Redis: a queue registered on one
 * instance receives the event for a message sent through the other, and either instance can
 * serve GET /events for it. The server is compiled into a temporary directory first (under .data/),
 * so the test always runs the current code.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { cloneTemplateDatabase, TEST_SECRET } from '../../helpers/test-db';

const redisUrl = process.env.ZULIP_TEST_REDIS_URL;
const root = join(__dirname, '..', '..', '..');

/**
 * The port a spawned server listens on, read from its own start-up line: it is started with
 * PORT=0, so the port is the one the kernel gave that process (a port chosen beforehand could be
 * taken by another test's server in between, and the health check would then reach that one).
 */
function listeningPort(proc: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      const m = /listening on http:\/\/[^\s:]+:(\d+)/.exec(seen);
      if (m) {
        proc.stdout?.off('data', onData);
        // Keep reading (and dropping) its output: a full pipe would block the server.
        proc.stdout?.resume();
        resolve(Number(m[1]));
      }
    };
    proc.stdout?.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
}

(redisUrl ? describe : describe.skip)('several server processes sharing PostgreSQL and Redis', () => {
  jest.setTimeout(180_000);
  let outDir: string;
  let db: { url: string; drop: () => Promise<void> };
  const servers: Array<{ proc: ChildProcess; base: string }> = [];

  async function startServer(): Promise<{ proc: ChildProcess; base: string }> {
    const proc = spawn(process.execPath, [join(outDir, 'src', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        DATABASE_URL: db.url,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: `zulip-test-procs-${process.pid}`,
        SECRET_KEY: TEST_SECRET,
        SERVER_MODE: 'development',
        SEED_DEMO_REALM: 'false',
        RATE_LIMIT: 'off',
        // Info, for the start-up line that names the port (access lines are dropped unread).
        LOG_LEVEL: 'info',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'zulip-proc-')),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const base = `http://127.0.0.1:${await listeningPort(proc)}`;
    for (let i = 0; i < 300; i++) {
      try {
        if ((await request(base).get('/health')).status === 200) return { proc, base };
      } catch {
        /* not listening yet */
      }
      if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('server did not start');
  }

  beforeAll(async () => {
    // Inside the repository (under the ignored .data/) so that the build finds node_modules.
    mkdirSync(join(root, '.data'), { recursive: true });
    outDir = mkdtempSync(join(root, '.data', 'test-build-'));
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        join(root, 'tsconfig.build.json'),
        '--outDir',
        outDir,
        '--incremental',
        'false',
      ],
      {
        stdio: 'inherit',
      },
    );
    db = await cloneTemplateDatabase();
    servers.push(await startServer());
    servers.push(await startServer());
  });

  afterAll(async () => {
    for (const s of servers) {
      s.proc.kill('SIGTERM');
      await new Promise((r) => s.proc.once('exit', r));
    }
    await db?.drop();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  async function keyOf(base: string, email: string): Promise<string> {
    const res = await request(base).post('/api/v1/dev_fetch_api_key').type('form').send({ username: email });
    expect(res.status).toBe(200);
    return res.body.api_key as string;
  }

  it('delivers an event for a message sent through the other instance', async () => {
    const [a, b] = servers;
    const hamletKey = await keyOf(a.base, 'hamlet@zulip.com');
    const iagoKey = await keyOf(b.base, 'iago@zulip.com');
    const reg = await request(a.base)
      .post('/api/v1/register')
      .auth('hamlet@zulip.com', hamletKey)
      .type('form')
      .send({ event_types: '["message"]' });
    expect(reg.status).toBe(200);
    const queueId = reg.body.queue_id as string;

    // Long-poll on A, then send through B.
    const poll = request(a.base)
      .get('/api/v1/events')
      .auth('hamlet@zulip.com', hamletKey)
      .query({ queue_id: queueId, last_event_id: '-1' })
      .then((r) => r);
    await new Promise((r) => setTimeout(r, 200));
    const sent = await request(b.base)
      .post('/api/v1/messages')
      .auth('iago@zulip.com', iagoKey)
      .type('form')
      .send({ type: 'direct', to: '["hamlet@zulip.com"]', content: 'across instances' });
    expect(sent.status).toBe(200);
    const events = await poll;
    expect(events.status).toBe(200);
    expect(events.body.events).toEqual([
      expect.objectContaining({
        type: 'message',
        message: expect.objectContaining({ id: sent.body.id, content: 'across instances' }),
      }),
    ]);

    // The other instance serves the same queue.
    const again = await request(b.base)
      .get('/api/v1/events')
      .auth('hamlet@zulip.com', hamletKey)
      .query({ queue_id: queueId, last_event_id: String(events.body.events[0].id), dont_block: 'true' });
    expect(again.status).toBe(200);
    expect(again.body.events).toEqual([]);
  });
});
