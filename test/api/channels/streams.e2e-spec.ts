import { expectMatchesOpenApi } from '../../helpers/openapi';
import { countQueries } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectError, expectSuccess, userId } from './helpers';

const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const IAGO = 'iago@zulip.com';
const DESDEMONA = 'desdemona@zulip.com';
const POLONIUS = 'polonius@zulip.com';
const BOT = 'default-bot@zulip.com';

type Channel = Record<string, unknown> & { name: string; stream_id: number };

const PUBLIC = ['Denmark', 'Rome', 'Scotland', 'Venice', 'Verona', 'Zulip', 'sandbox'];

describe('reading channels', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    // An archived public channel, to see exclude_archived at work.
    expectSuccess(await call(t, 'post', '/users/me/subscriptions', IAGO, { subscriptions: [{ name: 'old times' }] }));
    expectSuccess(await call(t, 'delete', `/streams/${await channelId(t, 'old times')}`, IAGO));
  });
  afterAll(() => t.close());

  async function streams(email: string, params: Record<string, unknown> = {}): Promise<Channel[]> {
    const res = await call(t, 'get', '/streams', email, params);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/streams', 200, res.body);
    return (res.body as { streams: Channel[] }).streams;
  }
  const names = (list: Channel[]) => list.map((s) => s.name);

  describe('GET /streams', () => {
    it('lists public channels and the subscribed private ones, sorted by name', async () => {
      expect(names(await streams(HAMLET))).toEqual([...PUBLIC.slice(0, 6), 'core team', 'sandbox']);
      expect(names(await streams(OTHELLO))).toEqual(PUBLIC);
    });

    it('gives the channel object fields of the spec', async () => {
      const verona = (await streams(HAMLET)).find((s) => s.name === 'Verona')!;
      expect(Object.keys(verona).sort()).toEqual(
        [
          'stream_id',
          'name',
          'is_archived',
          'description',
          'rendered_description',
          'date_created',
          'creator_id',
          'invite_only',
          'is_web_public',
          'stream_post_policy',
          'is_announcement_only',
          'message_retention_days',
          'history_public_to_subscribers',
          'topics_policy',
          'first_message_id',
          'folder_id',
          'is_recently_active',
          'can_add_subscribers_group',
          'can_remove_subscribers_group',
          'can_administer_channel_group',
          'can_delete_any_message_group',
          'can_delete_own_message_group',
          'can_move_messages_out_of_channel_group',
          'can_move_messages_within_channel_group',
          'can_send_message_group',
          'can_subscribe_group',
          'can_resolve_topics_group',
          'subscriber_count',
          'stream_weekly_traffic',
        ].sort(),
      );
      expect(verona).toMatchObject({
        description: 'A city in Italy',
        rendered_description: '<p>A city in Italy</p>',
        subscriber_count: 10,
        stream_weekly_traffic: null,
        first_message_id: null,
        stream_post_policy: 1,
        is_announcement_only: false,
        is_archived: false,
      });
    });

    it('guests see their subscribed channels, and web-public ones on request', async () => {
      expect(names(await streams(POLONIUS))).toEqual(['Verona']);
      expect(names(await streams(POLONIUS, { include_web_public: true }))).toEqual(['Rome', 'Verona']);
      expect(names(await streams(POLONIUS, { include_all: true }))).toEqual(['Rome', 'Verona']);
    });

    it('include_subscribed alone', async () => {
      expect(names(await streams(HAMLET, { include_public: false }))).toEqual([
        'Denmark',
        'Verona',
        'Zulip',
        'core team',
        'sandbox',
      ]);
      expect(await streams(HAMLET, { include_public: false, include_subscribed: false })).toEqual([]);
    });

    it('include_all: every channel with metadata access (all of them for administrators)', async () => {
      expect(names(await streams(OTHELLO, { include_all: true }))).toEqual(PUBLIC);
      expect(
        names(await streams(IAGO, { include_all: true, include_public: false, include_subscribed: false })),
      ).toEqual([...PUBLIC.slice(0, 6), 'core team', 'sandbox']);
    });

    it('include_can_access_content: administrators do not read private channels they are not in', async () => {
      expect(names(await streams(OTHELLO, { include_can_access_content: true }))).toEqual(PUBLIC);
      expect(names(await streams(HAMLET, { include_can_access_content: true }))).toContain('core team');
      const shiva = await streams('shiva@zulip.com', { include_can_access_content: true });
      expect(names(shiva)).not.toContain('core team');
    });

    it('exclude_archived=false adds archived channels', async () => {
      expect(names(await streams(OTHELLO))).not.toContain('old times');
      const all = await streams(OTHELLO, { exclude_archived: false });
      expect(all.find((s) => s.name === 'old times')).toMatchObject({ is_archived: true });
    });

    it('include_default marks the default channels', async () => {
      const list = await streams(OTHELLO, { include_default: true });
      expect(list.filter((s) => s.is_default === true).map((s) => s.name)).toEqual(['Verona', 'Zulip', 'sandbox']);
      expect(list.every((s) => typeof s.is_default === 'boolean')).toBe(true);
    });

    it('include_owner_subscribed: a bot gets its owner’s channels', async () => {
      const list = await streams(BOT, {
        include_public: false,
        include_subscribed: false,
        include_owner_subscribed: true,
      });
      expect(names(list)).toEqual(['Denmark', 'Venice', 'Verona', 'Zulip', 'core team', 'sandbox']);
      // For humans the flag does nothing.
      expect(
        await streams(HAMLET, { include_public: false, include_subscribed: false, include_owner_subscribed: true }),
      ).toEqual([]);
    });

    it('include_all_active needs administrator rights (DECISIONS #7)', async () => {
      const res = await call(t, 'get', '/streams', OTHELLO, { include_all_active: true });
      expectError(res, 400, 'User not authorized for this query');
      expectMatchesOpenApi('get', '/streams', 400, res.body);
      expect(names(await streams(IAGO, { include_all_active: true, include_public: false }))).toContain('core team');
    });

    it('rejects non-boolean flags', async () => {
      expectError(
        await call(t, 'get', '/streams', OTHELLO, { include_public: 'maybe' }),
        400,
        'include_public is not valid JSON',
      );
      expectError(await call(t, 'get', '/streams', OTHELLO, { include_all: 1 }), 400, 'include_all is not a boolean');
    });
  });

  describe('GET /streams/{stream_id} and GET /get_stream_id', () => {
    it('returns one channel', async () => {
      const id = await channelId(t, 'Verona');
      const res = await call(t, 'get', `/streams/${id}`, OTHELLO);
      expectSuccess(res);
      expectMatchesOpenApi('get', '/streams/{stream_id}', 200, res.body);
      expect((res.body as { stream: Channel }).stream).toMatchObject({ stream_id: id, name: 'Verona' });
    });

    it('lets administrators see private channels they are not in, but not members', async () => {
      const id = await channelId(t, 'core team');
      expectSuccess(await call(t, 'get', `/streams/${id}`, IAGO));
      const res = await call(t, 'get', `/streams/${id}`, OTHELLO);
      expectError(res, 400, 'Invalid channel ID');
      expectMatchesOpenApi('get', '/streams/{stream_id}', 400, res.body);
    });

    it.each([
      ['an unknown id', '999999', 400, 'Invalid channel ID'],
      ['an id beyond integer range', '99999999999', 400, 'Invalid channel ID'],
    ])('%s', async (_label, id, status, msg) => {
      expectError(await call(t, 'get', `/streams/${id}`, OTHELLO), status, msg);
    });

    it('archived channels are not found; non-numeric ids are not routes', async () => {
      expectError(await call(t, 'get', `/streams/${await channelId(t, 'old times')}`, IAGO), 400, 'Invalid channel ID');
      const res = await call(t, 'get', '/streams/abc', IAGO);
      expect(res.status).toBe(404);
    });

    it('guests see web-public channels but not public ones they are not in', async () => {
      expectSuccess(await call(t, 'get', `/streams/${await channelId(t, 'Rome')}`, POLONIUS));
      expectError(
        await call(t, 'get', `/streams/${await channelId(t, 'Denmark')}`, POLONIUS),
        400,
        'Invalid channel ID',
      );
    });

    it('GET /get_stream_id finds a channel by name, case-insensitively', async () => {
      const res = await call(t, 'get', '/get_stream_id', OTHELLO, { stream: 'verona' });
      expectSuccess(res);
      expectMatchesOpenApi('get', '/get_stream_id', 200, res.body);
      expect(res.body).toMatchObject({ stream_id: await channelId(t, 'Verona') });
    });

    it.each([
      [OTHELLO, 'core team', "Invalid channel name 'core team'"],
      [OTHELLO, 'no such place', "Invalid channel name 'no such place'"],
      [IAGO, 'old times', "Invalid channel name 'old times'"],
      [POLONIUS, 'Denmark', "Invalid channel name 'Denmark'"],
    ])('GET /get_stream_id as %s for %s', async (email, name, msg) => {
      const res = await call(t, 'get', '/get_stream_id', email, { stream: name });
      expectError(res, 400, msg);
      expectMatchesOpenApi('get', '/get_stream_id', 400, res.body);
    });

    it('GET /get_stream_id needs the name', async () => {
      expectError(
        await call(t, 'get', '/get_stream_id', OTHELLO),
        400,
        "Missing 'stream' argument",
        'REQUEST_VARIABLE_MISSING',
      );
    });
  });

  describe('GET /users/me/subscriptions', () => {
    it('lists the caller’s subscriptions with their settings', async () => {
      const res = await call(t, 'get', '/users/me/subscriptions', HAMLET);
      expectSuccess(res);
      expectMatchesOpenApi('get', '/users/me/subscriptions', 200, res.body);
      const subs = (res.body as { subscriptions: Channel[] }).subscriptions;
      expect(names(subs)).toEqual(['Denmark', 'Verona', 'Zulip', 'core team', 'sandbox']);
      expect(subs[0]).toMatchObject({
        is_muted: false,
        in_home_view: true,
        pin_to_top: false,
        desktop_notifications: null,
        audible_notifications: null,
        push_notifications: null,
        email_notifications: null,
        wildcard_mentions_notify: null,
      });
      expect(subs[0].color).toMatch(/^#[0-9a-f]{6}$/);
      expect(subs[0]).not.toHaveProperty('subscribers');
    });

    it('include_subscribers adds the subscriber ids', async () => {
      const res = await call(t, 'get', '/users/me/subscriptions', HAMLET, { include_subscribers: true });
      expectMatchesOpenApi('get', '/users/me/subscriptions', 200, res.body);
      const core = (res.body as { subscriptions: Channel[] }).subscriptions.find((s) => s.name === 'core team')!;
      const ids = await Promise.all([DESDEMONA, HAMLET, IAGO].map((e) => userId(t, e)));
      expect(core.subscribers).toEqual(ids.sort((a, b) => a - b));
    });

    it('leaves out archived channels', async () => {
      const res = await call(t, 'get', '/users/me/subscriptions', IAGO);
      expect(names((res.body as { subscriptions: Channel[] }).subscriptions)).not.toContain('old times');
    });

    it('rejects a bad include_subscribers', async () => {
      expectError(
        await call(t, 'get', '/users/me/subscriptions', HAMLET, { include_subscribers: 'sometimes' }),
        400,
        'Invalid include_subscribers',
      );
    });
  });

  describe('a fixed number of queries whatever the number of channels', () => {
    async function measure(): Promise<Record<string, number>> {
      const out: Record<string, number> = {};
      const cases: Array<[string, string, string, Record<string, unknown>]> = [
        ['streams', IAGO, '/streams', { include_all: true, include_default: true }],
        ['streams-member', HAMLET, '/streams', {}],
        ['subscriptions', HAMLET, '/users/me/subscriptions', { include_subscribers: true }],
      ];
      for (const [label, email, path, params] of cases) {
        await call(t, 'get', path, email, params); // warm the auth and realm caches
        // The fewer of two runs: a cache entry that expires between the warm-up and the measured
        // request on a slow machine (the realm row lives 2 s) must not count as a query more.
        let fewest = Infinity;
        for (let i = 0; i < 2; i++) {
          const { result, count } = await countQueries(() => call(t, 'get', path, email, params));
          expect(result.status).toBe(200);
          fewest = Math.min(fewest, count);
        }
        out[label] = fewest;
      }
      return out;
    }

    it('GET /streams and GET /users/me/subscriptions with 3 and with 30 more channels', async () => {
      const hamlet = await userId(t, HAMLET);
      const before = await measure();
      const publicNames = Array.from({ length: 15 }, (_, i) => ({ name: `bulk public ${i}` }));
      const privateNames = Array.from({ length: 15 }, (_, i) => ({ name: `bulk private ${i}` }));
      expectSuccess(
        await call(t, 'post', '/users/me/subscriptions', HAMLET, {
          subscriptions: publicNames,
          can_add_subscribers_group: { direct_members: [hamlet], direct_subgroups: [] },
          principals: [hamlet, await userId(t, OTHELLO)],
        }),
      );
      expectSuccess(
        await call(t, 'post', '/users/me/subscriptions', HAMLET, {
          subscriptions: privateNames,
          invite_only: true,
          can_subscribe_group: { direct_members: [hamlet], direct_subgroups: [] },
        }),
      );
      const after = await measure();
      expect(after).toEqual(before);
      expect(before.streams).toBeLessThanOrEqual(8);
    });
  });
});
