/**
 * Security review findings (issue 11 item 6): per-user and per-realm limits on what one account
 * can make the server hold — event queues, push device tokens, upload bytes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PushDevicesRepository } from '../../../src/push/push-devices.repository';
import { call, expectError, HAMLET, IAGO, OTHELLO, userId } from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TEST_SECRET, TestApp } from '../../helpers/test-app';

const root = join(__dirname, '..', '..', '..');
import { openQueue } from '../messaging/helpers';

const MiB = 1024 * 1024;

/** With EVENT_QUEUES_PER_USER = 2: a third queue removes the first. */
async function expectQueueCap(t: TestApp): Promise<void> {
  const first = await openQueue(t, HAMLET, ['message']);
  await new Promise((r) => setTimeout(r, 5));
  const second = await openQueue(t, HAMLET, ['message']);
  const othello = await openQueue(t, OTHELLO, ['message']);
  await new Promise((r) => setTimeout(r, 5));
  const third = await openQueue(t, HAMLET, ['message']);
  const poll = (q: { email: string; queueId: string }) =>
    call(t, 'get', '/events', q.email, { queue_id: q.queueId, last_event_id: -1, dont_block: true });
  const gone = await poll(first);
  expectError(gone, 400, `Bad event queue ID: ${first.queueId}`, 'BAD_EVENT_QUEUE_ID');
  expect(gone.body.queue_id).toBe(first.queueId);
  expectMatchesOpenApi('get', '/events', gone.status, gone.body);
  for (const q of [second, third, othello]) expect((await poll(q)).status).toBe(200);
}

