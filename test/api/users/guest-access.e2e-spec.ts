/**
 * can_access_all_users_group: a guest in a realm that restricts it sees only the users they share
 * a channel or a direct-message conversation with (and bots); everything else about other users
 * is withheld or shown as Zulip's "Unknown user" placeholder (zerver/lib/users.py).
 *
 * Set-up: Polonius (guest) leaves Verona, the channel everyone shares, and is subscribed to
 * Venice (Desdemona, Prospero, Zoe). Hamlet, Othello, Cordelia, Iago … are then inaccessible to
 * him once the owner restricts the setting to role:members.
 */
import type { Response } from 'supertest';
import { PresenceService } from '../../../src/presence/presence.service';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { UserAdminService } from '../../../src/users/user-admin.service';
import { countQueries } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  addSubscribers,
  BOT,
  call,
  CORDELIA,
  createUsers,
  DESDEMONA,
  expectError,
  expectSuccess,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  sendChannel,
  sendDirect,
  setRealm,
  systemGroupId,
  takeEvents,
  unsubscribe,
  userId,
} from '../messaging/helpers';
import { expectMatchesOpenApi } from '../../helpers/openapi';

type UserDict = Record<string, unknown> & { user_id: number; full_name: string };

const UNKNOWN = (id: number) => ({
  email: `user${id}@zulip.testserver`,
  user_id: id,
  avatar_version: 1,
  is_admin: false,
  is_owner: false,
  is_guest: false,
  is_bot: false,
  full_name: 'Unknown user',
  timezone: '',
  is_active: true,
  date_joined: '1970-01-01T00:00:00+00:00',
  delivery_email: null,
  role: 400,
  avatar_url: '/static/images/unknown-user-avatar.png',
  profile_data: {},
});

