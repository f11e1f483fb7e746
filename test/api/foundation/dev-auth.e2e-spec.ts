/**
 * POST /dev_fetch_api_key (zerver/views/development/dev_login.py) and POST /fetch_api_key
 * (zerver/views/auth.py api_fetch_api_key).
 */
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { DEMO_PASSWORD } from '../../../src/seed/demo-realm';
import { RealmService } from '../../../src/realm/realm.service';

const HAMLET = 'hamlet@zulip.com';
const HAMLET_ID = 10;
const PROSPERO = 'prospero@zulip.com';
const PROSPERO_ID = 14;

describe('API key endpoints (development mode)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function withProsperoDeactivated(fn: () => Promise<void>): Promise<void> {
    await t.dataSource.query('UPDATE user_profile SET is_active = false WHERE id = $1', [PROSPERO_ID]);
    try {
      await fn();
    } finally {
      await t.dataSource.query('UPDATE user_profile SET is_active = true WHERE id = $1', [PROSPERO_ID]);
    }
  }

  async function withRealmDeactivated(fn: () => Promise<void>): Promise<void> {
    const realms = t.app.get(RealmService);
    const realm = (await realms.findByStringId('zulip'))!;
    await realms.updateRealm(realm.id, { deactivated: true });
    try {
      await fn();
    } finally {
      await realms.updateRealm(realm.id, { deactivated: false });
    }
  }

  describe('POST /dev_fetch_api_key', () => {
    const devKey = (username: string) => t.http().post('/api/v1/dev_fetch_api_key').type('form').send({ username });

    it('returns {api_key, email, user_id} for a delivery email', async () => {
      const res = await devKey(HAMLET);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        api_key: await t.apiKey(HAMLET),
        email: HAMLET,
        user_id: HAMLET_ID,
      });
      expect(res.body.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
      expectMatchesOpenApi('post', '/dev_fetch_api_key', res.status, res.body);
    });

    it('finds the user case-insensitively and returns the stored delivery email', async () => {
      const res = await devKey('  Aaron@ZULIP.com ');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ email: 'AARON@zulip.com', user_id: 6 });
    });

    it('returns a key that authenticates', async () => {
      const { api_key: key } = (await devKey('iago@zulip.com')).body as { api_key: string };
      const res = await t.http().get('/api/v1/users/me').auth('iago@zulip.com', key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ user_id: 11, email: 'iago@zulip.com' });
    });

    it('an invalid email → 400 Enter a valid email address.', async () => {
      for (const username of ['invalid', 'a@b', '@zulip.com', '']) {
        const res = await devKey(username);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ result: 'error', msg: 'Enter a valid email address.', code: 'BAD_REQUEST' });
      }
      expectMatchesOpenApi('post', '/dev_fetch_api_key', 400, (await devKey('invalid')).body);
    });

    it('an unknown user → 401 AUTHENTICATION_FAILED', async () => {
      const res = await devKey('nobody@zulip.com');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'Your username or password is incorrect',
        code: 'AUTHENTICATION_FAILED',
      });
      expectMatchesOpenApi('post', '/dev_fetch_api_key', res.status, res.body);
    });

    it('a deactivated user → 401 USER_DEACTIVATED', async () => {
      await withProsperoDeactivated(async () => {
        const res = await devKey(PROSPERO);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
        expectMatchesOpenApi('post', '/dev_fetch_api_key', res.status, res.body);
      });
      expect((await devKey(PROSPERO)).status).toBe(200);
    });

    it('a deactivated organization → 401 REALM_DEACTIVATED (a deactivated user is reported first)', async () => {
      await withRealmDeactivated(async () => {
        const res = await devKey(HAMLET);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({
          result: 'error',
          msg: 'This organization has been deactivated',
          code: 'REALM_DEACTIVATED',
        });
        await withProsperoDeactivated(async () => {
          expect((await devKey(PROSPERO)).body.code).toBe('USER_DEACTIVATED');
        });
      });
      expect((await devKey(HAMLET)).status).toBe(200);
    });

    it('an unknown subdomain → 404 Invalid subdomain, after the email check', async () => {
      const res = await t
        .http()
        .post('/api/v1/dev_fetch_api_key')
        .set('Host', 'nosuchrealm.zulip.testserver')
        .type('form')
        .send({ username: HAMLET });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ result: 'error', msg: 'Invalid subdomain', code: 'BAD_REQUEST' });
      const badEmail = await t
        .http()
        .post('/api/v1/dev_fetch_api_key')
        .set('Host', 'nosuchrealm.zulip.testserver')
        .type('form')
        .send({ username: 'invalid' });
      expect(badEmail.status).toBe(400);
      expect(badEmail.body.msg).toBe('Enter a valid email address.');
    });

    it("a user of another realm → 404 Invalid subdomain; on that realm's subdomain it works", async () => {
      const res = await devKey('welcome-bot@zulip.com');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ result: 'error', msg: 'Invalid subdomain', code: 'BAD_REQUEST' });
      const own = await t
        .http()
        .post('/api/v1/dev_fetch_api_key')
        .set('Host', 'zulipinternal.zulip.testserver')
        .type('form')
        .send({ username: 'welcome-bot@zulip.com' });
      expect(own.status).toBe(200);
      expect(own.body.email).toBe('welcome-bot@zulip.com');
    });

    it('a missing username → REQUEST_VARIABLE_MISSING', async () => {
      const res = await t.http().post('/api/v1/dev_fetch_api_key');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: "Missing 'username' argument",
        code: 'REQUEST_VARIABLE_MISSING',
        var_name: 'username',
      });
    });

    it('GET → 405', async () => {
      const res = await t.http().get('/api/v1/dev_fetch_api_key').query({ username: HAMLET });
      expect(res.status).toBe(405);
      expect(res.body).toMatchObject({ result: 'error', msg: 'Method Not Allowed', allowed_methods: ['POST'] });
    });
  });

  describe('POST /fetch_api_key', () => {
    const fetchKey = (username: string, password: string) =>
      t.http().post('/api/v1/fetch_api_key').type('form').send({ username, password });

    it('returns the key for the right password', async () => {
      const res = await fetchKey(HAMLET, DEMO_PASSWORD);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        api_key: await t.apiKey(HAMLET),
        email: HAMLET,
        user_id: HAMLET_ID,
      });
      expectMatchesOpenApi('post', '/fetch_api_key', res.status, res.body);
      const me = await t
        .http()
        .get('/api/v1/users/me')
        .auth(HAMLET, res.body.api_key as string);
      expect(me.status).toBe(200);
      expect(me.body.user_id).toBe(HAMLET_ID);
    });

    it('accepts a multipart body (zulip-js without apiKey)', async () => {
      const res = await t
        .http()
        .post('/api/v1/fetch_api_key')
        .field('username', HAMLET)
        .field('password', DEMO_PASSWORD);
      expect(res.status).toBe(200);
      expect(res.body.user_id).toBe(HAMLET_ID);
    });

    it.each([
      ['a wrong password', HAMLET, 'wrong-password'],
      ['a password in the wrong case', HAMLET, DEMO_PASSWORD.toUpperCase()],
      ['an empty password', HAMLET, ''],
      ['an unknown user', 'nobody@zulip.com', DEMO_PASSWORD],
      ['a user without a password (bot)', 'default-bot@zulip.com', DEMO_PASSWORD],
    ])('%s → 401 AUTHENTICATION_FAILED', async (_name, username, password) => {
      const res = await fetchKey(username, password);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'Your username or password is incorrect',
        code: 'AUTHENTICATION_FAILED',
      });
      expectMatchesOpenApi('post', '/fetch_api_key', res.status, res.body);
    });

    it('an invalid email → 400 Enter a valid email address.', async () => {
      const res = await fetchKey('invalid', DEMO_PASSWORD);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'Enter a valid email address.', code: 'BAD_REQUEST' });
    });

    it('a deactivated user → 401 Account is deactivated', async () => {
      await withProsperoDeactivated(async () => {
        const res = await fetchKey(PROSPERO, DEMO_PASSWORD);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
      });
    });

    it('a deactivated organization → 401 This organization has been deactivated', async () => {
      await withRealmDeactivated(async () => {
        const res = await fetchKey(HAMLET, DEMO_PASSWORD);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({
          result: 'error',
          msg: 'This organization has been deactivated',
          code: 'REALM_DEACTIVATED',
        });
      });
    });

    it('missing arguments → REQUEST_VARIABLE_MISSING, password first', async () => {
      const res = await t.http().post('/api/v1/fetch_api_key');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: "Missing 'password' argument",
        code: 'REQUEST_VARIABLE_MISSING',
        var_name: 'password',
      });
      const noUser = await t.http().post('/api/v1/fetch_api_key').type('form').send({ password: 'x' });
      expect(noUser.body).toMatchObject({ msg: "Missing 'username' argument", var_name: 'username' });
    });

    it('an unknown subdomain → 404 Invalid subdomain', async () => {
      const res = await t
        .http()
        .post('/api/v1/fetch_api_key')
        .set('Host', 'nosuchrealm.zulip.testserver')
        .type('form')
        .send({ username: HAMLET, password: DEMO_PASSWORD });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ result: 'error', msg: 'Invalid subdomain', code: 'BAD_REQUEST' });
    });
  });
});

