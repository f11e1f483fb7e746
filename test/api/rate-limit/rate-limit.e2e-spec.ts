import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';

describe('per-user API rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: '3/60' });
  });
  afterAll(() => t.close());

  it('counts requests per user and answers 429 RATE_LIMIT_HIT with Zulip headers', async () => {
    const hamlet = await t.auth('hamlet@zulip.com');
    for (let i = 0; i < 3; i++) {
      const ok = await t
        .http()
        .get('/api/v1/users/me')
        .auth(...hamlet);
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-limit']).toBe('3');
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const res = await t
      .http()
      .get('/api/v1/users/me')
      .auth(...hamlet);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ result: 'error', code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' });
    expect(typeof res.body['retry-after']).toBe('number');
    expect(res.body['retry-after']).toBeGreaterThan(0);
    expect(res.body['retry-after']).toBeLessThanOrEqual(60);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    const reset = Number(res.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expectMatchesOpenApi('get', '/users/me', res.status, res.body);

    // Another user is not affected; unauthenticated endpoints are not counted.
    const iago = await t
      .http()
      .get('/api/v1/users/me')
      .auth(...(await t.auth('iago@zulip.com')));
    expect(iago.status).toBe(200);
    const settings = await t.http().get('/api/v1/server_settings');
    expect(settings.status).toBe(200);
    expect(settings.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('counts GET /events with dont_block=true (it answers at once); long-polls are not counted', async () => {
    const othello = await t.auth('othello@zulip.com');
    const registered = await t
      .http()
      .post('/api/v1/register')
      .auth(...othello)
      .type('form')
      .send({ event_types: '["message"]', fetch_event_types: '[]' });
    expect(registered.status).toBe(200);
    const poll = (dontBlock: string) =>
      t
        .http()
        .get('/api/v1/events')
        .auth(...othello)
        .query({ queue_id: registered.body.queue_id, last_event_id: '-1', dont_block: dontBlock });
    expect((await poll('true')).headers['x-ratelimit-remaining']).toBe('1');
    expect((await poll('true')).headers['x-ratelimit-remaining']).toBe('0');
    const limited = await poll('true');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ result: 'error', code: 'RATE_LIMIT_HIT' });
    // A long-poll (which parks until an event or a heartbeat) is still served; it is answered
    // here by the client going away.
    const longPoll = t
      .http()
      .get('/api/v1/events')
      .auth(...othello)
      .query({ queue_id: registered.body.queue_id, last_event_id: '-1' })
      .timeout(300);
    await expect(longPoll).rejects.toThrow(/Timeout/);
  });

  it('counts a poll without dont_block refused by its argument checks (bad last_event_id, unknown queue_id)', async () => {
    const shiva = await t.auth('shiva@zulip.com');
    const registered = await t
      .http()
      .post('/api/v1/register')
      .auth(...shiva)
      .type('form')
      .send({ event_types: '["message"]', fetch_event_types: '[]' });
    expect(registered.status).toBe(200);
    expect(registered.headers['x-ratelimit-remaining']).toBe('2');
    const poll = (query: Record<string, string>) =>
      t
        .http()
        .get('/api/v1/events')
        .auth(...shiva)
        .query(query)
        .timeout(5000);
    // A parameter that fails to decode (refused before the queue is looked at).
    const badId = await poll({ queue_id: registered.body.queue_id, last_event_id: 'abc' });
    expect(badId.status).toBe(400);
    expect(badId.body).toMatchObject({ result: 'error', msg: 'last_event_id is not valid JSON' });
    expect(badId.headers['x-ratelimit-remaining']).toBe('1');
    // A queue that does not exist.
    const badQueue = await poll({ queue_id: 'no-such-queue', last_event_id: '-1' });
    expect(badQueue.status).toBe(400);
    expect(badQueue.body).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID' });
    expect(badQueue.headers['x-ratelimit-remaining']).toBe('0');
    // Over the limit, a refused poll gets 429 like any request; so does a missing queue_id.
    const limited = await poll({ queue_id: registered.body.queue_id, last_event_id: '[1]' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ result: 'error', code: 'RATE_LIMIT_HIT' });
    const missing = await poll({ last_event_id: '-1' });
    expect(missing.status).toBe(429);
    expectMatchesOpenApi('get', '/events', limited.status, limited.body);
  });

  it('counts a poll without dont_block that is answered at once because events are pending', async () => {
    const prospero = await t.auth('prospero@zulip.com');
    const registered = await t
      .http()
      .post('/api/v1/register')
      .auth(...prospero)
      .type('form')
      .send({ event_types: '["message"]', fetch_event_types: '[]' });
    expect(registered.status).toBe(200);
    expect(registered.headers['x-ratelimit-remaining']).toBe('2');
    // A poll that parks (nothing pending; answered here by the client going away) is not counted.
    const parked = t
      .http()
      .get('/api/v1/events')
      .auth(...prospero)
      .query({ queue_id: registered.body.queue_id, last_event_id: '-1' })
      .timeout(300);
    await expect(parked).rejects.toThrow(/Timeout/);
    const [{ id: prosperoId }] = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE delivery_email = $1`,
      ['prospero@zulip.com'],
    );
    // Another user sends, so prospero's budget is untouched and his queue has a pending event.
    const sent = await t
      .http()
      .post('/api/v1/messages')
      .auth(...(await t.auth('cordelia@zulip.com')))
      .type('form')
      .send({ type: 'direct', to: JSON.stringify([prosperoId]), content: 'pending' });
    expect(sent.status).toBe(200);
    // The client never acknowledges (last_event_id stays -1): every poll re-reads the event at once.
    const poll = () =>
      t
        .http()
        .get('/api/v1/events')
        .auth(...prospero)
        .query({ queue_id: registered.body.queue_id, last_event_id: '-1' })
        .timeout(5000);
    const first = await poll();
    expect(first.status).toBe(200);
    expect(first.body.events.map((e: { type: string }) => e.type)).toEqual(['message']);
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    const second = await poll();
    expect(second.status).toBe(200);
    expect(second.headers['x-ratelimit-remaining']).toBe('0');
    const limited = await poll();
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      result: 'error',
      code: 'RATE_LIMIT_HIT',
      msg: 'API usage exceeded rate limit',
    });
    expect(limited.body['retry-after']).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expectMatchesOpenApi('get', '/events', limited.status, limited.body);
  });
});

const redisUrl = process.env.ZULIP_TEST_REDIS_URL;

(redisUrl ? describe : describe.skip)('rate limit shared through Redis by two instances', () => {
  let one: TestApp;
  let two: TestApp;
  beforeAll(async () => {
    const env = {
      RATE_LIMIT: '2/60',
      REDIS_URL: redisUrl ?? '',
      REDIS_PREFIX: `zulip-test-rl-${process.pid}-${Date.now()}`,
    };
    // Two app instances; their databases are clones of one template, so user ids and keys agree.
    one = await startTestApp(env);
    two = await startTestApp(env);
  });
  afterAll(async () => {
    await one.close();
    await two.close();
  });

  it('counts requests made through either instance against one limit', async () => {
    const cordelia = await one.auth('cordelia@zulip.com');
    expect(
      (
        await one
          .http()
          .get('/api/v1/users/me')
          .auth(...cordelia)
      ).status,
    ).toBe(200);
    const viaTwo = await two
      .http()
      .get('/api/v1/users/me')
      .auth(...cordelia);
    expect(viaTwo.status).toBe(200);
    expect(viaTwo.headers['x-ratelimit-remaining']).toBe('0');
    const refused = await one
      .http()
      .get('/api/v1/users/me')
      .auth(...cordelia);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMIT_HIT');
  });

  it('counts polls answered at once with pending events through either instance', async () => {
    const desdemona = await one.auth('desdemona@zulip.com');
    const registered = await one
      .http()
      .post('/api/v1/register')
      .auth(...desdemona)
      .type('form')
      .send({ event_types: '["message"]', fetch_event_types: '[]' });
    expect(registered.status).toBe(200);
    const [{ id: desdemonaId }] = await one.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE delivery_email = $1`,
      ['desdemona@zulip.com'],
    );
    const sent = await one
      .http()
      .post('/api/v1/messages')
      .auth(...(await one.auth('iago@zulip.com')))
      .type('form')
      .send({ type: 'direct', to: JSON.stringify([desdemonaId]), content: 'pending' });
    expect(sent.status).toBe(200);
    const poll = () =>
      one
        .http()
        .get('/api/v1/events')
        .auth(...desdemona)
        .query({ queue_id: registered.body.queue_id, last_event_id: '-1' })
        .timeout(5000);
    const first = await poll();
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('0');
    // The budget is shared: the other instance refuses desdemona now.
    const viaTwo = await two
      .http()
      .get('/api/v1/users/me')
      .auth(...(await two.auth('desdemona@zulip.com')));
    expect(viaTwo.status).toBe(429);
    expect((await poll()).status).toBe(429);
  });
});
