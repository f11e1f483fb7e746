/**
 * can_access_all_users_group as subscriptions change: a restricted guest who comes to share a
 * channel with someone they could not see gets that user as `realm_user` `add` (Zulip's
 * send_user_creation_events_on_adding_subscriptions, notify_created_user), and one who no longer
 * shares any conversation with someone gets `realm_user` `remove` with the "Unknown user" name
 * (send_user_remove_events_on_removing_subscriptions); both ways round: the guest joining or
 * leaving, or the other user doing so. Members see everyone and get none of these.
 *
 * Set-up as in guest-access.e2e-spec.ts: Polonius (guest) leaves Verona and is subscribed to
 * Venice (Desdemona, Prospero, Zoe).
 */
import { countQueries } from '../../helpers/query-counter';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  addSubscribers,
  call,
  createUsers,
  DESDEMONA,
  IAGO,
  openQueue,
  POLONIUS,
  PROSPERO,
  sendDirect,
  setRealm,
  setUser,
  subscribe,
  systemGroupId,
  takeEvents,
  unsubscribe,
  userId,
} from '../messaging/helpers';

type Event = Record<string, unknown>;
const realmUserEvents = (events: Event[]) =>
  events.filter((e) => e.type === 'realm_user').map((e) => ({ op: e.op, person: e.person as Record<string, unknown> }));

