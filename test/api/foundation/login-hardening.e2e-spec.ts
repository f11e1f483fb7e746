/**
 * POST /fetch_api_key against password guessing (Zulip's rate_limit_auth, 5 attempts per 30
 * minutes per username), and Basic authentication against floods of bad API keys.
 */
import { RealmService } from '../../../src/realm/realm.service';
import { DEMO_PASSWORD } from '../../../src/seed/demo-realm';
import { scryptLoad } from '../../../src/users/api-keys';
import { AuthService } from '../../../src/users/auth.service';
import { expectError } from '../../helpers/api';
import { countQueries } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';

// Starting an app takes a while on a busy machine; the checks themselves are quick.
jest.setTimeout(120_000);
const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const CORDELIA = 'cordelia@zulip.com';
const PROSPERO = 'prospero@zulip.com';
const INCORRECT = 'Your username or password is incorrect';

function expectRateLimited(res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    result: 'error',
    msg: 'API usage exceeded rate limit',
    code: 'RATE_LIMIT_HIT',
    'retry-after': expect.any(Number),
  });
  expect(res.body['retry-after']).toBeGreaterThan(1700);
  expect(res.body['retry-after']).toBeLessThanOrEqual(1800);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(1700);
}

describe('POST /fetch_api_key: per-username limit (5 per 30 minutes)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_RATE_LIMIT_USERNAME: '5/1800', AUTH_RATE_LIMIT_IP: 'off' });
  });
  afterAll(() => t.close());
  const fetchKey = (username: string, password: string) =>
    t.http().post('/api/v1/fetch_api_key').type('form').send({ username, password });

  it('five wrong passwords, then even the right one is refused with RATE_LIMIT_HIT; other users are not', async () => {
    for (let i = 0; i < 5; i++)
      expectError(await fetchKey(HAMLET, `wrong-${i}`), 401, INCORRECT, 'AUTHENTICATION_FAILED');
    const before = scryptLoad().total;
    expectRateLimited(await fetchKey(HAMLET, DEMO_PASSWORD));
    // In any case, and without hashing anything.
    expectRateLimited(await fetchKey(HAMLET.toUpperCase(), 'wrong'));
    expect(scryptLoad().total).toBe(before);
    expect((await fetchKey(OTHELLO, DEMO_PASSWORD)).status).toBe(200);
  });

  it('a successful login clears the count (Zulip clear_history)', async () => {
    for (let i = 0; i < 4; i++) expectError(await fetchKey(CORDELIA, 'wrong'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
    expect((await fetchKey(CORDELIA, DEMO_PASSWORD)).status).toBe(200);
    for (let i = 0; i < 4; i++) expectError(await fetchKey(CORDELIA, 'wrong'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
    expect((await fetchKey(CORDELIA, DEMO_PASSWORD)).status).toBe(200);
  });

  it('unknown usernames are limited the same way (nothing tells them apart)', async () => {
    for (let i = 0; i < 5; i++) {
      expectError(await fetchKey('nobody@zulip.com', 'x'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
    }
    expectRateLimited(await fetchKey('nobody@zulip.com', 'x'));
  });
});

describe('POST /fetch_api_key: per-address limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_RATE_LIMIT_USERNAME: 'off', AUTH_RATE_LIMIT_IP: '3/1800', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  it('counts every attempt from one address, across usernames, and successes do not reset it', async () => {
    const fetchKey = (username: string, password: string) =>
      t.http().post('/api/v1/fetch_api_key').type('form').send({ username, password });
    expectError(await fetchKey(HAMLET, 'wrong'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
    expect((await fetchKey(OTHELLO, DEMO_PASSWORD)).status).toBe(200);
    expectError(await fetchKey(CORDELIA, 'wrong'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
    expectRateLimited(await fetchKey(PROSPERO, DEMO_PASSWORD));
  });

  it('behind a trusted proxy (TRUST_PROXY), clients are told apart by X-Forwarded-For', async () => {
    const from = (address: string) =>
      t
        .http()
        .post('/api/v1/fetch_api_key')
        .set('X-Forwarded-For', address)
        .type('form')
        .send({ username: HAMLET, password: 'wrong' });
    for (let i = 0; i < 3; i++) expectError(await from('203.0.113.7'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
    expectRateLimited(await from('203.0.113.7'));
    expectError(await from('203.0.113.8'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
  });
});

describe('POST /fetch_api_key: what a wrong password learns', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  const fetchKey = (username: string, password: string) =>
    t.http().post('/api/v1/fetch_api_key').type('form').send({ username, password });

  it('an unknown user and a user without a password cost one scrypt, like a real account', async () => {
    for (const username of [HAMLET, 'nobody@zulip.com', 'default-bot@zulip.com']) {
      const before = scryptLoad().total;
      expectError(await fetchKey(username, 'wrong'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
      expect(scryptLoad().total).toBe(before + 1);
    }
  });

  it('a deactivated account or organization is reported only after the right password', async () => {
    const [{ id }] = await t.dataSource.query<Array<{ id: number }>>(
      'SELECT id FROM user_profile WHERE delivery_email = $1',
      [PROSPERO],
    );
    await t.dataSource.query('UPDATE user_profile SET is_active = false WHERE id = $1', [id]);
    t.app.get(AuthService).invalidateUser(id);
    try {
      expectError(await fetchKey(PROSPERO, 'wrong'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
      expectError(await fetchKey(PROSPERO, DEMO_PASSWORD), 401, 'Account is deactivated', 'USER_DEACTIVATED');
    } finally {
      await t.dataSource.query('UPDATE user_profile SET is_active = true WHERE id = $1', [id]);
    }
    const realms = t.app.get(RealmService);
    const realm = (await realms.findByStringId('zulip'))!;
    await realms.updateRealm(realm.id, { deactivated: true });
    try {
      expectError(await fetchKey(HAMLET, 'wrong'), 401, INCORRECT, 'AUTHENTICATION_FAILED');
      expectError(
        await fetchKey(HAMLET, DEMO_PASSWORD),
        401,
        'This organization has been deactivated',
        'REALM_DEACTIVATED',
      );
    } finally {
      await realms.updateRealm(realm.id, { deactivated: false });
    }
  });
});

describe('Basic authentication: bad API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('an unknown key costs a query once; repeating it costs none (short negative cache)', async () => {
    const bad = 'Zz0'.repeat(10) + 'Qq';
    const me = () => t.http().get('/api/v1/users/me').auth(HAMLET, bad);
    const first = await countQueries(me);
    expectError(first.result, 401, 'Invalid API key', 'UNAUTHORIZED');
    expect(first.count).toBeGreaterThan(0);
    const again = await countQueries(me);
    expectError(again.result, 401, 'Invalid API key', 'UNAUTHORIZED');
    expect(again.count).toBe(0);
    // The right key is not affected.
    expect(
      (
        await t
          .http()
          .get('/api/v1/users/me')
          .auth(...(await t.auth(HAMLET)))
      ).status,
    ).toBe(200);
  });
});
