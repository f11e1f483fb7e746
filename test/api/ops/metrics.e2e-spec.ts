/**
 * GET /metrics: Prometheus text from prom-client, scraped after a few requests: request durations
 * by route template and status, event queues and parked long-polls, events delivered, the
 * database pool, push outcomes, job-queue depth and the default process metrics. Access: open in
 * development, behind METRICS_TOKEN when set, absent from the public port with METRICS_PORT.
 */
import request from 'supertest';
import { MetricsListener } from '../../../src/metrics/metrics-listener';
import { MetricsRegistry } from '../../../src/metrics/metrics.registry';
import { HAMLET, IAGO } from '../../helpers/api';
import { startTestApp, TestApp } from '../../helpers/test-app';

/** The value of one series, e.g. sample(text, 'zulip_event_queues'), or undefined. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(series + ' ')) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ EVENTS_HEARTBEAT_MS: '60000' });
  });
  afterAll(() => t.close());

  it('exposes request, event, database, push, job and process series after a few requests', async () => {
    const hamlet = await t.auth(HAMLET);
    for (let i = 0; i < 3; i++)
      expect(
        (
          await t
            .http()
            .get('/api/v1/users/me')
            .auth(...hamlet)
        ).status,
      ).toBe(200);
    expect((await t.http().get('/api/v1/users/me').auth(HAMLET, 'y'.repeat(32))).status).toBe(401);
    expect((await t.http().get('/api/v1/nothing/here')).status).toBe(404);

    const reg = await t
      .http()
      .post('/api/v1/register')
      .auth(...hamlet)
      .type('form')
      .send({ event_types: '["message"]' });
    expect(reg.status).toBe(200);
    // A long-poll parks; a message from iago wakes it.
    const poll = t
      .http()
      .get('/api/v1/events')
      .auth(...hamlet)
      .query({ queue_id: reg.body.queue_id, last_event_id: String(reg.body.last_event_id) })
      .then((r) => r);
    await new Promise((r) => setTimeout(r, 300));
    const parked = await t.http().get('/metrics');
    expect(parked.status).toBe(200);
    expect(parked.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(parked.text, 'zulip_event_long_polls_parked')).toBe(1);
    expect(sample(parked.text, 'zulip_event_queues')).toBeGreaterThanOrEqual(1);

    const sent = await t
      .http()
      .post('/api/v1/messages')
      .auth(...(await t.auth(IAGO)))
      .type('form')
      .send({ type: 'direct', to: JSON.stringify([HAMLET]), content: 'metrics' });
    expect(sent.status).toBe(200);
    expect((await poll).status).toBe(200);

    const res = await t.http().get('/metrics');
    const text = res.text;
    const users = 'zulip_http_request_duration_seconds_count{method="GET",route="/api/v1/users/me",status="200"}';
    expect(sample(text, users)).toBe(3);
    expect(sample(text, users.replace('"200"', '"401"'))).toBe(1);
    expect(sample(text, 'zulip_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}')).toBe(
      1,
    );
    expect(
      sample(
        text,
        'zulip_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/api/v1/messages",status="200"}',
      ),
    ).toBe(1);
    expect(sample(text, 'zulip_event_long_polls_parked')).toBe(0);
    expect(sample(text, 'zulip_events_delivered_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'zulip_db_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'zulip_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'zulip_db_pool_waiting')).toBe(0);
    expect(sample(text, 'zulip_db_pool_max')).toBe(10);
    expect(sample(text, 'zulip_push_notifications_total{outcome="delivered"}')).toBe(0);
    expect(sample(text, 'zulip_push_notifications_total{outcome="failed"}')).toBe(0);
    expect(sample(text, 'zulip_job_queue_depth{queue="push"}')).toBe(0);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
  });

  it('lets other modules add metrics and job queues through MetricsRegistry', async () => {
    const metrics = t.app.get(MetricsRegistry);
    metrics.registerJobQueue('email', async () => 7);
    const c = metrics.counter({ name: 'zulip_test_things_total', help: 'Things.' });
    expect(metrics.counter({ name: 'zulip_test_things_total', help: 'Things.' })).toBe(c);
    c.inc(2);
    const text = (await t.http().get('/metrics')).text;
    expect(sample(text, 'zulip_job_queue_depth{queue="email"}')).toBe(7);
    expect(sample(text, 'zulip_test_things_total')).toBe(2);
  });
});

describe('GET /metrics access', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close())));
  const start = async (env: Record<string, string>) => {
    const t = await startTestApp(env);
    apps.push(t);
    return t;
  };

  it('requires the bearer token when METRICS_TOKEN is set', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const t = await start({ METRICS_TOKEN: token });
    expect((await t.http().get('/metrics')).status).toBe(401);
    expect((await t.http().get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789abc')).status).toBe(401);
    const ok = await t.http().get('/metrics').set('Authorization', `Bearer ${token}`);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('zulip_http_request_duration_seconds');
  });

  it('is not on the public port in production without a token', async () => {
    const t = await start({ SERVER_MODE: 'production', SEED_DEMO_REALM: 'false' });
    const res = await t.http().get('/metrics');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(expect.objectContaining({ result: 'error' }));
  });

  it('moves to its own listener with METRICS_PORT', async () => {
    const t = await start({ METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' });
    expect((await t.http().get('/metrics')).status).toBe(404);
    const listener = t.app.get(MetricsListener);
    await listener.start();
    const port = listener.port();
    expect(port).toBeGreaterThan(0);
    const res = await request(`http://127.0.0.1:${port}`).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('zulip_db_pool_connections');
    expect((await request(`http://127.0.0.1:${port}`).get('/other')).status).toBe(404);
  });
});
