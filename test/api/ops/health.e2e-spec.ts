/**
 * Liveness and readiness: /health answers while the process is up; /health/ready fails while
 * PostgreSQL is unreachable (the app reaches it through a proxy the test cuts; the machine's
 * PostgreSQL is never stopped) and recovers within 5 s of it coming back; it also fails once the
 * server starts shutting down, and reports Redis when REDIS_URL is set.
 */
import { ShutdownState } from '../../../src/health/shutdown-state';
import { TcpProxy } from '../../helpers/tcp-proxy';
import { startTestApp, TestApp } from '../../helpers/test-app';

describe('health and readiness', () => {
  let t: TestApp;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const target = new URL(process.env.ZULIP_TEST_ADMIN_URL!);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    t = await startTestApp(
      {},
      {
        databaseUrl: (url) => {
          const u = new URL(url);
          u.hostname = '127.0.0.1';
          u.port = String(proxy.port);
          return u.toString();
        },
      },
    );
  });
  afterAll(async () => {
    await proxy.restore().catch(() => undefined);
    await t.close();
    await proxy.stop();
  });

  it('is ready with the database up', async () => {
    const res = await t.http().get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        status: 'ok',
        info: expect.objectContaining({ database: expect.objectContaining({ status: 'up' }) }),
      }),
    );
  });

  it('fails readiness while PostgreSQL is unreachable, stays live, and recovers within 5 s', async () => {
    await proxy.cut();
    const down = await t.http().get('/health/ready');
    expect(down.status).toBe(503);
    expect(down.body).toEqual(
      expect.objectContaining({
        status: 'error',
        error: expect.objectContaining({ database: expect.objectContaining({ status: 'down' }) }),
      }),
    );
    expect((await t.http().get('/health')).status).toBe(200);

    await proxy.restore();
    const back = Date.now();
    let status = 0;
    while (Date.now() - back < 5000) {
      status = (await t.http().get('/health/ready')).status;
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect(Date.now() - back).toBeLessThan(5000);
    // And the API works again.
    expect((await t.http().get('/api/v1/server_settings')).status).toBe(200);
  });

  it('fails readiness (but not liveness) once shutdown has begun', async () => {
    const state = t.app.get(ShutdownState);
    state.draining = true;
    try {
      const res = await t.http().get('/health/ready');
      expect(res.status).toBe(503);
      expect(res.body.error).toEqual({ server: { status: 'down', message: 'shutting down' } });
      expect(res.headers.connection).toBe('close');
      expect((await t.http().get('/health')).status).toBe(200);
    } finally {
      state.draining = false;
    }
  });
});

(process.env.ZULIP_TEST_REDIS_URL ? describe : describe.skip)('readiness with Redis', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      REDIS_URL: process.env.ZULIP_TEST_REDIS_URL!,
      REDIS_PREFIX: `zulip-test-health-${process.pid}`,
    });
  });
  afterAll(() => t.close());

  it('checks Redis too', async () => {
    let res = await t.http().get('/health/ready');
    for (let i = 0; i < 20 && res.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await t.http().get('/health/ready');
    }
    expect(res.status).toBe(200);
    expect(res.body.info).toEqual(
      expect.objectContaining({ database: expect.anything(), redis: expect.objectContaining({ status: 'up' }) }),
    );
  });
});
