/**
 * GET /users, GET /users/{user_id}, GET /users/me (zerver/views/users.py), including email
 * visibility (zerver/lib/users.py format_user_row).
 */
import { createHash } from 'node:crypto';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { AuthService } from '../../../src/users/auth.service';

const HAMLET = 'hamlet@zulip.com';
const HAMLET_ID = 10;
const IAGO = 'iago@zulip.com';
const OTHELLO = 'othello@zulip.com';
const POLONIUS = 'polonius@zulip.com';
const SHIVA = 'shiva@zulip.com';
/** Demo realm: ten people (6–15) and three bots (16–18). */
const REALM_USER_IDS = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18];

type UserDict = Record<string, unknown> & {
  user_id: number;
  email: string;
  delivery_email: string | null;
  avatar_url: string | null;
};

const gravatarHash = (email: string) => createHash('md5').update(email.toLowerCase()).digest('hex');

describe('users endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const get = async (path: string, as = HAMLET, query: Record<string, string> = {}) =>
    t
      .http()
      .get(`/api/v1${path}`)
      .query(query)
      .auth(...(await t.auth(as)));

  describe('GET /users', () => {
    it('lists every user of the realm, bots included, with Zulip fields', async () => {
      const res = await get('/users');
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/users', res.status, res.body);
      const members = res.body.members as UserDict[];
      expect(members.map((m) => m.user_id).sort((a, b) => a - b)).toEqual(REALM_USER_IDS);
      const iago = members.find((m) => m.user_id === 11)!;
      expect(iago).toMatchObject({
        email: IAGO,
        delivery_email: IAGO,
        full_name: 'Iago',
        role: 200,
        is_admin: true,
        is_owner: false,
        is_guest: false,
        is_bot: false,
        is_active: true,
        timezone: '',
        avatar_version: 1,
      });
      expect(iago.date_joined).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      expect(iago).not.toHaveProperty('bot_type');
      expect(iago).not.toHaveProperty('profile_data');
      const desdemona = members.find((m) => m.user_id === 9)!;
      expect(desdemona).toMatchObject({ role: 100, is_owner: true, is_admin: true });
      const polonius = members.find((m) => m.user_id === 13)!;
      expect(polonius).toMatchObject({ role: 600, is_guest: true, is_admin: false });
      const bot = members.find((m) => m.email === 'webhook-bot@zulip.com')!;
      expect(bot).toMatchObject({ is_bot: true, bot_type: 2, bot_owner_id: 7 });
    });

    it('does not list users of another realm', async () => {
      const res = await get('/users');
      expect((res.body.members as UserDict[]).some((m) => m.email === 'welcome-bot@zulip.com')).toBe(false);
    });

    it('client_gravatar defaults to true: avatar_url is null for gravatar users', async () => {
      const res = await get('/users');
      for (const m of res.body.members as UserDict[]) expect(m.avatar_url).toBeNull();
    });

    it('client_gravatar=false gives gravatar URLs', async () => {
      const res = await get('/users', HAMLET, { client_gravatar: 'false' });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/users', res.status, res.body);
      const hamlet = (res.body.members as UserDict[]).find((m) => m.user_id === HAMLET_ID)!;
      expect(hamlet.avatar_url).toBe(
        `https://secure.gravatar.com/avatar/${gravatarHash(HAMLET)}?d=identicon&version=1`,
      );
    });

    it('user_ids limits the result', async () => {
      const res = await get('/users', HAMLET, { user_ids: '[12, 8]' });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/users', res.status, res.body);
      expect((res.body.members as UserDict[]).map((m) => m.user_id).sort()).toEqual([12, 8].sort());
      const empty = await get('/users', HAMLET, { user_ids: '[]' });
      expect(empty.body.members).toEqual([]);
    });

    it('user_ids with an unknown or out-of-range id → Invalid user ID, never a 500', async () => {
      for (const id of [999, 99999999999, 0, -1]) {
        const res = await get('/users', HAMLET, { user_ids: `[${HAMLET_ID}, ${id}]` });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ result: 'error', msg: `Invalid user ID: ${id}`, code: 'BAD_REQUEST' });
      }
    });

    it('user_ids of another realm → Invalid user ID', async () => {
      const res = await get('/users', HAMLET, { user_ids: '[1]' });
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe('Invalid user ID: 1');
    });

    it('include_custom_profile_fields adds profile_data', async () => {
      const res = await get('/users', HAMLET, { include_custom_profile_fields: 'true' });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/users', res.status, res.body);
      for (const m of res.body.members as UserDict[]) expect(m.profile_data).toEqual(expect.any(Object));
    });

    it('lists deactivated users as inactive', async () => {
      await t.dataSource.query('UPDATE user_profile SET is_active = false WHERE id = 14');
      try {
        const res = await get('/users', HAMLET, { user_ids: '[14]' });
        expect(res.body.members[0]).toMatchObject({ user_id: 14, is_active: false });
        expectMatchesOpenApi('get', '/users', res.status, res.body);
      } finally {
        await t.dataSource.query('UPDATE user_profile SET is_active = true WHERE id = 14');
      }
    });
  });

  describe('GET /users/{user_id}', () => {
    it('returns one user', async () => {
      const res = await get('/users/12');
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/users/{user_id}', res.status, res.body);
      expect(res.body).toMatchObject({
        result: 'success',
        msg: '',
        user: {
          user_id: 12,
          email: OTHELLO,
          delivery_email: OTHELLO,
          full_name: 'Othello, the Moor of Venice',
          role: 400,
          avatar_url: null,
        },
      });
      expect(res.body.user).not.toHaveProperty('profile_data');
    });

    it('takes client_gravatar and include_custom_profile_fields', async () => {
      const res = await get('/users/12', HAMLET, { client_gravatar: 'false', include_custom_profile_fields: 'true' });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/users/{user_id}', res.status, res.body);
      expect(res.body.user.avatar_url).toContain(gravatarHash(OTHELLO));
      expect(res.body.user.profile_data).toEqual(expect.any(Object));
    });

    it('returns a bot with its type and owner', async () => {
      const res = await get('/users/16');
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/users/{user_id}', res.status, res.body);
      expect(res.body.user).toMatchObject({
        email: 'default-bot@zulip.com',
        is_bot: true,
        bot_type: 1,
        bot_owner_id: 9,
      });
    });

    it.each(['9999', '99999999999', '0', '1'])('an unknown id (%s) → 400 No such user', async (id) => {
      const res = await get(`/users/${id}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
      expectMatchesOpenApi('get', '/users/{user_id}', res.status, res.body);
    });

    it.each(['abc', '-1', '1.5', '9'.repeat(30)])('a non-numeric id (%s) → JSON 404', async (id) => {
      const res = await get(`/users/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    });
  });

  describe('GET /users/me', () => {
    it("returns the caller's own user with max_message_id", async () => {
      const res = await get('/users/me', SHIVA);
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/users/me', res.status, res.body);
      expect(res.body).toMatchObject({
        result: 'success',
        msg: '',
        user_id: 15,
        email: SHIVA,
        delivery_email: SHIVA,
        full_name: 'शिव',
        role: 300,
        is_admin: false,
        is_owner: false,
        is_guest: false,
        is_bot: false,
        is_active: true,
        max_message_id: expect.any(Number),
        profile_data: expect.any(Object),
      });
      // /users/me gives the avatar URL (client_gravatar does not apply).
      expect(res.body.avatar_url).toContain(gravatarHash(SHIVA));
    });

    it('reports its parameters as ignored', async () => {
      const res = await get('/users/me', HAMLET, { client_gravatar: 'true' });
      expect(res.status).toBe(200);
      expect(res.body.ignored_parameters_unsupported).toEqual(['client_gravatar']);
    });
  });

  describe('email visibility', () => {
    /** Hamlet hides his email from everyone but administrators (email_address_visibility = 3). */
    beforeAll(async () => {
      await t.dataSource.query('UPDATE user_profile SET email_address_visibility = 3 WHERE id = $1', [HAMLET_ID]);
      t.app.get(AuthService).invalidateUser(HAMLET_ID);
    });
    afterAll(async () => {
      await t.dataSource.query('UPDATE user_profile SET email_address_visibility = 1 WHERE id = $1', [HAMLET_ID]);
      t.app.get(AuthService).invalidateUser(HAMLET_ID);
    });

    const dummy = `user${HAMLET_ID}@zulip.testserver`;

    it.each([OTHELLO, SHIVA, POLONIUS])('%s sees the dummy email and no delivery_email', async (viewer) => {
      const one = await get(`/users/${HAMLET_ID}`, viewer);
      expect(one.status).toBe(200);
      expect(one.body.user).toMatchObject({ email: dummy, delivery_email: null });
      expectMatchesOpenApi('get', '/users/{user_id}', one.status, one.body);
      const list = await get('/users', viewer, { user_ids: `[${HAMLET_ID}]` });
      expect(list.body.members[0]).toMatchObject({ email: dummy, delivery_email: null });
      expectMatchesOpenApi('get', '/users', list.status, list.body);
    });

    it.each([IAGO, 'desdemona@zulip.com'])('%s (administrator) sees the real delivery_email', async (viewer) => {
      const res = await get(`/users/${HAMLET_ID}`, viewer);
      expect(res.status).toBe(200);
      expect(res.body.user).toMatchObject({ email: dummy, delivery_email: HAMLET });
    });

    it('the user sees his own delivery_email', async () => {
      const me = await get('/users/me', HAMLET);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ user_id: HAMLET_ID, email: dummy, delivery_email: HAMLET });
      const self = await get(`/users/${HAMLET_ID}`, HAMLET);
      expect(self.body.user).toMatchObject({ email: dummy, delivery_email: HAMLET });
    });

    it('other users are unaffected', async () => {
      const res = await get('/users/12', OTHELLO);
      expect(res.body.user).toMatchObject({ email: OTHELLO, delivery_email: OTHELLO });
    });

    it('authentication still uses the delivery email', async () => {
      const res = await t
        .http()
        .get('/api/v1/users/me')
        .auth(HAMLET, await t.apiKey(HAMLET));
      expect(res.status).toBe(200);
      const withDummy = await t
        .http()
        .get('/api/v1/users/me')
        .auth(dummy, await t.apiKey(HAMLET));
      expect(withDummy.status).toBe(401);
      expect(withDummy.body.msg).toBe('Invalid API key');
    });
  });
});
