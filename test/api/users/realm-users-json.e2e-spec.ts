/**
 * POST /register's realm_users / realm_non_active_users and GET /users (whole realm) are sent as
 * JSON serialised ahead of time from the realm's cached rows (UsersService.listUsersJson,
 * UserDictJson). They must be byte for byte what the dicts of listUsers serialise to, for every
 * kind of viewer, and follow every change at once.
 */
import { Realm } from '../../../src/realm/realm.entity';
import { RealmService } from '../../../src/realm/realm.service';
import { UserProfile } from '../../../src/users/user.entity';
import { AuthService } from '../../../src/users/auth.service';
import { UsersService } from '../../../src/users/users.service';
import { setRealm } from '../messaging/helpers';
import { call, DESDEMONA, HAMLET, IAGO, OTHELLO, POLONIUS, SHIVA } from '../../helpers/api';
import { startTestApp, TestApp } from '../../helpers/test-app';

describe('realm users serialised ahead of time', () => {
  let t: TestApp;
  let realm: Realm;
  const ids: Record<string, number> = {};
  let fieldId: number;

  const ok = (res: { status: number; body: unknown }) => {
    expect(res.body).toMatchObject({ result: 'success' });
    return res.body as Record<string, unknown>;
  };
  const viewer = async (email: string): Promise<UserProfile> =>
    (await t.app.get(UsersService).findByEmailInRealm(realm.id, email))!;

  beforeAll(async () => {
    t = await startTestApp();
    realm = (await t.app.get(RealmService).findByStringId('zulip'))!;
    for (const email of [HAMLET, OTHELLO, IAGO, POLONIUS, SHIVA, DESDEMONA]) ids[email] = (await viewer(email)).id;
    // Every email visibility among the users, a non-Latin-1 name, a deactivated user, a profile field.
    await t.dataSource.query(
      `UPDATE user_profile SET email_address_visibility = 1 + (id % 5) WHERE realm_id = $1 AND NOT is_bot`,
      [realm.id],
    );
    t.app.get(AuthService).invalidateAll();
    ok(await call(t, 'patch', `/users/${ids[OTHELLO]}`, IAGO, { full_name: 'Othello «the Moor» 🗡' }));
    ok(await call(t, 'delete', `/users/${ids[SHIVA]}`, IAGO));
    [{ id: fieldId }] = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM custom_profile_field WHERE realm_id = $1 AND field_type = 1 ORDER BY id LIMIT 1`,
      [realm.id],
    );
    ok(
      await call(t, 'patch', `/users/${ids[HAMLET]}`, IAGO, {
        profile_data: [{ id: fieldId, value: 'Elsinore "castle"' }],
      }),
    );
  });
  afterAll(() => t.close());

  /** listUsers' dicts (the reference, formatted per request) split as POST /register splits them. */
  async function reference(email: string, clientGravatar: boolean, includeCustomProfileFields: boolean, of = realm) {
    const all = await t.app
      .get(UsersService)
      .listUsers(await viewer(email), of, { clientGravatar, includeCustomProfileFields, userListIncomplete: false });
    return { all, active: all.filter((u) => u.is_active), nonActive: all.filter((u) => !u.is_active) };
  }

  it.each([DESDEMONA, IAGO, HAMLET, POLONIUS, OTHELLO])(
    'is byte for byte the formatted dicts for %s, with and without gravatars and profile data',
    async (email) => {
      const users = t.app.get(UsersService);
      for (const clientGravatar of [false, true]) {
        for (const includeCustomProfileFields of [false, true]) {
          const ref = await reference(email, clientGravatar, includeCustomProfileFields);
          const opts = { clientGravatar, includeCustomProfileFields };
          const split = await users.listUsersJson(await viewer(email), realm, { ...opts, split: 'activity' });
          expect(split!.arrays.map((a) => a.bytes.toString('utf8'))).toEqual([
            JSON.stringify(ref.active),
            JSON.stringify(ref.nonActive),
          ]);
          const whole = await users.listUsersJson(await viewer(email), realm, { ...opts, split: 'none' });
          expect(whole!.arrays[0].bytes.toString('utf8')).toBe(JSON.stringify(ref.all));
        }
      }
    },
  );

  it('POST /register and GET /users send them, and the viewer sees their own address', async () => {
    const res = await call(t, 'post', '/register', HAMLET, {
      fetch_event_types: ['realm_user'],
      client_gravatar: false,
    });
    expect(res.text).toBe(JSON.stringify(res.body));
    const ref = await reference(HAMLET, false, true);
    expect(res.body.realm_users).toEqual(ref.active);
    expect(res.body.realm_non_active_users).toEqual(ref.nonActive);
    expect(res.body.realm_non_active_users.map((u: { user_id: number }) => u.user_id)).toContain(ids[SHIVA]);
    const me = (res.body.realm_users as Array<Record<string, unknown>>).find((u) => u.user_id === ids[HAMLET])!;
    expect(me.delivery_email).toBe(HAMLET);
    expect(me.profile_data).toMatchObject({
      [fieldId]: { value: 'Elsinore "castle"', rendered_value: '<p>Elsinore "castle"</p>' },
    });
    expect(res.body.email).toBe(me.email);

    const list = await call(t, 'get', '/users', HAMLET, { include_custom_profile_fields: true });
    expect(list.text).toBe(JSON.stringify(list.body));
    expect(list.body.members).toEqual((await reference(HAMLET, true, true)).all);
  });

  it('a change to a user, or to profile data, shows in the very next answer', async () => {
    const names = async () =>
      (
        ok(await call(t, 'post', '/register', OTHELLO, { fetch_event_types: ['realm_user'] })).realm_users as Array<{
          user_id: number;
          full_name: string;
          profile_data: Record<string, { value: string }>;
        }>
      ).find((u) => u.user_id === ids[HAMLET])!;
    expect((await names()).full_name).toBe('King Hamlet');
    ok(await call(t, 'patch', `/users/${ids[HAMLET]}`, IAGO, { full_name: 'Prince Hamlet' }));
    expect((await names()).full_name).toBe('Prince Hamlet');
    ok(await call(t, 'patch', `/users/${ids[HAMLET]}`, IAGO, { profile_data: [{ id: fieldId, value: 'Wittenberg' }] }));
    expect((await names()).profile_data[fieldId].value).toBe('Wittenberg');
  });

  it('a guest who may not see everyone gets placeholders, formatted per request', async () => {
    const [{ id: members }] = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM user_group WHERE realm_id = $1 AND name = 'role:members'`,
      [realm.id],
    );
    const everyone = realm.can_access_all_users_group;
    await setRealm(t, { can_access_all_users_group: members });
    try {
      const restricted = (await t.app.get(RealmService).findByStringId('zulip'))!;
      const opts = { clientGravatar: false, includeCustomProfileFields: true };
      const users = t.app.get(UsersService);
      expect(await users.listUsersJson(await viewer(POLONIUS), restricted, { ...opts, split: 'none' })).toBeNull();
      const res = await call(t, 'post', '/register', POLONIUS, { fetch_event_types: ['realm_user'] });
      const ref = await reference(POLONIUS, true, true, restricted);
      expect(res.body.realm_users).toEqual(ref.active);
      expect(res.body.realm_users.some((u: { full_name: string }) => u.full_name === 'Unknown user')).toBe(true);
    } finally {
      await setRealm(t, { can_access_all_users_group: everyone });
    }
  });
});
