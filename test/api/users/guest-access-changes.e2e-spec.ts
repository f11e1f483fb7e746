/**
 * can_access_all_users_group when who is restricted changes: a user's role changing to or from
 * guest, and the realm's setting itself. As Zulip (do_change_user_role,
 * do_change_realm_permission_group_setting), neither sends `realm_user` add or remove events: the
 * role change is one `realm_user` update, the setting one `realm` update_dict; reads answer with
 * the new access at once, and a client holding the old user list refreshes it by registering
 * again (docs/DECISIONS.md).
 *
 * Set-up: Polonius (guest) leaves Verona and is subscribed to Venice (Desdemona, Prospero), so
 * Hamlet is inaccessible to him while the realm restricts the setting to role:members.
 */
import type { Response } from 'supertest';
import { RealmService } from '../../../src/realm/realm.service';
import { UserAdminService } from '../../../src/users/user-admin.service';
import { countQueries } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  addSubscribers,
  call,
  createUsers,
  DESDEMONA,
  expectSuccess,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  setRealm,
  systemGroupId,
  takeEvents,
  unsubscribe,
  userId,
} from '../messaging/helpers';

type UserDict = Record<string, unknown> & { user_id: number; full_name: string };

const GUEST = 600;
const MEMBER = 400;

describe('guest access when roles or the realm setting change', () => {
  let t: TestApp;
  const id: Record<string, number> = {};
  let everyone: number;
  let members: number;

  const restrict = (on: boolean) => setRealm(t, { can_access_all_users_group: on ? members : everyone });
  const ok = (res: Response) => expectSuccess(res);
  const listed = async (email: string) =>
    (ok(await call(t, 'get', '/users', email)).members as UserDict[]).map((u) => u.user_id);
  const registeredNames = async (email: string) => {
    const body = ok(await call(t, 'post', '/register', email, { fetch_event_types: ['realm_user'] }));
    return new Map((body.realm_users as UserDict[]).map((u) => [u.user_id, u.full_name]));
  };
  const setRole = async (email: string, role: number) =>
    ok(await call(t, 'patch', `/users/${id[email]}`, IAGO, { role }));

  beforeAll(async () => {
    t = await startTestApp();
    for (const e of [HAMLET, OTHELLO, POLONIUS, PROSPERO, DESDEMONA, IAGO]) id[e] = await userId(t, e);
    everyone = await systemGroupId(t, 'role:everyone');
    members = await systemGroupId(t, 'role:members');
    await unsubscribe(t, POLONIUS, 'Verona');
    await addSubscribers(t, 'Venice', [id[POLONIUS]]);
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await setRole(POLONIUS, GUEST);
    await setRole(OTHELLO, MEMBER);
    await restrict(false);
  });

  it('a guest promoted to member sees everyone at once, told only of the role', async () => {
    await restrict(true);
    expect(await listed(POLONIUS)).not.toContain(id[HAMLET]);
    const own = await openQueue(t, POLONIUS, ['realm_user']);
    await setRole(POLONIUS, MEMBER);
    expect(await takeEvents(t, own)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: id[POLONIUS], role: MEMBER } },
    ]);
    expect(await listed(POLONIUS)).toContain(id[HAMLET]);
    expect((await registeredNames(POLONIUS)).get(id[HAMLET])).toBe('King Hamlet');
    expect(ok(await call(t, 'get', `/users/${id[HAMLET]}`, POLONIUS)).user).toMatchObject({ user_id: id[HAMLET] });
  });

  it('a member demoted to guest loses sight of those they share nothing with at once', async () => {
    const [demoted] = await createUsers(t, 'demoted', 1);
    const email = 'demoted0@zulip.com';
    id[email] = demoted;
    await restrict(true);
    const own = await openQueue(t, email, ['realm_user']);
    await setRole(email, GUEST);
    expect(await takeEvents(t, own)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: demoted, role: GUEST } },
    ]);
    const seen = await listed(email);
    expect(seen).toContain(demoted);
    expect(seen).not.toContain(id[HAMLET]);
    expect((await registeredNames(email)).get(id[HAMLET])).toBe('Unknown user');
    expect((await call(t, 'get', `/users/${id[HAMLET]}`, email)).status).toBe(400);
  });

  it('the role change reaches those who may see the user, whatever the new role', async () => {
    await restrict(true);
    const guest = await openQueue(t, POLONIUS, ['realm_user']);
    const member = await openQueue(t, HAMLET, ['realm_user']);
    // Othello shares nothing with Polonius: demoting him tells Polonius nothing.
    await setRole(OTHELLO, GUEST);
    await setRole(PROSPERO, 300);
    await setRole(PROSPERO, MEMBER);
    const personIds = (events: Array<Record<string, unknown>>) =>
      events.map((e) => (e.person as { user_id: number }).user_id);
    expect(personIds(await takeEvents(t, guest))).toEqual([id[PROSPERO], id[PROSPERO]]);
    expect(personIds(await takeEvents(t, member))).toEqual([id[OTHELLO], id[PROSPERO], id[PROSPERO]]);
  });

  it('the change-role command sends the same events as PATCH /users/{user_id}', async () => {
    await restrict(true);
    const own = await openQueue(t, POLONIUS, ['realm_user', 'user_group']);
    const realm = (await t.app.get(RealmService).findByStringId('zulip'))!;
    const viaCommand = async (role: number) =>
      t.app.get(UserAdminService).changeRoleByOperator(realm.id, id[POLONIUS], role);
    await viaCommand(MEMBER);
    const fromCommand = await takeEvents(t, own);
    await setRole(POLONIUS, GUEST);
    await takeEvents(t, own);
    await setRole(POLONIUS, MEMBER);
    expect(await takeEvents(t, own)).toEqual(fromCommand);
    expect(fromCommand[0]).toEqual({
      type: 'realm_user',
      op: 'update',
      person: { user_id: id[POLONIUS], role: MEMBER },
    });
    expect(fromCommand.filter((e) => e.type === 'user_group')).toHaveLength(3);
    expect(await listed(POLONIUS)).toContain(id[HAMLET]);
    await viaCommand(MEMBER); // unchanged: nothing sent
    expect(await takeEvents(t, own)).toEqual([]);
  });

  it('changing the realm setting applies at once and sends only the realm update', async () => {
    const guest = await openQueue(t, POLONIUS, ['realm', 'realm_user']);
    ok(await call(t, 'patch', '/realm', DESDEMONA, { can_access_all_users_group: { new: members } }));
    expect(await takeEvents(t, guest)).toEqual([
      { type: 'realm', op: 'update_dict', property: 'default', data: { can_access_all_users_group: members } },
    ]);
    expect(await listed(POLONIUS)).not.toContain(id[HAMLET]);
    expect((await registeredNames(POLONIUS)).get(id[HAMLET])).toBe('Unknown user');
    ok(await call(t, 'patch', '/realm', DESDEMONA, { can_access_all_users_group: { new: everyone } }));
    expect(await takeEvents(t, guest)).toEqual([
      { type: 'realm', op: 'update_dict', property: 'default', data: { can_access_all_users_group: everyone } },
    ]);
    expect(await listed(POLONIUS)).toContain(id[HAMLET]);
    expect((await registeredNames(POLONIUS)).get(id[HAMLET])).toBe('King Hamlet');
  });

  it('a role change costs the same statements whatever the number of guests in the realm', async () => {
    await restrict(true);
    await setRole(OTHELLO, GUEST);
    const once = await countQueries(() => setRole(OTHELLO, MEMBER));
    await setRole(OTHELLO, GUEST);
    await setRole(PROSPERO, GUEST);
    await setRole(HAMLET, GUEST);
    try {
      const again = await countQueries(() => setRole(OTHELLO, MEMBER));
      expect(again.count).toBe(once.count);
    } finally {
      await setRole(PROSPERO, MEMBER);
      await setRole(HAMLET, MEMBER);
    }
  });
});
