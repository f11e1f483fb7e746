/**
 * Drafts (zerver/tests/test_drafts.py): GET/POST /drafts, PATCH/DELETE /drafts/{draft_id},
 * enable_drafts_synchronization, drafts in /register and drafts events.
 */
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  call,
  channelId,
  DEFAULT_BOT,
  expectError,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  userId,
  ZOE,
} from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { createUsers, openQueue, takeEvents } from '../messaging/helpers';

type Draft = { id: number; type: string; to: number[]; topic: string; content: string; timestamp: number };

describe('drafts', () => {
  let t: TestApp;
  let verona: number;
  let hamlet: number;
  let othello: number;
  let zoe: number;
  let learUser: number;

  beforeAll(async () => {
    t = await startTestApp();
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    learUser = (await t.app.get(UsersService).createUser(lear, { email: 'king@lear.example', fullName: 'King Lear' }))
      .user.id;
    verona = await channelId(t, 'Verona');
    hamlet = await userId(t, HAMLET);
    othello = await userId(t, OTHELLO);
    zoe = await userId(t, ZOE);
  });
  afterAll(() => t.close());

  const create = (email: string, drafts: unknown) => call(t, 'post', '/drafts', email, { drafts });
  const list = async (email: string) => (await call(t, 'get', '/drafts', email)).body.drafts as Draft[];
  const draftCount = async () => Number((await t.dataSource.query(`SELECT count(*) AS n FROM draft`))[0].n);
  const clear = async (email: string) => {
    for (const d of await list(email)) await call(t, 'delete', `/drafts/${d.id}`, email);
  };
  const withoutId = ({ id: _id, ...rest }: Draft) => rest;

  describe('POST and GET', () => {
    it('creates a channel draft; GET lists it with the count (Zulip test_create_one_stream_draft_properly)', async () => {
      const draft = {
        type: 'stream',
        to: [verona],
        topic: 'sync drafts',
        content: "Let's sync.",
        timestamp: 1595479019,
      };
      const res = await create(HAMLET, [draft]);
      expect(res.status).toBe(200);
      expectMatchesOpenApi('post', '/drafts', 200, res.body);
      const got = await call(t, 'get', '/drafts', HAMLET);
      expect(got.status).toBe(200);
      expectMatchesOpenApi('get', '/drafts', 200, got.body);
      expect(got.body).toMatchObject({ count: 1, drafts: [{ id: (res.body.ids as number[])[0], ...draft }] });
      await clear(HAMLET);
    });

    it('direct drafts: the topic is ignored, `to` lists the others by id, oneself alone for a note to self', async () => {
      const res = await create(HAMLET, [
        { type: 'private', to: [zoe], topic: 'ignored', content: 'one', timestamp: 1595479019 },
        { type: 'private', to: [zoe, othello, zoe], topic: '', content: 'group', timestamp: 1595479020 },
        { type: 'private', to: [hamlet, othello], topic: '', content: 'with me', timestamp: 1595479021 },
        { type: 'private', to: [hamlet], topic: '', content: 'to self', timestamp: 1595479022 },
        { type: 'private', to: [], topic: 'x', content: 'nobody yet', timestamp: 1595479023 },
        { type: '', to: [], topic: 'x', content: 'no type', timestamp: 1595479024 },
      ]);
      expect(res.status).toBe(200);
      expect((await list(HAMLET)).map(withoutId)).toEqual([
        { type: 'private', to: [zoe], topic: '', content: 'one', timestamp: 1595479019 },
        {
          type: 'private',
          to: [othello, zoe].sort((a, b) => a - b),
          topic: '',
          content: 'group',
          timestamp: 1595479020,
        },
        { type: 'private', to: [othello], topic: '', content: 'with me', timestamp: 1595479021 },
        { type: 'private', to: [hamlet], topic: '', content: 'to self', timestamp: 1595479022 },
        { type: '', to: [], topic: '', content: 'nobody yet', timestamp: 1595479023 },
        { type: '', to: [], topic: '', content: 'no type', timestamp: 1595479024 },
      ]);
      await clear(HAMLET);
    });

    it('ids in the order given; GET lists the oldest first, /register the newest first', async () => {
      const res = await create(HAMLET, [
        { type: 'stream', to: [verona], topic: 'b', content: 'middle', timestamp: 15954790198 },
        { type: 'stream', to: [verona], topic: 'c', content: 'newest', timestamp: 15954790199 },
        { type: 'stream', to: [verona], topic: 'a', content: 'oldest', timestamp: 15954790197.25 },
      ]);
      const ids = res.body.ids as number[];
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect((await list(HAMLET)).map((d) => d.id)).toEqual([ids[2], ids[0], ids[1]]);
      const state = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['drafts'] });
      expect((state.body.drafts as Draft[]).map((d) => d.id)).toEqual([ids[1], ids[0], ids[2]]);
      expect((state.body.drafts as Draft[])[2].timestamp).toBe(15954790197);
      await clear(HAMLET);
    });

    it('a missing timestamp is the current time; content and topic are normalized and cut as messages', async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await create(HAMLET, [
        { type: 'stream', to: [verona], topic: 't'.repeat(70), content: `\n\n  ${'x'.repeat(10005)}  \n` },
      ]);
      expect(res.status).toBe(200);
      const [draft] = await list(HAMLET);
      expect(Number.isInteger(draft.timestamp)).toBe(true);
      expect(draft.timestamp).toBeGreaterThanOrEqual(before);
      expect(draft.topic).toBe(`${'t'.repeat(57)}...`);
      expect(draft.content.endsWith('\n[message truncated]')).toBe(true);
      expect(draft.content.startsWith('x')).toBe(true);
      await clear(HAMLET);
    });

    it('sends a drafts add event to the user only', async () => {
      const mine = await openQueue(t, HAMLET, ['drafts']);
      const other = await openQueue(t, OTHELLO, ['drafts']);
      const draft = { type: 'stream', to: [verona], topic: 'ev', content: 'event', timestamp: 1600000000 };
      const ids = (await create(HAMLET, [draft, { ...draft, content: 'two' }])).body.ids as number[];
      expect(await takeEvents(t, mine)).toEqual([
        {
          type: 'drafts',
          op: 'add',
          drafts: [
            { id: ids[0], ...draft },
            { id: ids[1], ...draft, content: 'two' },
          ],
        },
      ]);
      expect(await takeEvents(t, other)).toEqual([]);
      await clear(HAMLET);
    });
  });

  describe('errors of POST (nothing is created)', () => {
    it("the draft's shape, in Zulip's words", async () => {
      const ok = { type: 'stream', to: [verona], topic: 't', content: 'c' };
      const cases: Array<[unknown, string]> = [
        ['not json', 'drafts is not valid JSON'],
        [{ a: 1 }, 'drafts is not a list'],
        [[7], 'Invalid drafts[0]: Input should be a valid dictionary or instance of DraftData'],
        [[ok, { to: [], topic: '', content: 'c' }], 'drafts[1]["type"] field is missing: Field required'],
        [[{ ...ok, type: 'channel' }], 'Invalid drafts[0]["type"]'],
        [[{ type: '', topic: '', content: 'c' }], 'drafts[0]["to"] field is missing: Field required'],
        [[{ ...ok, to: verona }], 'drafts[0]["to"] is not a list'],
        [[{ ...ok, to: ['x'] }], 'drafts[0]["to"][0] is not an integer'],
        [[{ type: '', to: [], content: 'c' }], 'drafts[0]["topic"] field is missing: Field required'],
        [[{ ...ok, topic: 5 }], 'drafts[0]["topic"] is not a string'],
        [[{ type: '', to: [], topic: '' }], 'drafts[0]["content"] field is missing: Field required'],
        [[{ ...ok, content: '  \n ' }], 'drafts[0]["content"] cannot be blank'],
        [[{ ...ok, timestamp: 'now' }], 'drafts[0]["timestamp"] is not an integer'],
        [[{ ...ok, extra: 1 }], 'Argument "extra" at drafts[0] is unexpected'],
      ];
      const before = await draftCount();
      for (const [drafts, msg] of cases) {
        const res = await create(HAMLET, drafts);
        expectError(res, 400, msg);
        expectMatchesOpenApi('post', '/drafts', 400, res.body);
      }
      expectError(
        await call(t, 'post', '/drafts', HAMLET, {}),
        400,
        "Missing 'drafts' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      expect(await draftCount()).toBe(before);
    });

    it('Zulip’s checks of timestamps, recipients and content', async () => {
      const secret = await call(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: [{ name: 'Secret Society' }],
        invite_only: true,
      });
      expect(secret.status).toBe(200);
      const secretId = await channelId(t, 'Secret Society');
      expect(
        (await call(t, 'post', '/users/me/subscriptions', IAGO, { subscriptions: [{ name: 'Old news' }] })).status,
      ).toBe(200);
      const archived = await channelId(t, 'Old news');
      expect((await call(t, 'delete', `/streams/${archived}`, IAGO)).status).toBe(200);
      const [gone] = await createUsers(t, 'draftgone', 1);
      expect((await call(t, 'delete', `/users/${gone}`, IAGO)).status).toBe(200);
      const base = { topic: 'sync drafts', content: 'Some content', timestamp: 1595479019 };
      const cases: Array<[unknown, string]> = [
        [{ ...base, type: 'stream', to: [], timestamp: -10.1 }, 'Timestamp must not be negative.'],
        [{ ...base, type: 'stream', to: [verona], timestamp: 1e13 }, 'timestamp is too large'],
        [{ ...base, type: 'stream', to: [] }, 'Must specify exactly 1 channel ID for channel messages'],
        [{ ...base, type: 'stream', to: [verona, verona] }, 'Must specify exactly 1 channel ID for channel messages'],
        [{ ...base, type: 'stream', to: [secretId] }, 'Invalid channel ID'],
        [{ ...base, type: 'stream', to: [99999999999999] }, 'Invalid channel ID'],
        [{ ...base, type: 'stream', to: [archived] }, 'Invalid channel ID'],
        [{ ...base, type: 'private', to: [99999999999999] }, 'Invalid user ID 99999999999999'],
        [{ ...base, type: 'private', to: [othello, learUser] }, `Invalid user ID ${learUser}`],
        [{ ...base, type: 'private', to: [othello, gone] }, `'draftgone0@zulip.com' is no longer using Zulip.`],
        [
          { ...base, type: '', to: [], content: 'Some regular \u0000 content here' },
          'Message must not contain null bytes',
        ],
        [{ ...base, type: 'stream', to: [10], topic: 'thinking about \u0000' }, 'Topic must not contain null bytes'],
      ];
      const before = await draftCount();
      for (const [draft, msg] of cases) {
        // A good draft first: a batch is all or nothing.
        const res = await create(HAMLET, [{ ...base, type: '', to: [] }, draft]);
        expectError(res, 400, msg);
      }
      expect(await draftCount()).toBe(before);
    });
  });

  describe('PATCH and DELETE', () => {
    it('edits a draft (Zulip test_edit_draft_successfully) with an update event', async () => {
      const draft = {
        type: 'stream',
        to: [verona],
        topic: 'drafts',
        content: 'The API should be good',
        timestamp: 1595505700,
      };
      const [id] = (await create(HAMLET, [draft])).body.ids as number[];
      const q = await openQueue(t, HAMLET, ['drafts']);
      const denmark = await channelId(t, 'Denmark');
      const changed = {
        type: 'stream',
        to: [denmark],
        topic: 'designing drafts',
        content: 'Structured yet simple.',
        timestamp: 1595505800,
      };
      const res = await call(t, 'patch', `/drafts/${id}`, HAMLET, { draft: changed });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('patch', '/drafts/{draft_id}', 200, res.body);
      expect((await list(HAMLET)).find((d) => d.id === id)).toEqual({ id, ...changed });
      expect(await takeEvents(t, q)).toEqual([{ type: 'drafts', op: 'update', draft: { id, ...changed } }]);

      const del = await call(t, 'delete', `/drafts/${id}`, HAMLET);
      expect(del.status).toBe(200);
      expectMatchesOpenApi('delete', '/drafts/{draft_id}', 200, del.body);
      expect(await takeEvents(t, q)).toEqual([{ type: 'drafts', op: 'remove', draft_id: id }]);
      expect(await list(HAMLET)).toEqual([]);
    });

    it("a missing draft, another user's and another realm's: Draft does not exist (404), unchanged", async () => {
      const draft = { type: 'stream', to: [verona], topic: 'mine', content: 'hands off', timestamp: 1595505700 };
      const [id] = (await create(HAMLET, [draft])).body.ids as number[];
      const learCall = async (method: 'patch' | 'delete', path: string, params: Record<string, string> = {}) =>
        t
          .http()
          [method](`/api/v1${path}`)
          .set('Host', 'lear.zulip.testserver')
          .auth(...(await t.auth('king@lear.example', 'lear')))
          .type('form')
          .send(params);
      const edit = { draft: { ...draft, content: '???' } };
      for (const res of [
        await call(t, 'patch', '/drafts/999999999', HAMLET, edit),
        await call(t, 'patch', '/drafts/99999999999999', HAMLET, edit),
        await call(t, 'patch', `/drafts/${id}`, ZOE, edit),
        await learCall('patch', `/drafts/${id}`, { draft: JSON.stringify(edit.draft) }),
        await call(t, 'delete', '/drafts/9999999999', HAMLET),
        await call(t, 'delete', `/drafts/${id}`, ZOE),
        await learCall('delete', `/drafts/${id}`),
      ]) {
        expectError(res, 404, 'Draft does not exist');
      }
      expectMatchesOpenApi(
        'patch',
        '/drafts/{draft_id}',
        404,
        (await call(t, 'patch', `/drafts/${id}`, ZOE, edit)).body,
      );
      expectMatchesOpenApi('delete', '/drafts/{draft_id}', 404, (await call(t, 'delete', `/drafts/${id}`, ZOE)).body);
      expect((await list(HAMLET)).map(withoutId)).toEqual([draft]);
      // A non-numeric id is an unknown route.
      expect((await call(t, 'delete', '/drafts/abc', HAMLET)).status).toBe(404);
      // The shape is checked before the draft is looked up, as Zulip's typed_endpoint does.
      expectError(
        await call(t, 'patch', '/drafts/999999999', HAMLET, { draft: [] }),
        400,
        'Invalid draft: Input should be a valid dictionary or instance of DraftData',
      );
      expectError(
        await call(t, 'patch', `/drafts/${id}`, HAMLET, {}),
        400,
        "Missing 'draft' argument",
        'REQUEST_VARIABLE_MISSING',
      );
      expectError(
        await call(t, 'patch', `/drafts/${id}`, HAMLET, { draft: { ...draft, timestamp: -1 } }),
        400,
        'Timestamp must not be negative.',
      );
      await clear(HAMLET);
    });
  });

  describe('enable_drafts_synchronization', () => {
    it('while off, every drafts request is refused first; turning it off deletes the drafts, with no drafts events', async () => {
      const draft = { type: 'stream', to: [verona], topic: 'keep?', content: 'soon gone', timestamp: 1595505700 };
      const [id] = (await create(HAMLET, [draft])).body.ids as number[];
      const q = await openQueue(t, HAMLET, ['drafts', 'user_settings']);
      expect((await call(t, 'patch', '/settings', HAMLET, { enable_drafts_synchronization: false })).status).toBe(200);
      const events = await takeEvents(t, q);
      expect(events.map((e) => e.type)).toEqual(['user_settings']);
      expect(
        Number((await t.dataSource.query(`SELECT count(*) AS n FROM draft WHERE user_profile_id = $1`, [hamlet]))[0].n),
      ).toBe(0);

      const off = 'User has disabled synchronizing drafts.';
      expectError(await call(t, 'get', '/drafts', HAMLET), 400, off);
      expectError(await call(t, 'post', '/drafts', HAMLET, { drafts: '[]' }), 400, off);
      expectError(await call(t, 'post', '/drafts', HAMLET), 400, off);
      expectError(await call(t, 'patch', '/drafts/1', HAMLET, { draft: {} }), 400, off);
      expectError(await call(t, 'delete', `/drafts/${id}`, HAMLET), 400, off);
      expectMatchesOpenApi('get', '/drafts', 400, (await call(t, 'get', '/drafts', HAMLET)).body);
      const state = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['drafts'] });
      expect(state.body.drafts).toEqual([]);

      expect((await call(t, 'patch', '/settings', HAMLET, { enable_drafts_synchronization: true })).status).toBe(200);
      expect(await list(HAMLET)).toEqual([]);
    });
  });

  describe('who may keep drafts', () => {
    it('guests (channels they can access only) and bots', async () => {
      const subs = (await call(t, 'get', '/users/me/subscriptions', POLONIUS)).body.subscriptions as Array<{
        stream_id: number;
      }>;
      expect(subs.length).toBeGreaterThan(0);
      const ok = await create(POLONIUS, [
        { type: 'stream', to: [subs[0].stream_id], topic: 't', content: 'guest draft' },
      ]);
      expect(ok.status).toBe(200);
      expect((await list(POLONIUS)).length).toBe(1);
      const created = await call(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: [{ name: 'Guestless' }],
      });
      expect(created.status).toBe(200);
      expectError(
        await create(POLONIUS, [{ type: 'stream', to: [await channelId(t, 'Guestless')], topic: 't', content: 'no' }]),
        400,
        'Invalid channel ID',
      );
      expect(
        (await create(DEFAULT_BOT, [{ type: 'private', to: [hamlet], topic: '', content: 'bot draft' }])).status,
      ).toBe(200);
      expect((await list(DEFAULT_BOT)).map((d) => d.to)).toEqual([[hamlet]]);
      expect((await list(HAMLET)).length).toBe(0);
    });

    it('deactivated users are refused', async () => {
      const [gone] = await createUsers(t, 'draftsdeact', 1);
      const email = 'draftsdeact0@zulip.com';
      expect((await create(email, [{ type: '', to: [], topic: '', content: 'x' }])).status).toBe(200);
      expect((await call(t, 'delete', `/users/${gone}`, IAGO)).status).toBe(200);
      expect((await call(t, 'get', '/drafts', email)).status).toBe(401);
      expect((await create(email, [{ type: '', to: [], topic: '', content: 'x' }])).status).toBe(401);
    });
  });
});