describe('guests and can_access_all_users_group', () => {
  let t: TestApp;
  const id: Record<string, number> = {};
  let everyone: number;
  let members: number;

  const restrict = (on: boolean) => setRealm(t, { can_access_all_users_group: on ? members : everyone });
  const ok = (res: Response) => expectSuccess(res);
  const memberIds = async (email: string, params: Record<string, unknown> = {}) =>
    (ok(await call(t, 'get', '/users', email, params)).members as UserDict[]).map((u) => u.user_id);

  beforeAll(async () => {
    t = await startTestApp();
    for (const e of [HAMLET, OTHELLO, CORDELIA, POLONIUS, PROSPERO, DESDEMONA, IAGO, BOT, 'ZOE@zulip.com']) {
      id[e] = await userId(t, e);
    }
    everyone = await systemGroupId(t, 'role:everyone');
    members = await systemGroupId(t, 'role:members');
    await unsubscribe(t, POLONIUS, 'Verona');
    await addSubscribers(t, 'Venice', [id[POLONIUS]]);
  });
  afterAll(() => t.close());
  afterEach(() => restrict(false));

  describe('GET /users', () => {
    it('leaves out the users a restricted guest may not see (bots stay)', async () => {
      await restrict(true);
      const seen = await memberIds(POLONIUS);
      expect(seen).toEqual(expect.arrayContaining([id[POLONIUS], id[PROSPERO], id[DESDEMONA], id[BOT]]));
      expect(seen).not.toContain(id[HAMLET]);
      expect(seen).not.toContain(id[IAGO]);
      const res = await call(t, 'get', '/users', POLONIUS);
      expectMatchesOpenApi('get', '/users', 200, res.body);
      // user_ids naming an inaccessible user: left out, as an unrestricted list would show it.
      expect(await memberIds(POLONIUS, { user_ids: [id[HAMLET], id[PROSPERO]] })).toEqual([id[PROSPERO]]);
    });

    it('lists everyone without the restriction, and for members with it', async () => {
      expect(await memberIds(POLONIUS)).toContain(id[HAMLET]);
      await restrict(true);
      const forMember = await memberIds(OTHELLO);
      expect(forMember).toContain(id[HAMLET]);
      expect(forMember).toContain(id[POLONIUS]);
    });

    it('costs the same statements whatever the number of users and subscriptions', async () => {
      await restrict(true);
      await memberIds(POLONIUS); // warm caches
      const before = await countQueries(() => memberIds(POLONIUS));
      const extra = await createUsers(t, 'countguest', 6);
      await addSubscribers(t, 'Venice', extra.slice(0, 3));
      await memberIds(POLONIUS); // the new users reload the realm's cached user rows
      const after = await countQueries(() => memberIds(POLONIUS));
      expect(after.result).toEqual(expect.arrayContaining(extra.slice(0, 3)));
      expect(after.result).not.toContain(extra[3]);
      expect(after.count).toBe(before.count);
    });
  });

  describe('GET /users/{user_id} and /users/{email}', () => {
    it('refuses an inaccessible user with "Insufficient permission", as Zulip', async () => {
      await restrict(true);
      expectError(await call(t, 'get', `/users/${id[HAMLET]}`, POLONIUS), 400, 'Insufficient permission');
      expectError(await call(t, 'get', `/users/${HAMLET}`, POLONIUS), 400, 'Insufficient permission');
      expectError(
        await call(t, 'get', `/users/user${id[HAMLET]}@zulip.testserver`, POLONIUS),
        400,
        'Insufficient permission',
      );
      // Presence reads users the same way (access_user_by_id, for_admin=False).
      expectError(await call(t, 'get', `/users/${id[HAMLET]}/presence`, POLONIUS), 400, 'Insufficient permission');
    });

    it('answers for accessible users, bots, and everyone when unrestricted or for members', async () => {
      await restrict(true);
      expect((ok(await call(t, 'get', `/users/${id[PROSPERO]}`, POLONIUS)).user as UserDict).full_name).toBe(
        'Prospero from The Tempest',
      );
      expect((ok(await call(t, 'get', `/users/${id[BOT]}`, POLONIUS)).user as UserDict).user_id).toBe(id[BOT]);
      expect((ok(await call(t, 'get', `/users/${id[POLONIUS]}`, POLONIUS)).user as UserDict).user_id).toBe(
        id[POLONIUS],
      );
      expect((ok(await call(t, 'get', `/users/${id[HAMLET]}`, OTHELLO)).user as UserDict).full_name).toBe(
        'King Hamlet',
      );
      await restrict(false);
      expect((ok(await call(t, 'get', `/users/${id[HAMLET]}`, POLONIUS)).user as UserDict).full_name).toBe(
        'King Hamlet',
      );
    });

    it("answers another realm's ids with No such user", async () => {
      const realms = t.app.get(RealmService);
      const lear =
        (await realms.findByStringId('lear')) ?? (await realms.createRealm({ stringId: 'lear', name: 'Lear' }));
      const { user } = await t.app
        .get(UsersService)
        .createUser(lear, { email: 'king@lear.com', fullName: 'King Lear' });
      await restrict(true);
      expectError(await call(t, 'get', `/users/${user.id}`, POLONIUS), 400, 'No such user');
      expectError(await call(t, 'get', `/users/${user.id}`, OTHELLO), 400, 'No such user');
      expectError(
        await call(t, 'get', '/users', POLONIUS, { user_ids: [user.id] }),
        400,
        `Invalid user ID: ${user.id}`,
      );
    });
  });

  describe('POST /register', () => {
    const register = async (email: string, capabilities: Record<string, boolean> = {}) =>
      ok(
        await call(t, 'post', '/register', email, {
          fetch_event_types: ['realm_user'],
          client_capabilities: capabilities,
        }),
      ) as { realm_users: UserDict[]; realm_non_active_users: UserDict[] };

    it('sends "Unknown user" placeholders, or leaves them out with user_list_incomplete', async () => {
      await restrict(true);
      const full = await register(POLONIUS);
      expect(full.realm_users.find((u) => u.user_id === id[HAMLET])).toEqual(UNKNOWN(id[HAMLET]));
      expect(full.realm_users.find((u) => u.user_id === id[PROSPERO])?.full_name).toBe('Prospero from The Tempest');
      const partial = await register(POLONIUS, { user_list_incomplete: true });
      expect(partial.realm_users.map((u) => u.user_id)).not.toContain(id[HAMLET]);
      expect(partial.realm_users.map((u) => u.user_id)).toContain(id[PROSPERO]);
      const member = await register(OTHELLO);
      expect(member.realm_users.find((u) => u.user_id === id[HAMLET])?.full_name).toBe('King Hamlet');
      await restrict(false);
      expect((await register(POLONIUS)).realm_users.find((u) => u.user_id === id[HAMLET])?.full_name).toBe(
        'King Hamlet',
      );
    });

    it('shows an inaccessible deactivated user as an active placeholder, not in realm_non_active_users', async () => {
      const [gone] = await createUsers(t, 'goneguest', 1);
      ok(await call(t, 'delete', `/users/${gone}`, IAGO));
      await restrict(true);
      const guest = await register(POLONIUS);
      expect(guest.realm_non_active_users.map((u) => u.user_id)).not.toContain(gone);
      expect(guest.realm_users.find((u) => u.user_id === gone)).toEqual(UNKNOWN(gone));
      expect((await register(OTHELLO)).realm_non_active_users.map((u) => u.user_id)).toContain(gone);
    });

    it('costs the same statements whatever the number of users', async () => {
      await restrict(true);
      await register(POLONIUS);
      const before = await countQueries(() => register(POLONIUS));
      await createUsers(t, 'countreg', 5);
      await register(POLONIUS); // the new users reload the realm's cached user rows
      const after = await countQueries(() => register(POLONIUS));
      expect(after.count).toBe(before.count);
    });
  });

  describe('realm_user events', () => {
    const personIds = (events: Array<Record<string, unknown>>) =>
      events.filter((e) => e.type === 'realm_user').map((e) => (e.person as { user_id: number }).user_id);

    it('a name change reaches only those who may see the user', async () => {
      await restrict(true);
      const guest = await openQueue(t, POLONIUS, ['realm_user']);
      const member = await openQueue(t, OTHELLO, ['realm_user']);
      ok(await call(t, 'patch', '/settings', HAMLET, { full_name: 'Prince Hamlet' }));
      ok(await call(t, 'patch', '/settings', PROSPERO, { full_name: 'Prospero the Mage' }));
      expect(personIds(await takeEvents(t, guest))).toEqual([id[PROSPERO]]);
      expect(personIds(await takeEvents(t, member))).toEqual([id[HAMLET], id[PROSPERO]]);
      await restrict(false);
      ok(await call(t, 'patch', '/settings', HAMLET, { full_name: 'King Hamlet' }));
      expect(personIds(await takeEvents(t, guest))).toEqual([id[HAMLET]]);
      ok(await call(t, 'patch', '/settings', PROSPERO, { full_name: 'Prospero from The Tempest' }));
    });

    it('a time zone, role or profile-field change reaches only those who may see the user', async () => {
      const [field] = await t.dataSource.query<Array<{ id: number }>>(
        `SELECT f.id FROM custom_profile_field f JOIN realm r ON r.id = f.realm_id
          WHERE r.string_id = 'zulip' AND f.field_type = 1 ORDER BY f.id LIMIT 1`,
      );
      await restrict(true);
      const guest = await openQueue(t, POLONIUS, ['realm_user']);
      const member = await openQueue(t, OTHELLO, ['realm_user']);
      ok(await call(t, 'patch', '/settings', HAMLET, { timezone: 'Asia/Kolkata' }));
      ok(await call(t, 'patch', `/users/${id[HAMLET]}`, IAGO, { role: 300 }));
      ok(
        await call(t, 'patch', `/users/${id[HAMLET]}`, IAGO, {
          profile_data: [{ id: field.id, value: 'Elsinore' }],
        }),
      );
      ok(await call(t, 'patch', `/users/${id[PROSPERO]}`, IAGO, { profile_data: [{ id: field.id, value: 'Milan' }] }));
      expect(personIds(await takeEvents(t, guest))).toEqual([id[PROSPERO]]);
      expect(personIds(await takeEvents(t, member))).toEqual([id[HAMLET], id[HAMLET], id[HAMLET], id[PROSPERO]]);
      ok(await call(t, 'patch', `/users/${id[HAMLET]}`, IAGO, { role: 400 }));
    });

    it('deactivation reaches only those who may see the user', async () => {
      const [a, b] = await createUsers(t, 'deactguest', 2);
      await addSubscribers(t, 'Venice', [b]);
      await restrict(true);
      const guest = await openQueue(t, POLONIUS, ['realm_user']);
      ok(await call(t, 'delete', `/users/${a}`, IAGO));
      ok(await call(t, 'delete', `/users/${b}`, IAGO));
      expect(personIds(await takeEvents(t, guest))).toEqual([b]);
    });

    it('a new user reaches a restricted guest as the "Unknown user" placeholder', async () => {
      // The realm row as a request would see it, after the setting changed.
      const create = async (email: string) =>
        t.app.get(UserAdminService).createAccount((await t.app.get(RealmService).findByStringId('zulip'))!, {
          email,
          fullName: 'Newcomer',
          password: 'Ab1!ab1!ab1!xyz',
        });
      await restrict(true);
      const guest = await openQueue(t, POLONIUS, ['realm_user']);
      const member = await openQueue(t, OTHELLO, ['realm_user']);
      const user = await create('newcomer1@zulip.com');
      const added = (await takeEvents(t, guest)).filter((e) => e.type === 'realm_user');
      expect(added).toEqual([{ type: 'realm_user', op: 'add', person: UNKNOWN(user.id) }]);
      const real = (await takeEvents(t, member)).filter((e) => e.type === 'realm_user');
      expect((real[0].person as UserDict).full_name).toBe('Newcomer');
      await restrict(false);
      const second = await create('newcomer2@zulip.com');
      const unrestricted = (await takeEvents(t, guest)).filter((e) => e.type === 'realm_user');
      expect(unrestricted[0].person as UserDict).toMatchObject({ user_id: second.id, full_name: 'Newcomer' });
    });
  });

  describe('GET /messages', () => {
    it('shows a sender the guest may no longer see as "Unknown user"', async () => {
      const [sender] = await createUsers(t, 'leaver', 1);
      await addSubscribers(t, 'Venice', [sender]);
      const messageId = await sendChannel(t, 'leaver0@zulip.com', 'Venice', 'farewell', 'bye all');
      await unsubscribe(t, 'leaver0@zulip.com', 'Venice');
      const fetch = async (email: string) => {
        const res = await call(t, 'get', '/messages', email, {
          anchor: messageId,
          num_before: 0,
          num_after: 0,
          narrow: [{ operator: 'channel', operand: 'Venice' }],
        });
        expectMatchesOpenApi('get', '/messages', 200, res.body);
        return (ok(res).messages as Array<Record<string, unknown>>)[0];
      };
      await restrict(true);
      expect(await fetch(POLONIUS)).toMatchObject({
        id: messageId,
        sender_id: sender,
        sender_full_name: 'Unknown user',
        sender_email: `user${sender}@zulip.testserver`,
        avatar_url: '/static/images/unknown-user-avatar.png',
      });
      expect(await fetch(PROSPERO)).toMatchObject({ sender_full_name: 'leaver 0' });
      const single = ok(await call(t, 'get', `/messages/${messageId}`, POLONIUS)).message as Record<string, unknown>;
      expect(single.sender_full_name).toBe('Unknown user');
      await restrict(false);
      expect(await fetch(POLONIUS)).toMatchObject({ sender_full_name: 'leaver 0' });
    });
  });

  describe('message events', () => {
    it('a channel message from a sender the guest may not see comes as from "Unknown user"', async () => {
      await restrict(true);
      const guest = await openQueue(t, POLONIUS, ['message']);
      const member = await openQueue(t, PROSPERO, ['message']);
      // Iago is not subscribed to Venice and shares nothing with Polonius.
      await sendChannel(t, IAGO, 'Venice', 'visit', 'hello Venice');
      const [forGuest] = await takeEvents(t, guest);
      expect(forGuest.message).toMatchObject({
        sender_id: id[IAGO],
        sender_full_name: 'Unknown user',
        sender_email: `user${id[IAGO]}@zulip.testserver`,
        avatar_url: '/static/images/unknown-user-avatar.png',
      });
      const [forMember] = await takeEvents(t, member);
      expect(forMember.message).toMatchObject({ sender_id: id[IAGO], sender_full_name: 'Iago' });
      // A subscribed sender shares the channel: shown as themselves.
      await sendChannel(t, PROSPERO, 'Venice', 'visit', 'welcome');
      const [fromPeer] = await takeEvents(t, guest);
      expect(fromPeer.message).toMatchObject({ sender_id: id[PROSPERO] });
      expect((fromPeer.message as UserDict).sender_full_name).not.toBe('Unknown user');
      await restrict(false);
      await sendChannel(t, IAGO, 'Venice', 'visit', 'hello again');
      const [unrestricted] = await takeEvents(t, guest);
      expect(unrestricted.message).toMatchObject({ sender_full_name: 'Iago' });
    });
  });

  describe('presence', () => {
    it('a restricted guest gets only the presence of users they may see', async () => {
      for (const email of [HAMLET, PROSPERO])
        ok(await call(t, 'post', '/users/me/presence', email, { status: 'active' }));
      const seen = async (email: string) =>
        Object.keys(
          ok(
            await call(t, 'post', '/users/me/presence', email, {
              status: 'active',
              slim_presence: true,
              last_update_id: -1,
            }),
          ).presences as Record<string, unknown>,
        ).map(Number);
      await restrict(true);
      const guest = await seen(POLONIUS);
      expect(guest).toEqual(expect.arrayContaining([id[PROSPERO], id[POLONIUS]]));
      expect(guest).not.toContain(id[HAMLET]);
      const legacy = ok(await call(t, 'get', '/realm/presence', POLONIUS)).presences as Record<string, unknown>;
      expect(Object.keys(legacy)).toHaveLength(guest.length);
      const member = await seen(OTHELLO);
      expect(member).toContain(id[HAMLET]);
      expect(member.length).toBeGreaterThan(guest.length);
      await restrict(false);
      expect(await seen(POLONIUS)).toContain(id[HAMLET]);
    });

    /** The users whose presence events reached a queue (legacy events carry user_id). */
    const reported = (events: Array<Record<string, unknown>>) =>
      events
        .filter((e) => e.type === 'presence')
        .map((e) => Number(e.user_id ?? Object.keys(e.presences as Record<string, unknown>)[0]))
        .sort((a, b) => a - b);
    /** Pings from users with no stored presence (so each is announced), written as one batch. */
    const batchOfNewPresences = async (emails: string[]) => {
      const presence = t.app.get(PresenceService);
      // The periodic flush is paused meanwhile: it could otherwise write part of the batch.
      const periodic = presence as unknown as { timer?: NodeJS.Timeout };
      clearInterval(periodic.timer);
      try {
        await presence.flush();
        const ids = emails.map((e) => id[e]);
        await t.dataSource.query(`DELETE FROM user_presence WHERE user_profile_id = ANY($1::int[])`, [ids]);
        (presence as unknown as { known: Map<number, unknown> }).known.clear();
        for (const email of emails)
          ok(await call(t, 'post', '/users/me/presence', email, { status: 'active', ping_only: true }));
        return await countQueries(() => presence.flush());
      } finally {
        periodic.timer = setInterval(() => void presence.flush(), 1000);
        periodic.timer.unref();
      }
    };

    it('presence events reach a restricted guest only for users they may see, in one query per batch', async () => {
      await t.app.get(PresenceService).flush(); // earlier tests' pings
      await restrict(true);
      const guest = await openQueue(t, POLONIUS, ['presence']);
      const modern = await openQueue(t, POLONIUS, ['presence'], {
        client_capabilities: { simplified_presence_events: true },
      });
      const member = await openQueue(t, OTHELLO, ['presence']);
      const small = await batchOfNewPresences([HAMLET, PROSPERO]);
      expect(reported(await takeEvents(t, guest))).toEqual([id[PROSPERO]]);
      expect(reported(await takeEvents(t, modern))).toEqual([id[PROSPERO]]);
      expect(reported(await takeEvents(t, member))).toEqual([id[HAMLET], id[PROSPERO]].sort((a, b) => a - b));
      // More users reported in the batch: the same statements.
      const large = await batchOfNewPresences([HAMLET, PROSPERO, CORDELIA, DESDEMONA]);
      expect(reported(await takeEvents(t, guest))).toEqual([id[PROSPERO], id[DESDEMONA]].sort((a, b) => a - b));
      expect(reported(await takeEvents(t, member))).toHaveLength(4);
      expect(large.count).toBe(small.count);
      await restrict(false);
      await batchOfNewPresences([HAMLET, PROSPERO]);
      expect(reported(await takeEvents(t, guest))).toEqual([id[HAMLET], id[PROSPERO]].sort((a, b) => a - b));
    });

    it('a forced presence event (presence_enabled changed) reaches a restricted guest only if they may see the user', async () => {
      await restrict(true);
      const guest = await openQueue(t, POLONIUS, ['presence']);
      const member = await openQueue(t, OTHELLO, ['presence']);
      for (const email of [HAMLET, PROSPERO])
        ok(await call(t, 'patch', '/settings', email, { presence_enabled: false }));
      expect(reported(await takeEvents(t, guest))).toEqual([id[PROSPERO]]);
      expect(reported(await takeEvents(t, member))).toEqual([id[HAMLET], id[PROSPERO]].sort((a, b) => a - b));
      await restrict(false);
      for (const email of [HAMLET, PROSPERO])
        ok(await call(t, 'patch', '/settings', email, { presence_enabled: true }));
      expect(reported(await takeEvents(t, guest))).toEqual([id[HAMLET], id[PROSPERO]].sort((a, b) => a - b));
    });
  });

  describe('user_status', () => {
    const statusOf = (events: Array<Record<string, unknown>>) =>
      events.filter((e) => e.type === 'user_status').map((e) => e.user_id as number);

    it('events reach a restricted guest only for users they may see', async () => {
      await restrict(true);
      const guest = await openQueue(t, POLONIUS, ['user_status']);
      const member = await openQueue(t, OTHELLO, ['user_status']);
      ok(await call(t, 'post', '/users/me/status', HAMLET, { status_text: 'at Elsinore' }));
      ok(await call(t, 'post', '/users/me/status', PROSPERO, { status_text: 'on the island' }));
      expect(statusOf(await takeEvents(t, guest))).toEqual([id[PROSPERO]]);
      expect(statusOf(await takeEvents(t, member))).toEqual([id[HAMLET], id[PROSPERO]]);
      await restrict(false);
      ok(await call(t, 'post', '/users/me/status', HAMLET, { status_text: 'in Wittenberg' }));
      expect(statusOf(await takeEvents(t, guest))).toEqual([id[HAMLET]]);
    });

    it('/register gives a restricted guest only the statuses of users they may see', async () => {
      ok(await call(t, 'post', '/users/me/status', HAMLET, { status_text: 'at Elsinore' }));
      ok(await call(t, 'post', '/users/me/status', PROSPERO, { status_text: 'on the island' }));
      const statuses = async (email: string) =>
        Object.keys(
          ok(await call(t, 'post', '/register', email, { fetch_event_types: ['user_status'] })).user_status as Record<
            string,
            unknown
          >,
        ).map(Number);
      await restrict(true);
      const guest = await statuses(POLONIUS);
      expect(guest).toContain(id[PROSPERO]);
      expect(guest).not.toContain(id[HAMLET]);
      expect(await statuses(OTHELLO)).toEqual(expect.arrayContaining([id[HAMLET], id[PROSPERO]]));
      await restrict(false);
      expect(await statuses(POLONIUS)).toEqual(expect.arrayContaining([id[HAMLET], id[PROSPERO]]));
    });
  });

  describe('direct messages and rendering', () => {
    const render = async (email: string, content: string) =>
      ok(await call(t, 'post', '/messages/render', email, { content })).rendered as string;

    it('a mention of an inaccessible user stays plain text', async () => {
      await restrict(true);
      const hidden = await render(POLONIUS, `hi @**|${id[OTHELLO]}**`);
      expect(hidden).not.toContain('Othello');
      expect(hidden).not.toContain('user-mention');
      expect(await render(POLONIUS, 'hi @**Othello, the Moor of Venice**')).not.toContain('user-mention');
      const shown = await render(POLONIUS, `hi @**|${id[PROSPERO]}**`);
      expect(shown).toContain('class="user-mention"');
      expect(shown).toContain('Prospero');
      expect(await render(HAMLET, `hi @**|${id[OTHELLO]}**`)).toContain('Othello');
      await restrict(false);
      expect(await render(POLONIUS, `hi @**|${id[OTHELLO]}**`)).toContain('Othello');
    });

    it('a guest may not write to an inaccessible user until they share a conversation', async () => {
      await restrict(true);
      expectError(
        await call(t, 'post', '/messages', POLONIUS, { type: 'direct', to: [id[CORDELIA]], content: 'hello' }),
        400,
        'You do not have permission to access some of the recipients.',
      );
      // Bots are always accessible.
      ok(await call(t, 'post', '/messages', POLONIUS, { type: 'direct', to: [id[BOT]], content: 'hello bot' }));
      await sendDirect(t, CORDELIA, [id[POLONIUS]], 'hello guest');
      ok(await call(t, 'post', '/messages', POLONIUS, { type: 'direct', to: [id[CORDELIA]], content: 'hello' }));
      expect((ok(await call(t, 'get', `/users/${id[CORDELIA]}`, POLONIUS)).user as UserDict).full_name).toBe(
        "Cordelia, Lear's daughter",
      );
      expect(await memberIds(POLONIUS)).toContain(id[CORDELIA]);
    });
  });
});