describe('resource limits', () => {
  let t: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zulip-limits-'));
    t = await startTestApp({
      DATA_DIR: dataDir,
      UPLOADS_DIR: join(dataDir, 'files'),
      EVENT_QUEUES_PER_USER: '2',
      PUSH_DEVICES_PER_USER: '3',
      UPLOAD_QUOTA_MIB: '1',
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('event queues per user', () => {
    it("a new queue past the cap removes the user's oldest; its next poll gets BAD_EVENT_QUEUE_ID", () =>
      expectQueueCap(t));
  });

  describe('push device tokens per user', () => {
    const hex = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

    it('keeps the most recently registered tokens, removing the oldest past the cap', async () => {
      const hamlet = await userId(t, HAMLET);
      for (let i = 1; i <= 3; i++) {
        const res = await call(t, 'post', '/users/me/apns_device_token', HAMLET, {
          token: hex(i),
          appid: 'org.zulip.Zulip',
        });
        expect(res.status).toBe(200);
      }
      // Re-registering the oldest makes it the newest.
      expect((await call(t, 'post', '/users/me/apns_device_token', HAMLET, { token: hex(1), appid: 'x' })).status).toBe(
        200,
      );
      expect((await call(t, 'post', '/users/me/android_gcm_reg_id', HAMLET, { token: 'fcm-token-4' })).status).toBe(
        200,
      );
      const tokens = (await t.app.get(PushDevicesRepository).devicesOf([hamlet])).map((d) => d.token).sort();
      expect(tokens).toEqual([hex(1), hex(3), 'fcm-token-4'].sort());
      // Another user's tokens are not touched.
      expect((await call(t, 'post', '/users/me/android_gcm_reg_id', IAGO, { token: 'iago' })).status).toBe(200);
      expect(await t.app.get(PushDevicesRepository).devicesOf([hamlet])).toHaveLength(3);
    });
  });

  describe('realm upload quota', () => {
    const upload = async (email: string, bytes: number) =>
      t
        .http()
        .post('/api/v1/user_uploads')
        .auth(...(await t.auth(email)))
        .attach('file', Buffer.alloc(bytes, 'a'), { filename: 'big.txt', contentType: 'text/plain' });

    it('refuses an upload that would take the realm past its quota, with Zulip’s error', async () => {
      const register = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['realm'] });
      expect(register.body.realm_upload_quota_mib).toBe(1);

      const first = await upload(HAMLET, 0.6 * MiB);
      expect(first.status).toBe(200);
      // The quota is the realm's: another user's upload counts against it too.
      const refused = await upload(IAGO, 0.6 * MiB);
      expectError(refused, 400, "Upload would exceed your organization's upload quota.", 'REALM_UPLOAD_QUOTA');
      expectMatchesOpenApi('post', '/user_uploads', refused.status, refused.body);
      expect((await call(t, 'get', '/attachments', IAGO)).body.attachments).toEqual([]);
      expect((await upload(IAGO, 0.3 * MiB)).status).toBe(200);

      // Deleting a file frees its bytes.
      const mine = (await call(t, 'get', '/attachments', HAMLET)).body.attachments as Array<{ id: number }>;
      expect((await call(t, 'delete', `/attachments/${mine[0].id}`, HAMLET)).status).toBe(200);
      expect((await upload(IAGO, 0.6 * MiB)).status).toBe(200);
    });

    /**
     * Sends the head of a multipart upload announcing `announced` bytes (or chunked, when
     * undefined) and then `send` bytes of it, resolving with the answer as soon as it comes.
     */
    const partialUpload = async (announced: number | undefined, send: number) => {
      const server = t.app.getHttpServer() as Server;
      if (!server.listening) await t.app.listen(0, '127.0.0.1');
      const { port } = server.address() as AddressInfo;
      const [user, key] = await t.auth(OTHELLO);
      const head = Buffer.from(
        '--xyz\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n' +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      return new Promise<{ status: number; body: Record<string, unknown>; sent: number }>((resolve, reject) => {
        let sent = 0;
        const req = http.request({
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/api/v1/user_uploads',
          headers: {
            Authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`,
            'Content-Type': 'multipart/form-data; boundary=xyz',
            ...(announced === undefined ? {} : { 'Content-Length': String(announced) }),
          },
        });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown>, sent });
          });
        });
        req.on('error', reject);
        req.write(head);
        sent += head.length;
        const piece = Buffer.alloc(64 * 1024, 'b');
        const pump = () => {
          while (sent < send) {
            sent += piece.length;
            if (!req.write(piece)) return void req.once('drain', pump);
          }
          // Chunked: finish the body, so that it is read whole and checked once received.
          if (announced === undefined) req.end('\r\n--xyz--\r\n');
        };
        pump();
      });
    };

    it('refuses an upload announced past the quota by Content-Length before reading its body', async () => {
      const files = async () => (await call(t, 'get', '/attachments', OTHELLO)).body.attachments as unknown[];
      // 3 MiB announced against a 1 MiB quota; only the part head and 64 KiB are ever sent.
      const answer = await partialUpload(3 * MiB, 64 * 1024);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        result: 'error',
        msg: "Upload would exceed your organization's upload quota.",
        code: 'REALM_UPLOAD_QUOTA',
      });
      expectMatchesOpenApi('post', '/user_uploads', answer.status, answer.body);
      expect(answer.sent).toBeLessThan(MiB);
      expect(await files()).toEqual([]);
    });

    it('checks a chunked upload (no Content-Length) once received', async () => {
      const answer = await partialUpload(undefined, 1.5 * MiB);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'REALM_UPLOAD_QUOTA' });
      expect((await call(t, 'get', '/attachments', OTHELLO)).body.attachments).toEqual([]);
    });
  });
});

describe('realm upload quota: unlimited by default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('/register says null (no quota)', async () => {
    const register = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['realm'] });
    expect(register.body.realm_upload_quota_mib).toBeNull();
  });

  it("a realm's own quota (the admin CLI's set-upload-quota) applies to it, and 'default' returns to the server's", async () => {
    const cli = async (...args: string[]) =>
      (
        await promisify(execFile)(
          process.execPath,
          [join(root, 'test', 'helpers', 'ts-register.js'), join(root, 'src', 'cli.ts'), ...args].flatMap((a, i) =>
            i === 0 ? ['-r', a] : [a],
          ),
          {
            cwd: root,
            env: {
              PATH: process.env.PATH,
              DATABASE_URL: (t.dataSource.options as { url: string }).url,
              SECRET_KEY: TEST_SECRET,
              SERVER_MODE: 'development',
              LOG_LEVEL: 'error',
            },
          },
        )
      ).stdout.trim();
    const quota = async () =>
      (await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['realm'] })).body.realm_upload_quota_mib;
    /** The CLI's change reaches this server through NOTIFY a moment after it commits. */
    const until = async (expected: number | null) => {
      for (let i = 0; i < 50 && (await quota()) !== expected; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await quota()).toBe(expected);
    };
    const upload = async (bytes: number) =>
      t
        .http()
        .post('/api/v1/user_uploads')
        .auth(...(await t.auth(HAMLET)))
        .attach('file', Buffer.alloc(bytes, 'q'), { filename: 'q.txt', contentType: 'text/plain' });

    expect(await cli('set-upload-quota', '--realm', 'zulip', '--mib', '1')).toContain("Upload quota of 'zulip': 1 MiB");
    await until(1);
    expect((await upload(0.6 * MiB)).status).toBe(200);
    expectError(
      await upload(0.6 * MiB),
      400,
      "Upload would exceed your organization's upload quota.",
      'REALM_UPLOAD_QUOTA',
    );
    // Another realm keeps the server's (unlimited) quota.
    const other = await t.dataSource.query<Array<{ custom_upload_quota_mib: number | null }>>(
      `SELECT custom_upload_quota_mib FROM realm WHERE string_id <> 'zulip'`,
    );
    expect(other.every((r) => r.custom_upload_quota_mib === null)).toBe(true);

    expect(await cli('set-upload-quota', '--realm', 'zulip', '--mib', 'default')).toContain(
      'unlimited (the server default)',
    );
    await until(null);
    expect((await upload(0.6 * MiB)).status).toBe(200);
    await expect(cli('set-upload-quota', '--realm', 'zulip', '--mib', 'lots')).rejects.toThrow(/--mib must be/);
  }, 180_000);
});

const redisUrl = process.env.ZULIP_TEST_REDIS_URL;

(redisUrl ? describe : describe.skip)('event queues per user, queues in Redis', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      REDIS_URL: redisUrl ?? '',
      REDIS_PREFIX: `zulip-test-limits-${process.pid}-${Date.now()}`,
      EVENT_QUEUES_PER_USER: '2',
    });
  });
  afterAll(() => t.close());

  it("a new queue past the cap removes the user's oldest; its next poll gets BAD_EVENT_QUEUE_ID", () =>
    expectQueueCap(t));
});