describe('API key endpoints (production mode)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SERVER_MODE: 'production' });
  });
  afterAll(() => t.close());

  it('POST /dev_fetch_api_key → 400 Endpoint not available in production.', async () => {
    const res = await t.http().post('/api/v1/dev_fetch_api_key').type('form').send({ username: HAMLET });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg: 'Endpoint not available in production.', code: 'BAD_REQUEST' });
    expectMatchesOpenApi('post', '/dev_fetch_api_key', res.status, res.body);
  });

  it('POST /fetch_api_key still works', async () => {
    const res = await t
      .http()
      .post('/api/v1/fetch_api_key')
      .type('form')
      .send({ username: HAMLET, password: DEMO_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(HAMLET_ID);
  });
});

describe('API key endpoints in development mode on a public address', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('HOST=0.0.0.0 without the opt-in: /dev_fetch_api_key is refused and server_settings offers no dev login', async () => {
    t = await startTestApp({ HOST: '0.0.0.0' });
    const res = await t.http().post('/api/v1/dev_fetch_api_key').type('form').send({ username: HAMLET });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg: 'Endpoint not available in production.', code: 'BAD_REQUEST' });
    const settings = await t.http().get('/api/v1/server_settings');
    expect(settings.body.authentication_methods.dev).toBe(false);
    expect((await t.http().get('/metrics')).status).toBe(404);
  });

  it('with ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS=1 they are served', async () => {
    t = await startTestApp({ HOST: '0.0.0.0', ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS: '1' });
    const res = await t.http().post('/api/v1/dev_fetch_api_key').type('form').send({ username: HAMLET });
    expect(res.status).toBe(200);
    expect((await t.http().get('/api/v1/server_settings')).body.authentication_methods.dev).toBe(true);
  });
});

describe('API key endpoints with no realm on the root host', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DEFAULT_REALM: '' });
  });
  afterAll(() => t.close());

  it('the root host → 404 Invalid subdomain; the realm subdomain works', async () => {
    for (const path of ['/api/v1/dev_fetch_api_key', '/api/v1/fetch_api_key']) {
      const res = await t.http().post(path).type('form').send({ username: HAMLET, password: DEMO_PASSWORD });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ result: 'error', msg: 'Invalid subdomain', code: 'BAD_REQUEST' });
      const ok = await t
        .http()
        .post(path)
        .set('Host', 'zulip.zulip.testserver')
        .type('form')
        .send({ username: HAMLET, password: DEMO_PASSWORD });
      expect(ok.status).toBe(200);
      expect(ok.body.user_id).toBe(HAMLET_ID);
    }
  });
});
