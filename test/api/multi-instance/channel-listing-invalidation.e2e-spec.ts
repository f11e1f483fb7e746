/**
 * GET /streams and POST /register read the realm's channels and their subscriber counts from a
 * per-process cache (ChannelListingCache), and POST /register's and GET /users' user lists from
 * another (RealmUserRowsCache). Two app instances on one database: every change made through A
 * that a listing shows is seen by B's first request after B hears of it (a NOTIFY, milliseconds
 * after the commit).
 */
import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { UsersService } from '../../../src/users/users.service';
import { countQueries } from '../../helpers/query-counter';
import { startTwoInstances, type TwoInstances } from './helpers';

const IAGO = 'iago@zulip.com'; // administrator
const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const CORDELIA = 'cordelia@zulip.com';

type ChannelDict = Record<string, unknown> & { stream_id: number; name: string; subscribers?: number[] };

describe('channel listing cache invalidation across instances', () => {
  jest.setTimeout(120_000);
  let two: TwoInstances;
  let a: INestApplication;
  let b: INestApplication;
  let realmId: number;
  let userId: TwoInstances['userId'];
  let onA: TwoInstances['heardOnB'];

  beforeAll(async () => {
    two = await startTwoInstances('zulip-test-listinval');
    ({ a, b, realmId, userId, heardOnB: onA } = two);
  });
  afterAll(() => two?.close());

  const keys = new Map<string, string>();
  const keyOf = async (email: string): Promise<string> => {
    const known = keys.get(email);
    if (known) return known;
    const users = a.get(UsersService);
    const key = users.apiKeyOf((await users.findByIdInRealm(realmId, await userId(email)))!);
    keys.set(email, key);
    return key;
  };
  const send = async (
    app: INestApplication,
    method: 'get' | 'post' | 'patch' | 'delete',
    path: string,
    email: string,
    form: Record<string, string> = {},
  ) => {
    const key = await keyOf(email);
    const req = request(app.getHttpServer())[method](`/api/v1${path}`).auth(email, key);
    const res = method === 'get' ? await req.query(form) : await req.type('form').send(form);
    expect(res.body).toMatchObject({ result: 'success' });
    // GET /streams splices serialised channel dicts (RawJson): the bytes are JSON.stringify's.
    expect(res.text).toBe(JSON.stringify(res.body));
    return res.body as Record<string, unknown>;
  };

  /** B's channels as GET /streams shows them to `email` (archived ones included). */
  const streamsOnB = async (email = OTHELLO): Promise<Map<string, ChannelDict>> => {
    const body = await send(b, 'get', '/streams', email, { exclude_archived: 'false' });
    return new Map((body.streams as ChannelDict[]).map((s) => [s.name, s]));
  };
  /** B's POST /register channel sections for `email`, with subscribers. */
  const registerOnB = async (email = OTHELLO): Promise<Map<string, ChannelDict>> => {
    const body = await send(b, 'post', '/register', email, {
      fetch_event_types: JSON.stringify(['subscription', 'stream']),
      include_subscribers: 'true',
    });
    const all = [
      ...(body.subscriptions as ChannelDict[]),
      ...(body.unsubscribed as ChannelDict[]),
      ...(body.never_subscribed as ChannelDict[]),
    ];
    return new Map(all.map((s) => [s.name, s]));
  };

  const subscribeOnA = (email: string, name: string, extra: Record<string, string> = {}) =>
    onA(() =>
      send(a, 'post', '/users/me/subscriptions', email, { subscriptions: JSON.stringify([{ name }]), ...extra }),
    );

  it('B serves a repeated listing from its cache (the cache is real)', async () => {
    await streamsOnB();
    const statements = async () => (await countQueries(() => streamsOnB())).queries.join('\n');
    expect(await statements()).not.toMatch(/FROM stream s\s+LEFT JOIN/);
    // A change behind the app's back (no invalidation): B keeps its copy.
    const dataSource = a.get(DataSource);
    const [{ description }] = await dataSource.query<Array<{ description: string }>>(
      `SELECT description FROM stream WHERE name = 'Verona'`,
    );
    await dataSource.query(`UPDATE stream SET description = 'behind the back' WHERE name = 'Verona'`);
    try {
      expect((await streamsOnB()).get('Verona')!.description).toBe(description);
    } finally {
      await dataSource.query(`UPDATE stream SET description = $1 WHERE name = 'Verona'`, [description]);
    }
  });

  it('a channel created on A is listed by B at once, with its subscriber count', async () => {
    await streamsOnB();
    await registerOnB();
    await subscribeOnA(HAMLET, 'listing new');
    const channel = (await streamsOnB()).get('listing new');
    expect(channel).toMatchObject({ subscriber_count: 1 });
    expect((await registerOnB()).get('listing new')).toMatchObject({
      subscriber_count: 1,
      subscribers: [await userId(HAMLET)],
    });
  });

  it('subscribers added and removed on A change the counts and lists on B', async () => {
    await subscribeOnA(HAMLET, 'listing members');
    const before = (await streamsOnB()).get('listing members')!.subscriber_count as number;
    await registerOnB();
    const mineOnB = async () => {
      const body = await send(b, 'get', '/users/me/subscriptions', HAMLET, { include_subscribers: 'true' });
      return (body.subscriptions as ChannelDict[]).find((s) => s.name === 'listing members')!;
    };
    await mineOnB();
    await subscribeOnA(CORDELIA, 'listing members');
    expect((await streamsOnB()).get('listing members')!.subscriber_count).toBe(before + 1);
    expect((await registerOnB()).get('listing members')!.subscribers).toContain(await userId(CORDELIA));
    expect((await mineOnB()).subscribers).toContain(await userId(CORDELIA));
    await onA(() =>
      send(a, 'delete', '/users/me/subscriptions', CORDELIA, { subscriptions: JSON.stringify(['listing members']) }),
    );
    expect((await streamsOnB()).get('listing members')!.subscriber_count).toBe(before);
    expect((await registerOnB()).get('listing members')!.subscribers).not.toContain(await userId(CORDELIA));
    expect((await mineOnB()).subscriber_count).toBe(before);
  });

  it('a user deactivated and reactivated on A leaves and rejoins the counts on B', async () => {
    await subscribeOnA(CORDELIA, 'listing deactivation');
    const count = async () => (await streamsOnB()).get('listing deactivation')!.subscriber_count;
    const before = await count();
    const cordelia = await userId(CORDELIA);
    await onA(() => send(a, 'delete', `/users/${cordelia}`, IAGO));
    expect(await count()).toBe((before as number) - 1);
    expect((await registerOnB()).get('listing deactivation')!.subscribers).not.toContain(cordelia);
    await onA(() => send(a, 'post', `/users/${cordelia}/reactivate`, IAGO));
    expect(await count()).toBe(before);
  });

  it("a channel's properties changed on A, and its archiving, are seen on B", async () => {
    await subscribeOnA(IAGO, 'listing properties');
    const id = (await streamsOnB()).get('listing properties')!.stream_id;
    await onA(() => send(a, 'patch', `/streams/${id}`, IAGO, { description: 'changed on A', is_private: 'false' }));
    expect((await streamsOnB()).get('listing properties')).toMatchObject({ description: 'changed on A' });
    await onA(() => send(a, 'delete', `/streams/${id}`, IAGO));
    expect((await streamsOnB()).get('listing properties')).toMatchObject({ is_archived: true });
    const active = await send(b, 'get', '/streams', OTHELLO);
    expect((active.streams as ChannelDict[]).map((s) => s.name)).not.toContain('listing properties');
  });

  it("a channel's messages deleted on A, and its first message, move first_message_id on B", async () => {
    await subscribeOnA(HAMLET, 'listing first message');
    const messageIds = async () =>
      (
        await a.get(DataSource).query<Array<{ id: number }>>(
          `SELECT m.id FROM message m JOIN stream s ON s.recipient_id = m.recipient_id
            WHERE s.name = 'listing first message' ORDER BY m.id`,
        )
      ).map((r) => r.id);
    const firstOnB = async () => (await streamsOnB()).get('listing first message')!.first_message_id;
    // The creation notice is the channel's first message.
    const notices = await messageIds();
    expect(notices.length).toBeGreaterThan(0);
    expect(await firstOnB()).toBe(notices[0]);
    for (const id of notices) await onA(() => send(a, 'delete', `/messages/${id}`, IAGO));
    expect(await firstOnB()).toBeNull();
    // The first message of a channel without one records it in the send's own statement.
    let messageId = 0;
    await onA(async () => {
      const body = await send(a, 'post', '/messages', HAMLET, {
        type: 'stream',
        to: 'listing first message',
        topic: 'first',
        content: 'the first',
      });
      messageId = body.id as number;
    });
    expect(await firstOnB()).toBe(messageId);
  });

  describe("the realm's users (RealmUserRowsCache)", () => {
    type UserDict = Record<string, unknown> & { user_id: number; full_name: string };
    const usersOnB = async () => {
      const body = await send(b, 'post', '/register', OTHELLO, { fetch_event_types: JSON.stringify(['realm_user']) });
      const byId = (list: unknown) => new Map((list as UserDict[]).map((u) => [u.user_id, u]));
      return { active: byId(body.realm_users), inactive: byId(body.realm_non_active_users) };
    };
    const directoryOnB = async () =>
      new Map(((await send(b, 'get', '/users', HAMLET)).members as UserDict[]).map((u) => [u.user_id, u]));

    it('a user created on A is listed by B at once', async () => {
      await usersOnB();
      await directoryOnB();
      let id = 0;
      await onA(async () => {
        const body = await send(a, 'post', '/users', IAGO, {
          email: 'listed.at.once@zulip.com',
          password: 'a-long-password',
          full_name: 'Listed At Once',
        });
        id = body.user_id as number;
      });
      expect((await usersOnB()).active.get(id)).toMatchObject({ full_name: 'Listed At Once', is_active: true });
      expect((await directoryOnB()).get(id)).toMatchObject({ full_name: 'Listed At Once' });
    });

    it("a user's name, role and activity changed on A are seen on B", async () => {
      const cordelia = await userId(CORDELIA);
      await usersOnB();
      await onA(() => send(a, 'patch', `/users/${cordelia}`, IAGO, { full_name: 'Cordelia Renamed', role: '300' }));
      expect((await usersOnB()).active.get(cordelia)).toMatchObject({ full_name: 'Cordelia Renamed', role: 300 });
      await onA(() => send(a, 'delete', `/users/${cordelia}`, IAGO));
      const after = await usersOnB();
      expect(after.active.has(cordelia)).toBe(false);
      expect(after.inactive.get(cordelia)).toMatchObject({ is_active: false });
      await onA(() => send(a, 'post', `/users/${cordelia}/reactivate`, IAGO));
      expect((await usersOnB()).active.has(cordelia)).toBe(true);
    });

    it('a name changed by the user on A (PATCH /settings) is seen on B', async () => {
      const hamlet = await userId(HAMLET);
      await usersOnB();
      await onA(() => send(a, 'patch', '/settings', HAMLET, { full_name: 'Hamlet Renamed' }));
      expect((await usersOnB()).active.get(hamlet)).toMatchObject({ full_name: 'Hamlet Renamed' });
    });
  });
});
