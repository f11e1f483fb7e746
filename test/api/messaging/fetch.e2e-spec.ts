import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  call,
  channelId,
  CORDELIA,
  expectError,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  sendChannel,
  sendDirect,
  setChannel,
  userId,
} from './helpers';

type Msg = Record<string, unknown> & { id: number; flags: string[] };
const NEWEST = 10_000_000_000_000_000;

describe('reading messages', () => {
  let t: TestApp;
  const ids: Record<string, number> = {};
  let hamlet: number;
  let othello: number;
  let cordelia: number;

  const get = (email: string, params: Record<string, unknown>) => call(t, 'get', '/messages', email, params);
  async function fetchOk(email: string, params: Record<string, unknown>) {
    const res = await get(email, params);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/messages', 200, res.body);
    return res.body as {
      messages: Msg[];
      anchor: number;
      found_anchor: boolean;
      found_oldest: boolean;
      found_newest: boolean;
    };
  }
  const idsOf = (body: { messages: Msg[] }) => body.messages.map((m) => m.id);
  const all = (email: string, narrow: unknown[] = [], extra: Record<string, unknown> = {}) =>
    fetchOk(email, { anchor: 'newest', num_before: 100, num_after: 0, narrow, ...extra });

  beforeAll(async () => {
    t = await startTestApp();
    hamlet = await userId(t, HAMLET);
    othello = await userId(t, OTHELLO);
    cordelia = await userId(t, CORDELIA);
    ids.v1 = await sendChannel(t, HAMLET, 'Verona', 'fetch A', 'first https://zulip.com');
    ids.v2 = await sendChannel(t, OTHELLO, 'Verona', 'fetch A', 'second');
    ids.v3 = await sendChannel(t, HAMLET, 'Verona', 'Fetch a', 'third @**Othello, the Moor of Venice**');
    ids.d1 = await sendChannel(t, IAGO, 'Denmark', 'fetch B', 'a kitchen sink of elephants');
    ids.dm1 = await sendDirect(t, HAMLET, [othello], 'hello othello');
    ids.dm2 = await sendDirect(t, OTHELLO, [hamlet], 'hello hamlet');
    ids.group = await sendDirect(t, HAMLET, [othello, cordelia], 'hello all');
    ids.core = await sendChannel(t, HAMLET, 'core team', 'secret', 'private words');
    ids.venice = await sendChannel(t, PROSPERO, 'Venice', 'canals', 'gondolas');
    ids.empty = await sendChannel(t, OTHELLO, 'Verona', '', 'in general chat');
  });
  afterAll(() => t.close());

  describe('GET /messages windows', () => {
    it('returns the newest messages of the personal history with found_* and the anchor', async () => {
      const body = await all(HAMLET);
      expect(idsOf(body)).toEqual([ids.v1, ids.v2, ids.v3, ids.d1, ids.dm1, ids.dm2, ids.group, ids.core, ids.empty]);
      expect(body).toMatchObject({
        anchor: NEWEST,
        found_anchor: false,
        found_oldest: true,
        found_newest: true,
        history_limited: false,
      });
      const v1 = body.messages[0];
      expect(v1).toMatchObject({
        id: ids.v1,
        sender_id: hamlet,
        sender_email: HAMLET,
        sender_full_name: 'King Hamlet',
        sender_realm_str: 'zulip',
        type: 'stream',
        stream_id: await channelId(t, 'Verona'),
        display_recipient: 'Verona',
        subject: 'fetch A',
        content_type: 'text/html',
        reactions: [],
        submessages: [],
        topic_links: [],
        is_me_message: false,
        client: 'Unspecified',
        flags: [],
      });
      expect(v1.content).toContain('<a href="https://zulip.com">');
      const dm = body.messages.find((m) => m.id === ids.group)!;
      expect(dm).toMatchObject({ type: 'private', subject: '' });
      expect((dm.display_recipient as Array<{ id: number }>).map((u) => u.id)).toEqual(
        [othello, hamlet, cordelia].sort((a, b) => a - b),
      );
      expect(dm).not.toHaveProperty('stream_id');
    });

    it('pages around an anchor with num_before / num_after / include_anchor', async () => {
      let body = await fetchOk(HAMLET, { anchor: String(ids.v3), num_before: 1, num_after: 1 });
      expect(idsOf(body)).toEqual([ids.v2, ids.v3, ids.d1]);
      expect(body).toMatchObject({ anchor: ids.v3, found_anchor: true, found_oldest: false, found_newest: false });
      body = await fetchOk(HAMLET, { anchor: String(ids.v3), num_before: 5, num_after: 0, include_anchor: false });
      expect(idsOf(body)).toEqual([ids.v1, ids.v2]);
      expect(body).toMatchObject({ found_anchor: false, found_oldest: true });
      body = await fetchOk(HAMLET, { anchor: 'oldest', num_before: 0, num_after: 2 });
      expect(idsOf(body)).toEqual([ids.v1, ids.v2]);
      expect(body).toMatchObject({ anchor: 0, found_oldest: true, found_newest: false });
      body = await fetchOk(HAMLET, { anchor: String(ids.d1), num_before: 0, num_after: 0 });
      expect(idsOf(body)).toEqual([ids.d1]);
      // An anchor that is not in the results.
      body = await fetchOk(HAMLET, { anchor: String(ids.venice), num_before: 1, num_after: 1 });
      expect(idsOf(body)).toEqual([ids.core, ids.empty]);
      expect(body.found_anchor).toBe(false);
      // Anchors beyond any id behave as "newest"; negative ones as "oldest".
      body = await fetchOk(HAMLET, { anchor: '99999999999999999999', num_before: 1, num_after: 5 });
      expect(idsOf(body)).toEqual([ids.empty]);
      body = await fetchOk(HAMLET, { anchor: '-5', num_before: 3, num_after: 1 });
      expect(body.anchor).toBe(0);
      expect(idsOf(body)).toEqual([ids.v1]);
    });

    it('starts at the first unread message with anchor=first_unread', async () => {
      // Hamlet's own messages (API client) are unread for him too; mark everything up to dm1 read.
      await call(t, 'post', '/messages/flags', HAMLET, {
        messages: [ids.v1, ids.v2, ids.v3, ids.d1, ids.dm1],
        op: 'add',
        flag: 'read',
      });
      const body = await fetchOk(HAMLET, { anchor: 'first_unread', num_before: 1, num_after: 1 });
      expect(body.anchor).toBe(ids.dm2);
      expect(idsOf(body)).toEqual([ids.dm1, ids.dm2, ids.group]);
      const legacy = await fetchOk(HAMLET, { use_first_unread_anchor: true, num_before: 0, num_after: 0 });
      expect(legacy.anchor).toBe(ids.dm2);
      // Nothing unread in a narrow: the newest message.
      const none = await fetchOk(HAMLET, {
        anchor: 'first_unread',
        num_before: 1,
        num_after: 1,
        narrow: [{ operator: 'channel', operand: 'Denmark' }],
      });
      expect(none.anchor).toBe(NEWEST);
    });

    it('refuses narrows of more than 50 terms (each term may cost a lookup)', async () => {
      const term = { operator: 'is', operand: 'starred' };
      const ok = await get(HAMLET, { anchor: 'newest', num_before: 1, narrow: Array.from({ length: 50 }, () => term) });
      expect(ok.status).toBe(200);
      const res = await get(HAMLET, {
        anchor: 'newest',
        num_before: 1,
        narrow: Array.from({ length: 51 }, () => term),
      });
      expectError(res, 400, 'Invalid narrow operator: a narrow may have at most 50 terms', 'BAD_NARROW');
      expectMatchesOpenApi('get', '/messages', 400, res.body);
    });

    it('refuses bad windows', async () => {
      expectError(await get(HAMLET, { num_before: 1, num_after: 1 }), 400, "Missing 'anchor' argument.");
      expectError(await get(HAMLET, { anchor: 'bogus', num_before: 1, num_after: 1 }), 400, 'Invalid anchor');
      const tooMany = await get(HAMLET, { anchor: 'newest', num_before: 5000, num_after: 1 });
      expectError(tooMany, 400, 'Too many messages requested (maximum 5000).');
      expectMatchesOpenApi('get', '/messages', 400, tooMany.body);
      expect((await get(HAMLET, { anchor: 'newest', num_before: 5000, num_after: 0 })).status).toBe(200);
      expectError(
        await get(HAMLET, { anchor: 'newest', num_before: 1, num_after: 1, include_anchor: false }),
        400,
        'The anchor can only be excluded at an end of the range',
      );
      expectError(await get(HAMLET, { anchor: 'newest', num_before: -1 }), 400, 'num_before is too small');
      expectError(await get(HAMLET, { anchor: 'newest', num_before: 'x' }), 400, 'num_before is not valid JSON');
      expectError(await get(HAMLET, { anchor: 'newest', narrow: '{}' }), 400, 'narrow is not a list');
      expectError(
        await get(HAMLET, { anchor: 'newest', include_anchor: 'maybe' }),
        400,
        'include_anchor is not valid JSON',
      );
    });

    it('fetches explicit message_ids, only those the user may see', async () => {
      const res = await get(HAMLET, { message_ids: [ids.v2, ids.core, ids.venice, 999999] });
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/messages', 200, res.body);
      // Venice is public but not in Hamlet's history: message_ids reads the personal history.
      expect(idsOf(res.body as { messages: Msg[] })).toEqual([ids.v2, ids.core]);
      expect(res.body).not.toHaveProperty('anchor');
      const history = await get(HAMLET, {
        message_ids: [ids.venice],
        narrow: [{ operator: 'channel', operand: 'Venice' }],
      });
      expect(idsOf(history.body as { messages: Msg[] })).toEqual([ids.venice]);
      const combined = await get(HAMLET, { message_ids: [ids.v2], anchor: 'newest' });
      expectError(combined, 400, 'Unsupported parameter combination: message_ids, anchor');
      expect(combined.body).toMatchObject({ parameters: ['message_ids', 'anchor'] });
      expectError(await get(HAMLET, { message_ids: [-1] }), 400, 'message_ids is too small');
    });

    it('formats for the client: raw Markdown, gravatar URLs and the empty topic', async () => {
      const raw = await all(HAMLET, [], { apply_markdown: false, client_gravatar: false });
      const v1 = raw.messages.find((m) => m.id === ids.v1)!;
      expect(v1).toMatchObject({ content: 'first https://zulip.com', content_type: 'text/x-markdown' });
      expect(v1.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=1$/);
      const html = await all(HAMLET);
      expect(html.messages.find((m) => m.id === ids.v1)!.avatar_url).toBeNull();
      expect(html.messages.find((m) => m.id === ids.empty)!.subject).toBe('general chat');
      const modern = await all(HAMLET, [], { allow_empty_topic_name: true });
      expect(modern.messages.find((m) => m.id === ids.empty)!.subject).toBe('');
    });
  });

  describe('narrows', () => {
    it('reads channel history, with read+historical flags for messages never received', async () => {
      const body = await all(HAMLET, [{ operator: 'channel', operand: 'Venice' }]);
      expect(idsOf(body)).toEqual([ids.venice]);
      expect(body.messages[0].flags).toEqual(['read', 'historical']);
      const byId = await all(HAMLET, [{ operator: 'stream', operand: await channelId(t, 'Venice') }]);
      expect(idsOf(byId)).toEqual([ids.venice]);
      // Legacy [operator, operand] pairs.
      expect(idsOf(await all(HAMLET, [['stream', 'venice']]))).toEqual([ids.venice]);
    });

    it('narrows by topic (case-insensitive), sender, id and negations', async () => {
      const verona = [{ operator: 'channel', operand: 'Verona' }];
      expect(idsOf(await all(HAMLET, [...verona, { operator: 'topic', operand: 'FETCH A' }]))).toEqual([
        ids.v1,
        ids.v2,
        ids.v3,
      ]);
      expect(idsOf(await all(HAMLET, [...verona, { operator: 'topic', operand: 'general chat' }]))).toEqual([
        ids.empty,
      ]);
      expect(idsOf(await all(HAMLET, [...verona, { operator: 'topic', operand: '(no topic)' }]))).toEqual([ids.empty]);
      expect(idsOf(await all(HAMLET, [{ operator: 'sender', operand: OTHELLO }]))).toEqual([
        ids.v2,
        ids.dm2,
        ids.empty,
      ]);
      expect(
        idsOf(
          await all(HAMLET, [
            { operator: 'sender', operand: othello },
            { operator: 'channel', operand: 'Verona' },
          ]),
        ),
      ).toEqual([ids.v2, ids.empty]);
      expect(idsOf(await all(HAMLET, [...verona, { operator: 'sender', operand: HAMLET, negated: true }]))).toEqual([
        ids.v2,
        ids.empty,
      ]);
      expect(idsOf(await all(HAMLET, [{ operator: 'id', operand: ids.d1 }]))).toEqual([ids.d1]);
      expect(idsOf(await all(HAMLET, [{ operator: 'has', operand: 'link' }]))).toEqual([ids.v1]);
      expect(
        idsOf(
          await all(HAMLET, [
            { operator: 'near', operand: '12' },
            { operator: 'channel', operand: 'Denmark' },
          ]),
        ),
      ).toEqual([ids.d1]);
    });

    it('narrows to direct-message conversations', async () => {
      expect(idsOf(await all(HAMLET, [{ operator: 'dm', operand: [othello] }]))).toEqual([ids.dm1, ids.dm2]);
      expect(idsOf(await all(OTHELLO, [{ operator: 'dm', operand: HAMLET }]))).toEqual([ids.dm1, ids.dm2]);
      expect(idsOf(await all(HAMLET, [{ operator: 'dm', operand: `${OTHELLO},${CORDELIA}` }]))).toEqual([ids.group]);
      expect(idsOf(await all(HAMLET, [{ operator: 'pm-with', operand: [othello, cordelia] }]))).toEqual([ids.group]);
      expect(idsOf(await all(HAMLET, [{ operator: 'is', operand: 'dm' }]))).toEqual([ids.dm1, ids.dm2, ids.group]);
      expect(idsOf(await all(HAMLET, [{ operator: 'is', operand: 'private' }]))).toEqual([ids.dm1, ids.dm2, ids.group]);
      expect(idsOf(await all(HAMLET, [{ operator: 'dm-including', operand: cordelia }]))).toEqual([ids.group]);
      expect(idsOf(await all(HAMLET, [{ operator: 'dm-including', operand: othello }]))).toEqual([
        ids.dm1,
        ids.dm2,
        ids.group,
      ]);
      // No conversation yet: nothing.
      expect(idsOf(await all(HAMLET, [{ operator: 'dm', operand: [await userId(t, IAGO)] }]))).toEqual([]);
    });

    it('narrows by personal flags', async () => {
      await call(t, 'post', '/messages/flags', HAMLET, { messages: [ids.v2], op: 'add', flag: 'starred' });
      expect(idsOf(await all(HAMLET, [{ operator: 'is', operand: 'starred' }]))).toEqual([ids.v2]);
      expect(idsOf(await all(OTHELLO, [{ operator: 'is', operand: 'mentioned' }]))).toEqual([ids.v3]);
      const unread = await all(OTHELLO, [
        { operator: 'is', operand: 'unread' },
        { operator: 'channel', operand: 'Denmark' },
      ]);
      expect(idsOf(unread)).toEqual([ids.d1]);
      // Othello's own messages came from an API client, so they are unread for him too.
      expect(idsOf(await all(OTHELLO, [{ operator: 'is', operand: 'unread', negated: true }]))).toEqual([]);
      await call(t, 'post', '/messages/flags', OTHELLO, { messages: [ids.v2, ids.dm2], op: 'add', flag: 'read' });
      expect(idsOf(await all(OTHELLO, [{ operator: 'is', operand: 'unread', negated: true }]))).toEqual([
        ids.v2,
        ids.dm2,
      ]);
    });

    it('searches the full text, with highlighted matches', async () => {
      const body = await all(HAMLET, [{ operator: 'search', operand: 'elephant' }]);
      expect(idsOf(body)).toEqual([ids.d1]);
      expect(body.messages[0].match_content).toBe('<p>a kitchen sink of <span class="highlight">elephants</span></p>');
      expect(body.messages[0].match_subject).toBe('fetch B');
      expect(idsOf(await all(HAMLET, [{ operator: 'search', operand: '"kitchen sink"' }]))).toEqual([ids.d1]);
      expect(idsOf(await all(HAMLET, [{ operator: 'search', operand: '"sink kitchen"' }]))).toEqual([]);
      // The topic is searched too.
      expect(
        idsOf(
          await all(HAMLET, [
            { operator: 'search', operand: 'canals' },
            { operator: 'channel', operand: 'Venice' },
          ]),
        ),
      ).toEqual([ids.venice]);
    });

    it('refuses unknown operators and operands with BAD_NARROW', async () => {
      const cases: Array<[unknown[], string]> = [
        [[{ operator: 'bogus', operand: 'x' }], 'Invalid narrow operator: unknown operator bogus'],
        [[{ operator: 'channel', operand: 'nowhere' }], 'Invalid narrow operator: unknown channel nowhere'],
        [
          [{ operator: 'sender', operand: 'nobody@zulip.com' }],
          'Invalid narrow operator: unknown user nobody@zulip.com',
        ],
        [[{ operator: 'dm', operand: [99999] }], 'Invalid narrow operator: unknown user in [99999]'],
        [[{ operator: 'is', operand: 'bogus' }], "Invalid narrow operator: unknown 'is' operand bogus"],
        [[{ operator: 'has', operand: 'bogus' }], "Invalid narrow operator: unknown 'has' operand bogus"],
        [[{ operator: 'id', operand: 'x1' }], 'Invalid narrow operator: Invalid message ID'],
        [
          [
            { operator: 'channel', operand: 'Verona' },
            { operator: 'is', operand: 'dm' },
          ],
          'Invalid narrow operator: No message can be both a channel message and direct message',
        ],
      ];
      for (const [narrow, msg] of cases) {
        const res = await get(HAMLET, { anchor: 'newest', num_before: 1, narrow });
        expectError(res, 400, msg, 'BAD_NARROW');
      }
      expectError(
        await get(HAMLET, { anchor: 'newest', narrow: [['a']] }),
        400,
        'Invalid narrow[0]: Value error, element is not a string pair',
      );
      expectError(
        await get(HAMLET, { anchor: 'newest', narrow: [{ operator: 'channel' }] }),
        400,
        'Invalid narrow[0]: Value error, operand is missing',
      );
      expectError(
        await get(HAMLET, { anchor: 'newest', narrow: [{ operator: 'topic', operand: 5 }] }),
        400,
        'operand is not a string',
      );
      expectError(
        await get(HAMLET, { anchor: 'newest', narrow: [{ operator: 'search', operand: ' ' }] }),
        400,
        'operand cannot be blank',
      );
      expectError(
        await get(HAMLET, { anchor: 'newest', narrow: [{ operator: 'topic', operand: 'x', negated: 'no' }] }),
        400,
        'negated is not a boolean',
      );
    });
  });

  describe('GET /messages/{message_id}', () => {
    it('returns the message with raw_content', async () => {
      const res = await call(t, 'get', `/messages/${ids.v3}`, OTHELLO);
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/messages/{message_id}', 200, res.body);
      expect(res.body).toMatchObject({
        raw_content: 'third @**Othello, the Moor of Venice**',
        message: { id: ids.v3, flags: ['mentioned'], content_type: 'text/html' },
      });
      // client_gravatar is always off here.
      expect((res.body as { message: { avatar_url: string } }).message.avatar_url).toMatch(/^https:/);
      const raw = await call(t, 'get', `/messages/${ids.v3}`, OTHELLO, { apply_markdown: false });
      expect((raw.body as { message: { content: string } }).message.content).toBe(
        'third @**Othello, the Moor of Venice**',
      );
    });

    it('gives public channel history to members, not to guests', async () => {
      const res = await call(t, 'get', `/messages/${ids.venice}`, HAMLET);
      expect(res.status).toBe(200);
      expect((res.body as { message: Msg }).message.flags).toEqual(['read', 'historical']);
      expectError(await call(t, 'get', `/messages/${ids.venice}`, POLONIUS), 400, 'Invalid message(s)');
      expectError(await call(t, 'get', `/messages/${ids.core}`, OTHELLO), 400, 'Invalid message(s)');
      expectError(await call(t, 'get', `/messages/${ids.dm1}`, CORDELIA), 400, 'Invalid message(s)');
      const missing = await call(t, 'get', '/messages/99999999', HAMLET);
      expectError(missing, 400, 'Invalid message(s)');
      expectMatchesOpenApi('get', '/messages/{message_id}', 400, missing.body);
      expect((await call(t, 'get', '/messages/abc', HAMLET)).status).toBe(404);
    });
  });

  describe('GET /users/me/{stream_id}/topics', () => {
    it('lists topics by recency, one per case-insensitive name', async () => {
      const res = await call(t, 'get', `/users/me/${await channelId(t, 'Verona')}/topics`, HAMLET);
      expect(res.status).toBe(200);
      expectMatchesOpenApi('get', '/users/me/{stream_id}/topics', 200, res.body);
      expect((res.body as { topics: unknown[] }).topics).toEqual([
        { name: 'general chat', max_id: ids.empty },
        { name: 'Fetch a', max_id: ids.v3 },
      ]);
      const modern = await call(t, 'get', `/users/me/${await channelId(t, 'Verona')}/topics`, HAMLET, {
        allow_empty_topic_name: true,
      });
      expect((modern.body as { topics: Array<{ name: string }> }).topics[0].name).toBe('');
    });

    it('shows protected history only as far as the user received it', async () => {
      await setChannel(t, 'core team', { history_public_to_subscribers: false });
      const core = await channelId(t, 'core team');
      // Othello joins after the first message.
      await call(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: [{ name: 'core team' }],
        principals: [OTHELLO],
      });
      const later = await sendChannel(t, IAGO, 'core team', 'later', 'after othello joined');
      const othelloTopics = await call(t, 'get', `/users/me/${core}/topics`, OTHELLO);
      expect((othelloTopics.body as { topics: unknown[] }).topics).toEqual([{ name: 'later', max_id: later }]);
      const hamletTopics = await call(t, 'get', `/users/me/${core}/topics`, HAMLET);
      expect((hamletTopics.body as { topics: unknown[] }).topics).toEqual([
        { name: 'later', max_id: later },
        { name: 'secret', max_id: ids.core },
      ]);
      // Othello's channel narrow also only shows what he received.
      expect(idsOf(await all(OTHELLO, [{ operator: 'channel', operand: 'core team' }]))).toEqual([later]);
      expect((await call(t, 'get', `/messages/${ids.core}`, OTHELLO)).status).toBe(400);
    });

    it('refuses channels the user cannot read', async () => {
      const core = await channelId(t, 'core team');
      const res = await call(t, 'get', `/users/me/${core}/topics`, CORDELIA);
      expectError(res, 400, 'Invalid channel ID');
      expectMatchesOpenApi('get', '/users/me/{stream_id}/topics', 400, res.body);
      expectError(await call(t, 'get', '/users/me/999999/topics', HAMLET), 400, 'Invalid channel ID');
      expectError(
        await call(t, 'get', `/users/me/${await channelId(t, 'Denmark')}/topics`, POLONIUS),
        400,
        'Invalid channel ID',
      );
    });
  });
});
