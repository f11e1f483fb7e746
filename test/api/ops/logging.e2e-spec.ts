/**
 * Structured logs: every line is JSON (LOG_FORMAT=json), one access line per request with the
 * route template, status, duration, user and realm, and request id (X-Request-Id in and out), and
 * no secret anywhere: API keys, passwords, the Authorization header, message content.
 */
import { Writable } from 'node:stream';
import { createRootLogger } from '../../../src/logging/logger';
import { HAMLET } from '../../helpers/api';
import { startTestApp, TestApp } from '../../helpers/test-app';

describe('structured logs', () => {
  let t: TestApp;
  const lines: string[] = [];
  let buffered = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      lines.push(...parts.filter((l) => l !== ''));
      done();
    },
  });

  beforeAll(async () => {
    t = await startTestApp(
      { LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
      { logger: (config) => createRootLogger(config, sink) },
    );
  });
  afterAll(() => t.close());

  const accessLines = () =>
    lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
  const settle = () => new Promise((r) => setTimeout(r, 50));

  it('writes one JSON access line per request, with the request id in and out, and no secret', async () => {
    const key = await t.apiKey(HAMLET);
    const content = 'the-secret-plans-4711';
    const password = 'zulip-demo';
    const sent = await t
      .http()
      .post('/api/v1/messages')
      .auth(HAMLET, key)
      .set('X-Request-Id', 'client-chosen-id.42')
      .type('form')
      .send({ type: 'stream', to: 'Verona', topic: 'plans', content });
    expect(sent.status).toBe(200);
    expect(sent.headers['x-request-id']).toBe('client-chosen-id.42');

    const login = await t.http().post('/api/v1/fetch_api_key').type('form').send({ username: HAMLET, password });
    expect(login.status).toBe(200);
    const dev = await t.http().post('/api/v1/dev_fetch_api_key').type('form').send({ username: HAMLET });
    expect(dev.status).toBe(200);
    const denied = await t.http().get('/api/v1/users/me').auth(HAMLET, 'x'.repeat(32));
    expect(denied.status).toBe(401);
    const missing = await t.http().get('/api/v1/no/such/route').set('X-Request-Id', 'bad id "with" spaces');
    expect(missing.status).toBe(404);
    expect(missing.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await t.http().get(`/api/v1/messages/${sent.body.id}`).auth(HAMLET, key).query({ apply_markdown: 'false' });
    await settle();

    const all = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(all.length).toBeGreaterThan(0);
    for (const line of all) {
      expect(typeof line.time).toBe('string');
      expect(typeof line.level).toBe('string');
    }
    const access = accessLines();
    const send = access.find((l) => l.reqId === 'client-chosen-id.42');
    expect(send).toEqual(
      expect.objectContaining({
        level: 'info',
        method: 'POST',
        route: '/api/v1/messages',
        status: 200,
        userId: expect.any(Number),
        realm: 'zulip',
      }),
    );
    expect(typeof send!.ms).toBe('number');
    expect(access.find((l) => l.route === '/api/v1/messages/:message_id')).toEqual(
      expect.objectContaining({ method: 'GET', status: 200, realm: 'zulip' }),
    );
    expect(access.find((l) => l.status === 404)).toEqual(
      expect.objectContaining({ route: null, path: '/api/v1/no/such/route', reqId: missing.headers['x-request-id'] }),
    );
    const refused = access.find((l) => l.status === 401);
    expect(refused).toEqual(expect.objectContaining({ route: '/api/v1/users/me' }));
    expect(refused).not.toHaveProperty('userId');
    expect(access.filter((l) => l.route === '/api/v1/dev_fetch_api_key')).toHaveLength(1);

    const text = lines.join('\n');
    const basic = Buffer.from(`${HAMLET}:${key}`).toString('base64');
    for (const secret of [key, login.body.api_key as string, dev.body.api_key as string, basic, content, password]) {
      expect(text).not.toContain(secret);
    }
    expect(text.toLowerCase()).not.toContain('authorization');
  });

  it('logs probes at debug only', async () => {
    const before = accessLines().length;
    expect((await t.http().get('/health')).status).toBe(200);
    await settle();
    expect(accessLines().length).toBe(before);
  });
});
