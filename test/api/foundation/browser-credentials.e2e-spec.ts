/**
 * Browsers and the user's credentials: 401s outside /api/ never ask a browser for Basic
 * credentials (Zulip answers `Session` there), and state-changing requests a browser sends for
 * another site with credentials are refused with Zulip's CSRF error envelope. API clients send
 * neither Origin nor Sec-Fetch-Site and are unaffected.
 */
import { expectError } from '../../helpers/api';
import { startTestApp, TestApp } from '../../helpers/test-app';

// Starting an app takes a while on a busy machine; the checks themselves are quick.
jest.setTimeout(120_000);
const HAMLET = 'hamlet@zulip.com';
const EVIL = 'https://evil.example';

describe('browser credentials', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const fullName = async () =>
    (
      await t
        .http()
        .get('/api/v1/users/me')
        .auth(...(await t.auth(HAMLET)))
    ).body.full_name as string;
  /** A form post as a browser sends it, with the credentials it remembers. */
  const formPost = async (path: string, form: Record<string, string>, headers: Record<string, string>) => {
    let req = t
      .http()
      .post(path)
      .auth(...(await t.auth(HAMLET)))
      .type('form');
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    return req.send(form);
  };

  describe('WWW-Authenticate', () => {
    it('a 401 under /api/ asks for Basic credentials (API clients)', async () => {
      const res = await t.http().get('/api/v1/users/me');
      expectError(res, 401, 'Not logged in: API authentication or user session required', 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Basic realm="zulip"');
    });

    it.each(['/user_uploads/2/ab/cdef/file.txt', '/user_uploads/not-a-realm/x'])(
      'a 401 on %s (opened by browsers) says Session, so no browser prompts',
      async (path) => {
        const res = await t.http().get(path);
        expectError(res, 401, 'Not logged in: API authentication or user session required', 'UNAUTHORIZED');
        expect(res.headers['www-authenticate']).toBe('Session realm="zulip"');
      },
    );

    it('a bad key on a browser path: still JSON, still no Basic challenge', async () => {
      const res = await t
        .http()
        .get('/user_uploads/2/ab/cdef/file.txt')
        .auth(HAMLET, 'Zz0'.repeat(10) + 'Qq');
      expectError(res, 401, 'Invalid API key', 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Session realm="zulip"');
    });
  });

  describe('cross-site requests with credentials', () => {
    const before = 'King Hamlet';
    beforeAll(async () => {
      expect(await fullName()).toBe(before);
    });

    it('a foreign Origin on a form post (with a method= override) → 403 CSRF_FAILED, nothing changes', async () => {
      const res = await formPost('/api/v1/settings', { method: 'PATCH', full_name: 'Pwned' }, { Origin: EVIL });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        result: 'error',
        msg: `CSRF error: Origin checking failed - ${EVIL} does not match any trusted origins.`,
        code: 'CSRF_FAILED',
        reason: `Origin checking failed - ${EVIL} does not match any trusted origins.`,
      });
      expect(await fullName()).toBe(before);
    });

    it('Sec-Fetch-Site: cross-site without Origin → 403; an opaque Origin (null) → 403', async () => {
      const crossSite = await formPost(
        '/api/v1/messages',
        { type: 'stream', to: 'Verona', topic: 'x', content: 'x' },
        {
          'Sec-Fetch-Site': 'cross-site',
        },
      );
      expectError(crossSite, 403, 'CSRF error: Cross-site request refused.', 'CSRF_FAILED');
      const opaque = await formPost('/api/v1/settings', { method: 'PATCH', full_name: 'Pwned' }, { Origin: 'null' });
      expectError(
        opaque,
        403,
        'CSRF error: Origin checking failed - null does not match any trusted origins.',
        'CSRF_FAILED',
      );
      expect(await fullName()).toBe(before);
    });

    it('another realm on the same site is another origin', async () => {
      const res = await formPost(
        '/api/v1/settings',
        { method: 'PATCH', full_name: 'Pwned' },
        {
          Origin: 'http://lear.zulip.testserver',
          'Sec-Fetch-Site': 'same-site',
        },
      );
      expect(res.status).toBe(403);
      expect(await fullName()).toBe(before);
    });

    it('cookies count as credentials too', async () => {
      const res = await t
        .http()
        .post('/api/v1/settings')
        .set('Cookie', 'sessionid=abc')
        .set('Sec-Fetch-Site', 'cross-site')
        .type('form')
        .send({ method: 'PATCH', full_name: 'Pwned' });
      expectError(res, 403, 'CSRF error: Cross-site request refused.', 'CSRF_FAILED');
    });

    it('same-origin browser requests and API clients (no Origin, no Sec-Fetch-Site) go through', async () => {
      const host = 'zulip.testserver';
      const sameOrigin = await formPost(
        '/api/v1/settings',
        { method: 'PATCH', full_name: 'Hamlet A' },
        {
          Host: host,
          Origin: `http://${host}`,
          'Sec-Fetch-Site': 'same-origin',
        },
      );
      expect(sameOrigin.status).toBe(200);
      const apiClient = await formPost('/api/v1/settings', { method: 'PATCH', full_name: before }, {});
      expect(apiClient.status).toBe(200);
      expect(await fullName()).toBe(before);
    });

    it('reads (GET) and requests without credentials are not concerned', async () => {
      const read = await t
        .http()
        .get('/api/v1/users/me')
        .auth(...(await t.auth(HAMLET)))
        .set('Origin', EVIL)
        .set('Sec-Fetch-Site', 'cross-site');
      expect(read.status).toBe(200);
      const login = await t
        .http()
        .post('/api/v1/fetch_api_key')
        .set('Origin', EVIL)
        .type('form')
        .send({ username: HAMLET, password: 'wrong' });
      expectError(login, 401, 'Your username or password is incorrect', 'AUTHENTICATION_FAILED');
    });
  });
});
