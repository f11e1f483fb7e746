/**
 * The protocol layer through the whole app: where parameters come from, Zulip's parameter errors,
 * ignored_parameters_unsupported, routing errors (404/405), body limits, the POST method override
 * and the 500 envelope.
 */
import { Logger } from '@nestjs/common';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { registerQueue } from '../../helpers/events';
import { HOT_ROUTES } from '../../../src/bootstrap';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const HAMLET_ID = 10;
const OTHELLO_ID = 12;

describe('protocol layer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** POST /dev_fetch_api_key reads one string parameter, `username`: handy to see where values come from. */
  const devKey = () => t.http().post('/api/v1/dev_fetch_api_key');

  describe('where parameters come from', () => {
    it('reads a urlencoded body', async () => {
      const res = await devKey().type('form').send({ username: HAMLET });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ result: 'success', msg: '', user_id: HAMLET_ID, email: HAMLET });
      expect(res.body).not.toHaveProperty('ignored_parameters_unsupported');
    });

    it('reads a multipart body (what zulip-js sends)', async () => {
      const res = await devKey().field('username', HAMLET);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ result: 'success', user_id: HAMLET_ID });
    });

    it('reads the query string of a POST', async () => {
      const res = await devKey().query({ username: HAMLET });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ result: 'success', user_id: HAMLET_ID });
    });

    it('lets the urlencoded body win over the query string', async () => {
      const res = await devKey().query({ username: OTHELLO }).type('form').send({ username: HAMLET });
      expect(res.status).toBe(200);
      expect(res.body.user_id).toBe(HAMLET_ID);
    });

    it('lets the multipart body win over the query string', async () => {
      const res = await devKey().query({ username: OTHELLO }).field('username', HAMLET);
      expect(res.status).toBe(200);
      expect(res.body.user_id).toBe(HAMLET_ID);
    });

    it('takes the last value of a repeated key (urlencoded, multipart, query)', async () => {
      const form = await devKey()
        .type('form')
        .send(`username=${encodeURIComponent(OTHELLO)}&username=${encodeURIComponent(HAMLET)}`);
      expect(form.status).toBe(200);
      expect(form.body.user_id).toBe(HAMLET_ID);
      const multi = await devKey().field('username', OTHELLO).field('username', HAMLET);
      expect(multi.status).toBe(200);
      expect(multi.body.user_id).toBe(HAMLET_ID);
      const query = await t
        .http()
        .post(
          `/api/v1/dev_fetch_api_key?username=${encodeURIComponent(HAMLET)}&username=${encodeURIComponent(OTHELLO)}`,
        );
      expect(query.status).toBe(200);
      expect(query.body.user_id).toBe(OTHELLO_ID);
    });

    it('reads GET parameters from the query string', async () => {
      const auth = await t.auth(HAMLET);
      const dflt = await t
        .http()
        .get('/api/v1/users/me')
        .auth(...auth);
      expect(dflt.status).toBe(200);
      const res = await t
        .http()
        .get('/api/v1/users')
        .query({ client_gravatar: 'false', user_ids: `[${OTHELLO_ID}]` })
        .auth(...auth);
      expect(res.status).toBe(200);
      expect(res.body.members).toHaveLength(1);
      expect(res.body.members[0].avatar_url).toEqual(expect.stringContaining('gravatar.com'));
    });

    it('reads a form body sent with GET, and it wins over the query', async () => {
      const res = await t
        .http()
        .get('/api/v1/users')
        .query({ user_ids: `[${HAMLET_ID}]` })
        .auth(...(await t.auth(HAMLET)))
        .type('form')
        .send({ user_ids: `[${OTHELLO_ID}]` });
      expect(res.status).toBe(200);
      expect(res.body.members.map((m: { user_id: number }) => m.user_id)).toEqual([OTHELLO_ID]);
    });

    it('reads DELETE parameters from a urlencoded body, a multipart body and the query string', async () => {
      const auth = await t.auth(HAMLET);
      const q1 = await registerQueue(t, HAMLET, ['message']);
      const q2 = await registerQueue(t, HAMLET, ['message']);
      const q3 = await registerQueue(t, HAMLET, ['message']);
      const viaForm = await t
        .http()
        .delete('/api/v1/events')
        .auth(...auth)
        .type('form')
        .send({ queue_id: q1.queueId });
      const viaMultipart = await t
        .http()
        .delete('/api/v1/events')
        .auth(...auth)
        .field('queue_id', q2.queueId);
      const viaQuery = await t
        .http()
        .delete('/api/v1/events')
        .auth(...auth)
        .query({ queue_id: q3.queueId });
      for (const res of [viaForm, viaMultipart, viaQuery]) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ result: 'success', msg: '' });
      }
      for (const q of [q1, q2, q3]) {
        const gone = await t
          .http()
          .get('/api/v1/events')
          .auth(...auth)
          .query({ queue_id: q.queueId, last_event_id: '-1', dont_block: 'true' });
        expect(gone.body.code).toBe('BAD_EVENT_QUEUE_ID');
      }
    });

    it('ignores a JSON body: its parameters come out missing', async () => {
      const res = await devKey()
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ username: HAMLET }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: "Missing 'username' argument",
        code: 'REQUEST_VARIABLE_MISSING',
        var_name: 'username',
      });
    });

    it('ignores a JSON body sent with DELETE too', async () => {
      const q = await registerQueue(t, HAMLET, ['message']);
      const res = await t
        .http()
        .delete('/api/v1/events')
        .auth(...(await t.auth(HAMLET)))
        .send({ queue_id: q.queueId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: "Missing 'queue_id' argument",
        code: 'REQUEST_VARIABLE_MISSING',
        var_name: 'queue_id',
      });
    });
  });

  describe("Zulip's parameter errors", () => {
    const getUsers = async (query: Record<string, string>) =>
      t
        .http()
        .get('/api/v1/users')
        .query(query)
        .auth(...(await t.auth(HAMLET)));

    it.each([
      [{ client_gravatar: 'yes' }, 'client_gravatar is not valid JSON'],
      [{ client_gravatar: '1' }, 'client_gravatar is not a boolean'],
      [{ client_gravatar: '"true"' }, 'client_gravatar is not a boolean'],
      [{ include_custom_profile_fields: 'null' }, 'include_custom_profile_fields is not a boolean'],
      [{ user_ids: '5' }, 'user_ids is not a list'],
      [{ user_ids: '{"a":1}' }, 'user_ids is not a list'],
      [{ user_ids: '[1,' }, 'user_ids is not valid JSON'],
      [{ user_ids: '["a"]' }, 'user_ids is not an integer'],
    ])('GET /users %j → %s', async (query, msg) => {
      const res = await getUsers({ ...query, unrelated: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
      expectMatchesOpenApi('get', '/users', res.status, res.body);
    });

    it('reports the first bad parameter in declaration order', async () => {
      const res = await getUsers({ user_ids: 'bad', client_gravatar: 'bad' });
      expect(res.body.msg).toBe('client_gravatar is not valid JSON');
    });

    it('gives "is not an integer" for a quoted integer', async () => {
      const q = await registerQueue(t, HAMLET, ['message']);
      const res = await t
        .http()
        .get('/api/v1/events')
        .query({ queue_id: q.queueId, last_event_id: '"3"', dont_block: 'true' })
        .auth(...(await t.auth(HAMLET)));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'last_event_id is not an integer', code: 'BAD_REQUEST' });
    });

    it('gives REQUEST_VARIABLE_MISSING with var_name for a missing argument', async () => {
      const res = await devKey().type('form').send({ other: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: "Missing 'username' argument",
        code: 'REQUEST_VARIABLE_MISSING',
        var_name: 'username',
      });
      expectMatchesOpenApi('post', '/dev_fetch_api_key', res.status, res.body);
    });

    it('does not treat an empty value as missing', async () => {
      const res = await devKey().type('form').send({ username: '' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'Enter a valid email address.', code: 'BAD_REQUEST' });
    });
  });

  describe('ignored_parameters_unsupported', () => {
    it('lists unknown parameters of query and body, sorted, on success', async () => {
      const res = await t
        .http()
        .post('/api/v1/dev_fetch_api_key')
        .query({ zeta: '1', Alpha: '2' })
        .type('form')
        .send({ username: HAMLET, mid: '3', alpha: '4' });
      expect(res.status).toBe(200);
      expect(res.body.ignored_parameters_unsupported).toEqual(['Alpha', 'alpha', 'mid', 'zeta']);
      expectMatchesOpenApi('post', '/dev_fetch_api_key', res.status, res.body);
    });

    it('counts a parameter sent in both query and body once', async () => {
      const res = await t
        .http()
        .get('/api/v1/users')
        .query({ extra: '1', client_gravatar: 'true' })
        .auth(...(await t.auth(HAMLET)))
        .field('extra', '2');
      expect(res.status).toBe(200);
      expect(res.body.ignored_parameters_unsupported).toEqual(['extra']);
    });

    it('is absent when every parameter was used', async () => {
      const res = await t
        .http()
        .get('/api/v1/users')
        .query({ client_gravatar: 'true' })
        .auth(...(await t.auth(HAMLET)));
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('ignored_parameters_unsupported');
    });

    it('is never added to an error', async () => {
      const res = await devKey().type('form').send({ username: 'nobody@zulip.com', junk: '1' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'Your username or password is incorrect',
        code: 'AUTHENTICATION_FAILED',
      });
    });
  });

  it('tries the hot routes first, each answered by its own handler', async () => {
    const stack = (t.app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } }).router.stack;
    const routes = stack
      .filter((l) => l.route)
      .slice(0, HOT_ROUTES.length)
      .map((l) => `${Object.keys(l.route!.methods)[0].toUpperCase()} ${l.route!.path}`);
    expect(routes).toEqual(HOT_ROUTES);
    const settings = await t.http().get('/api/v1/server_settings');
    expect(settings.status).toBe(200);
    expect(settings.body).toHaveProperty('zulip_feature_level');
    const flags = await t
      .http()
      .post('/api/v1/messages/flags')
      .auth(...(await t.auth(HAMLET)))
      .type('form')
      .send({
        messages: '[]',
        op: 'add',
        flag: 'read',
      });
    expect(flags.body).toMatchObject({ result: 'success', messages: [] });
  });

  describe('routing errors', () => {
    it.each(['/api/v1/no_such_endpoint', '/api/v1/users/10/nothing', '/no/such/page'])(
      'unknown route %s → JSON 404',
      async (path) => {
        const res = await t
          .http()
          .get(path)
          .auth(...(await t.auth(HAMLET)));
        expect(res.status).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toEqual({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
      },
    );

    it('answers an unknown route without credentials with 404, not 401', async () => {
      const res = await t.http().post('/api/v1/no_such_endpoint');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    });

    it.each([
      ['get', '/api/v1/dev_fetch_api_key', ['POST']],
      ['patch', '/api/v1/server_settings', ['GET', 'HEAD']],
      ['delete', '/api/v1/register', ['POST']],
      ['post', '/api/v1/events', ['DELETE', 'GET', 'HEAD']],
      ['delete', '/api/v1/server_settings', ['GET', 'HEAD']],
    ] as const)('%s %s → 405 with allowed_methods %j', async (method, path, allowed) => {
      const res = await t
        .http()
        [method](path)
        .auth(...(await t.auth(HAMLET)));
      expect(res.status).toBe(405);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'Method Not Allowed',
        code: 'BAD_REQUEST',
        allowed_methods: allowed,
      });
    });
  });

  describe('request bodies the parser refuses', () => {
    it('answers a malformed multipart body with a JSON 400', async () => {
      const res = await devKey()
        .set('Content-Type', 'multipart/form-data; boundary=XyZ')
        .send('--XyZ\r\nContent-Disposition: form-data; name="username"\r\n\r\nhamlet@zulip.com');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'Malformed multipart body', code: 'BAD_REQUEST' });
    });

    it('answers a multipart body without a boundary with a JSON 400', async () => {
      const res = await devKey().set('Content-Type', 'multipart/form-data').send('username=x');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'Malformed multipart body', code: 'BAD_REQUEST' });
    });

    it('refuses file uploads on multipart endpoints that take none', async () => {
      const res = await devKey().field('username', HAMLET).attach('file', Buffer.from('hello'), 'hello.txt');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'Malformed multipart body', code: 'BAD_REQUEST' });
    });
  });

  describe('POST method override', () => {
    it('POST with method=DELETE runs DELETE, and reports `method` as ignored', async () => {
      const q = await registerQueue(t, HAMLET, ['message']);
      const auth = await t.auth(HAMLET);
      const res = await t
        .http()
        .post('/api/v1/events')
        .auth(...auth)
        .type('form')
        .send({ method: 'DELETE', queue_id: q.queueId });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: 'success', msg: '', ignored_parameters_unsupported: ['method'] });
      const gone = await t
        .http()
        .get('/api/v1/events')
        .auth(...auth)
        .query({ queue_id: q.queueId, last_event_id: '-1', dont_block: 'true' });
      expect(gone.body.code).toBe('BAD_EVENT_QUEUE_ID');
    });

    it('works with a multipart body and a lowercase method', async () => {
      const res = await t.http().post('/api/v1/server_settings').field('method', 'get');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ result: 'success', realm_name: 'Zulip Dev' });
      expect(res.body.ignored_parameters_unsupported).toEqual(['method']);
    });

    it('is not applied to other methods or from the query string', async () => {
      const fromQuery = await t.http().post('/api/v1/server_settings').query({ method: 'GET' });
      expect(fromQuery.status).toBe(405);
      expect(fromQuery.body.allowed_methods).toEqual(['GET', 'HEAD']);
      const fromPatch = await t
        .http()
        .patch('/api/v1/register')
        .auth(...(await t.auth(HAMLET)))
        .type('form')
        .send({ method: 'POST' });
      expect(fromPatch.status).toBe(405);
    });
  });

  describe('unexpected failures', () => {
    it('answers 500 with the bare error envelope, without stack or SQL', async () => {
      const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      await t.dataSource.query('ALTER TABLE realm_user_default RENAME TO realm_user_default_hidden');
      try {
        const res = await t
          .http()
          .post('/api/v1/register')
          .auth(...(await t.auth(HAMLET)))
          .type('form')
          .send({ fetch_event_types: '["realm_user_settings_defaults"]' });
        expect(res.status).toBe(500);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toEqual({ result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
        expect(res.text).not.toMatch(/realm_user_default|SELECT|\.ts:\d+/);
        expect(logged).toHaveBeenCalled();
        expect(String(logged.mock.calls[0][0])).toMatch(/realm_user_default/);
      } finally {
        await t.dataSource.query('ALTER TABLE realm_user_default_hidden RENAME TO realm_user_default');
        logged.mockRestore();
      }
      const again = await t
        .http()
        .post('/api/v1/register')
        .auth(...(await t.auth(HAMLET)))
        .type('form')
        .send({ fetch_event_types: '["realm_user_settings_defaults"]' });
      expect(again.status).toBe(200);
    });
  });

  describe('GET /health', () => {
    it('answers 200 without credentials, outside /api/v1 (liveness; readiness is /health/ready)', async () => {
      const res = await t.http().get('/health');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it('is not under /api/v1', async () => {
      const res = await t.http().get('/api/v1/health');
      expect(res.status).toBe(404);
    });
  });
});

describe('body size limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ MAX_BODY_BYTES: '16384' });
  });
  afterAll(() => t.close());

  it('accepts a body under the limit', async () => {
    const res = await t
      .http()
      .post('/api/v1/dev_fetch_api_key')
      .type('form')
      .send({ username: HAMLET, pad: 'x'.repeat(10_000) });
    expect(res.status).toBe(200);
  });

  it('answers an urlencoded body over the limit with a JSON 413', async () => {
    const res = await t
      .http()
      .post('/api/v1/dev_fetch_api_key')
      .type('form')
      .send({ username: HAMLET, pad: 'x'.repeat(20_000) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ result: 'error', msg: 'Request body too large', code: 'BAD_REQUEST' });
  });

  it('answers a multipart field over the limit with a JSON 413', async () => {
    const res = await t
      .http()
      .post('/api/v1/dev_fetch_api_key')
      .field('username', HAMLET)
      .field('pad', 'x'.repeat(20_000));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ result: 'error', msg: 'Request body too large', code: 'BAD_REQUEST' });
  });

  it('refuses an oversized body before authentication', async () => {
    const res = await t
      .http()
      .delete('/api/v1/events')
      .type('form')
      .send({ queue_id: 'x'.repeat(20_000) });
    expect(res.status).toBe(413);
    expect(res.body.msg).toBe('Request body too large');
  });
});