describe('realm_user events to restricted guests when subscriptions change', () => {
  let t: TestApp;
  const id: Record<string, number> = {};
  let everyone: number;
  let members: number;
  const restrict = (on: boolean) => setRealm(t, { can_access_all_users_group: on ? members : everyone });
  const ok = (res: { status: number; body: unknown }) => {
    if (res.status !== 200) throw new Error(`expected success, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  };
  const createChannel = async (name: string, emails: string[]) =>
    ok(await call(t, 'post', '/users/me/subscriptions', IAGO, { subscriptions: [{ name }], principals: emails }));
  const unsubscribeOthers = async (channel: string, ids: number[]) =>
    ok(await call(t, 'delete', '/users/me/subscriptions', IAGO, { subscriptions: [channel], principals: ids }));

  beforeAll(async () => {
    t = await startTestApp();
    for (const e of [POLONIUS, PROSPERO, DESDEMONA, IAGO]) id[e] = await userId(t, e);
    everyone = await systemGroupId(t, 'role:everyone');
    members = await systemGroupId(t, 'role:members');
    await unsubscribe(t, POLONIUS, 'Verona');
    await addSubscribers(t, 'Venice', [id[POLONIUS]]);
  });
  afterAll(() => t.close());
  afterEach(() => restrict(false));

  it('another user joining the guest’s channel: realm_user add with their dict; leaving: remove', async () => {
    const [a] = await createUsers(t, 'joiner', 1);
    await restrict(true);
    const guest = await openQueue(t, POLONIUS, ['realm_user']);
    const member = await openQueue(t, PROSPERO, ['realm_user']);
    await subscribe(t, IAGO, 'Venice', ['joiner0@zulip.com']);
    const added = realmUserEvents(await takeEvents(t, guest));
    expect(added).toEqual([{ op: 'add', person: expect.objectContaining({ user_id: a, full_name: 'joiner 0' }) }]);
    // The user as the guest sees them (delivery email by its visibility, profile data): as GET
    // /users/{id} now answers the guest.
    const fetched = ok(
      await call(t, 'get', `/users/${a}`, POLONIUS, { client_gravatar: false, include_custom_profile_fields: true }),
    ).user as Record<string, unknown>;
    expect(added[0].person).toEqual(fetched);
    expect(realmUserEvents(await takeEvents(t, member))).toEqual([]);
    // /users now lists them for the guest.
    const listed = ok(await call(t, 'get', '/users', POLONIUS)).members as Array<{ user_id: number }>;
    expect(listed.map((u) => u.user_id)).toContain(a);

    await unsubscribeOthers('Venice', [a]);
    const events = await takeEvents(t, guest);
    expect(realmUserEvents(events)).toEqual([{ op: 'remove', person: { user_id: a, full_name: 'Unknown user' } }]);
    expectMatchesOpenApi('get', '/events', 200, { result: 'success', msg: '', events });
    expect(realmUserEvents(await takeEvents(t, member))).toEqual([]);
  });

  it('the guest joining a channel gains its subscribers they could not see, and those guests gain them', async () => {
    const users = await createUsers(t, 'denizen', 3);
    const [otherGuest] = await createUsers(t, 'visitor', 1);
    await setUser(t, 'visitor0@zulip.com', { role: 600 });
    await createChannel('Elsinore guests', ['denizen0@zulip.com', 'denizen1@zulip.com', 'visitor0@zulip.com']);
    // denizen2 already shares Venice with Polonius: no event for them.
    await addSubscribers(t, 'Venice', [users[2]]);
    await subscribe(t, IAGO, 'Elsinore guests', ['denizen2@zulip.com']);
    await restrict(true);
    const guest = await openQueue(t, POLONIUS, ['realm_user']);
    const visitor = await openQueue(t, 'visitor0@zulip.com', ['realm_user']);
    const member = await openQueue(t, 'denizen0@zulip.com', ['realm_user']);
    await subscribe(t, IAGO, 'Elsinore guests', [POLONIUS]);
    const forGuest = realmUserEvents(await takeEvents(t, guest));
    expect(forGuest.map((e) => e.op)).toEqual(['add', 'add', 'add']);
    expect(forGuest.map((e) => e.person.user_id as number).sort((x, y) => x - y)).toEqual(
      [users[0], users[1], otherGuest].sort((x, y) => x - y),
    );
    expect(forGuest.find((e) => e.person.user_id === otherGuest)!.person).toMatchObject({
      full_name: 'visitor 0',
      is_guest: true,
      role: 600,
    });
    // The other guest gains Polonius.
    expect(realmUserEvents(await takeEvents(t, visitor))).toEqual([
      { op: 'add', person: expect.objectContaining({ user_id: id[POLONIUS], full_name: 'Polonius', is_guest: true }) },
    ]);
    expect(realmUserEvents(await takeEvents(t, member))).toEqual([]);

    // A direct-message conversation keeps a user visible when the channel no longer does.
    await sendDirect(t, POLONIUS, [users[0]], 'we keep in touch');
    await unsubscribe(t, POLONIUS, 'Elsinore guests');
    const lost = realmUserEvents(await takeEvents(t, guest));
    expect(lost.every((e) => e.op === 'remove' && e.person.full_name === 'Unknown user')).toBe(true);
    expect(lost.map((e) => e.person.user_id as number).sort((x, y) => x - y)).toEqual(
      [users[1], otherGuest].sort((x, y) => x - y),
    );
    expect(realmUserEvents(await takeEvents(t, visitor))).toEqual([
      { op: 'remove', person: { user_id: id[POLONIUS], full_name: 'Unknown user' } },
    ]);
  });

  it('nothing when the realm does not restrict access', async () => {
    const [a] = await createUsers(t, 'free', 1);
    const guest = await openQueue(t, POLONIUS, ['realm_user']);
    await subscribe(t, IAGO, 'Venice', ['free0@zulip.com']);
    await unsubscribeOthers('Venice', [a]);
    expect(realmUserEvents(await takeEvents(t, guest))).toEqual([]);
  });

  it('costs nothing more when no guest is involved, restricted or not', async () => {
    const [, y] = await createUsers(t, 'noguest', 2);
    await createChannel('no guests here', ['noguest0@zulip.com']);
    const measure = async (ids: number[]) => {
      ok(await call(t, 'get', '/users/me', IAGO));
      const subscribed = await countQueries(() =>
        call(t, 'post', '/users/me/subscriptions', IAGO, {
          subscriptions: [{ name: 'no guests here' }],
          principals: ids,
        }),
      );
      ok(await call(t, 'get', '/users/me', IAGO));
      const left = await countQueries(() => unsubscribeOthers('no guests here', ids));
      return [subscribed.count, left.count];
    };
    const unrestricted = await measure([y]);
    await restrict(true);
    expect(await measure([y])).toEqual(unrestricted);
  });

  it('costs the same statements whatever the number of users the guest gains', async () => {
    await restrict(true);
    const few = await createUsers(t, 'fewpeer', 2);
    const many = await createUsers(t, 'manypeer', 8);
    await createChannel('qc warmup', ['fewpeer0@zulip.com']);
    await createChannel(
      'qc few',
      few.map((_, i) => `fewpeer${i}@zulip.com`),
    );
    await createChannel(
      'qc many',
      many.map((_, i) => `manypeer${i}@zulip.com`),
    );
    const guest = await openQueue(t, POLONIUS, ['realm_user']);
    await subscribe(t, IAGO, 'qc warmup', [POLONIUS]);
    await takeEvents(t, guest);
    // Each measured request right after one that refreshes the aged caches (the realm row lives
    // 2 s): on a slow machine an expiry between two measured requests is not a query more.
    const refresh = async (email: string) => ok(await call(t, 'get', '/users/me', email));
    const measure = async (channel: string) => {
      await refresh(IAGO);
      const { count } = await countQueries(() => subscribe(t, IAGO, channel, [POLONIUS]));
      return { count, gained: realmUserEvents(await takeEvents(t, guest)).length };
    };
    const a = await measure('qc few');
    const b = await measure('qc many');
    expect(a.gained).toBe(1); // fewpeer1 (fewpeer0 is already visible through qc warmup)
    expect(b.gained).toBe(8);
    expect(b.count).toBe(a.count);
    // Leaving costs the same too.
    const leave = async (channel: string) => {
      await refresh(POLONIUS);
      return (await countQueries(() => unsubscribe(t, POLONIUS, channel))).count;
    };
    const x = await leave('qc few');
    const y = await leave('qc many');
    expect(realmUserEvents(await takeEvents(t, guest)).filter((e) => e.op === 'remove')).toHaveLength(9); // fewpeer1, manypeer0-7
    expect(y).toBe(x);
  });
});
