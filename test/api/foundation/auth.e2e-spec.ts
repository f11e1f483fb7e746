/**
 * HTTP Basic authentication failures with Zulip's statuses, codes and texts (zerver/decorator.py).
 */
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { RealmService } from '../../../src/realm/realm.service';
import { AuthService } from '../../../src/users/auth.service';

const HAMLET = 'hamlet@zulip.com';
const HAMLET_ID = 10;
const PROSPERO = 'prospero@zulip.com';
const PROSPERO_ID = 14;
const WWW_AUTHENTICATE = 'Basic realm="zulip"';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('authentication', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const me = () => t.http().get('/api/v1/users/me');

  function expectUnauthorized(
    res: { status: number; body: unknown; headers: Record<string, string> },
    msg: string,
  ): void {
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ result: 'error', msg, code: 'UNAUTHORIZED' });
    expect(res.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
    expectMatchesOpenApi('get', '/users/me', res.status, res.body);
  }

  it('succeeds with the delivery email and API key', async () => {
    const res = await me().set('Authorization', basic(HAMLET, await t.apiKey(HAMLET)));
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(HAMLET_ID);
  });

  it('compares the email case-insensitively', async () => {
    const res = await me().set('Authorization', basic('HAMLET@Zulip.COM', await t.apiKey(HAMLET)));
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(HAMLET_ID);
  });

  it('strips whitespace around the API key', async () => {
    const res = await me().set('Authorization', basic(HAMLET, ` ${await t.apiKey(HAMLET)} `));
    expect(res.status).toBe(200);
  });

  it('accepts the scheme name in any case', async () => {
    const res = await me().set('Authorization', basic(HAMLET, await t.apiKey(HAMLET)).replace('Basic', 'bAsIc'));
    expect(res.status).toBe(200);
  });

  it('no Authorization header → 401 Not logged in, with WWW-Authenticate', async () => {
    expectUnauthorized(await me(), 'Not logged in: API authentication or user session required');
  });

  it('non-Basic scheme → 400 This endpoint requires HTTP basic authentication.', async () => {
    for (const header of ['Bearer abc', `Digest username="${HAMLET}"`, 'Token']) {
      const res = await me().set('Authorization', header);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'This endpoint requires HTTP basic authentication.',
        code: 'BAD_REQUEST',
      });
    }
  });

  it.each([
    ['not base64', 'Basic !!!***'],
    ['no credentials', 'Basic'],
    ['no colon', `Basic ${Buffer.from('foo').toString('base64')}`],
  ])('%s → 401 Invalid authorization header for basic auth', async (_name, header) => {
    expectUnauthorized(await me().set('Authorization', header), 'Invalid authorization header for basic auth');
  });

  it.each([
    ['too short', 'abc'],
    ['too long', 'a'.repeat(33)],
    ['bad characters', 'a'.repeat(31) + '-'],
    ['empty', ''],
  ])('a malformed key (%s) → 401 Malformed API key', async (_name, key) => {
    expectUnauthorized(await me().set('Authorization', basic(HAMLET, key)), 'Malformed API key');
  });

  it('an unknown well-formed key → 401 Invalid API key', async () => {
    expectUnauthorized(await me().set('Authorization', basic(HAMLET, 'A'.repeat(32))), 'Invalid API key');
  });

  it("another user's key → 401 Invalid API key", async () => {
    expectUnauthorized(
      await me().set('Authorization', basic(HAMLET, await t.apiKey('othello@zulip.com'))),
      'Invalid API key',
    );
  });

  it('a right key with an unknown email → 401 Invalid API key', async () => {
    expectUnauthorized(
      await me().set('Authorization', basic('nobody@zulip.com', await t.apiKey(HAMLET))),
      'Invalid API key',
    );
  });

  it('a deactivated user → 401 Account is deactivated', async () => {
    const key = await t.apiKey(PROSPERO);
    expect((await me().set('Authorization', basic(PROSPERO, key))).status).toBe(200); // now cached
    await t.dataSource.query('UPDATE user_profile SET is_active = false WHERE id = $1', [PROSPERO_ID]);
    t.app.get(AuthService).invalidateUser(PROSPERO_ID);
    try {
      expectUnauthorized(await me().set('Authorization', basic(PROSPERO, key)), 'Account is deactivated');
    } finally {
      await t.dataSource.query('UPDATE user_profile SET is_active = true WHERE id = $1', [PROSPERO_ID]);
      t.app.get(AuthService).invalidateUser(PROSPERO_ID);
    }
    expect((await me().set('Authorization', basic(PROSPERO, key))).status).toBe(200);
  });

  it('a deactivated organization → 401 This organization has been deactivated (before the user check)', async () => {
    const realms = t.app.get(RealmService);
    const realm = (await realms.findByStringId('zulip'))!;
    await t.dataSource.query('UPDATE user_profile SET is_active = false WHERE id = $1', [PROSPERO_ID]);
    t.app.get(AuthService).invalidateUser(PROSPERO_ID);
    await realms.updateRealm(realm.id, { deactivated: true });
    try {
      expectUnauthorized(
        await me().set('Authorization', basic(HAMLET, await t.apiKey(HAMLET))),
        'This organization has been deactivated',
      );
      expectUnauthorized(
        await me().set('Authorization', basic(PROSPERO, await t.apiKey(PROSPERO))),
        'This organization has been deactivated',
      );
    } finally {
      await realms.updateRealm(realm.id, { deactivated: false });
      await t.dataSource.query('UPDATE user_profile SET is_active = true WHERE id = $1', [PROSPERO_ID]);
      t.app.get(AuthService).invalidateUser(PROSPERO_ID);
    }
    expect((await me().set('Authorization', basic(HAMLET, await t.apiKey(HAMLET)))).status).toBe(200);
  });

  describe('subdomains', () => {
    it("succeeds on the realm's own subdomain", async () => {
      const res = await me()
        .set('Host', 'zulip.zulip.testserver')
        .set('Authorization', basic(HAMLET, await t.apiKey(HAMLET)));
      expect(res.status).toBe(200);
      expect(res.body.user_id).toBe(HAMLET_ID);
    });

    it("another realm's subdomain → 401 Account is not associated with this subdomain", async () => {
      const res = await me()
        .set('Host', 'zulipinternal.zulip.testserver')
        .set('Authorization', basic(HAMLET, await t.apiKey(HAMLET)));
      expectUnauthorized(res, 'Account is not associated with this subdomain');
    });

    it('an unknown subdomain → 401 Account is not associated with this subdomain', async () => {
      const res = await me()
        .set('Host', 'nosuchrealm.zulip.testserver')
        .set('Authorization', basic(HAMLET, await t.apiKey(HAMLET)));
      expectUnauthorized(res, 'Account is not associated with this subdomain');
    });

    it('a user of another realm on the root host → 401 Account is not associated with this subdomain', async () => {
      const key = await t.apiKey('welcome-bot@zulip.com', 'zulipinternal');
      expectUnauthorized(
        await me().set('Authorization', basic('welcome-bot@zulip.com', key)),
        'Account is not associated with this subdomain',
      );
      const own = await me()
        .set('Host', 'zulipinternal.zulip.testserver')
        .set('Authorization', basic('welcome-bot@zulip.com', key));
      expect(own.status).toBe(200);
    });
  });

  describe('bots', () => {
    it('a generic bot authenticates', async () => {
      const res = await me().set(
        'Authorization',
        basic('default-bot@zulip.com', await t.apiKey('default-bot@zulip.com')),
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ is_bot: true, bot_type: 1 });
    });

    it('an incoming-webhook bot → 401 This API is not available to incoming webhook bots.', async () => {
      const res = await me().set(
        'Authorization',
        basic('webhook-bot@zulip.com', await t.apiKey('webhook-bot@zulip.com')),
      );
      expectUnauthorized(res, 'This API is not available to incoming webhook bots.');
    });
  });

  it('public endpoints ignore credentials, even bad ones', async () => {
    const res = await t
      .http()
      .get('/api/v1/server_settings')
      .set('Authorization', basic(HAMLET, 'A'.repeat(32)));
    expect(res.status).toBe(200);
  });

  it('authenticated endpoints refuse every failure the same way for every method', async () => {
    const bad = basic(HAMLET, 'A'.repeat(32));
    for (const req of [
      t.http().post('/api/v1/register'),
      t.http().get('/api/v1/events'),
      t.http().delete('/api/v1/events'),
      t.http().get('/api/v1/users'),
      t.http().get(`/api/v1/users/${HAMLET_ID}`),
    ]) {
      const res = await req.set('Authorization', bad);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' });
      expect(res.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
    }
  });
});
