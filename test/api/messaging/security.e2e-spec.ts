import type { Response } from 'supertest';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  call,
  channelId,
  CORDELIA,
  encodeParams,
  expectError,
  HAMLET,
  IAGO,
  type Method,
  openQueue,
  OTHELLO,
  POLONIUS,
  sendChannel,
  sendDirect,
  setChannel,
  subscribe,
  takeEvents,
  umFlags,
  unsubscribe,
  userId,
  ZOE,
} from './helpers';

/**
 * No endpoint reveals or changes a message the caller cannot access, and "no such message"
 * looks exactly like "no access".
 */
describe('message access security', () => {
  let t: TestApp;
  const MISSING = 2_000_000_000;
  let learUser: number;
  let learMessage: number;
  let learChannel: number;

  async function callLear(method: Method, path: string, params: Record<string, unknown> = {}): Promise<Response> {
    const auth = await t.auth('king@lear.example', 'lear');
    const url = `/api/v1${path}`;
    const encoded = encodeParams(params);
    if (method === 'get')
      return t
        .http()
        .get(url)
        .set('Host', 'lear.zulip.testserver')
        .auth(...auth)
        .query(encoded);
    return t
      .http()
      [method](url)
      .set('Host', 'lear.zulip.testserver')
      .auth(...auth)
      .type('form')
      .send(encoded);
  }

  /** Every way to read or touch message `id`, with the response bodies to compare. */
  async function probe(email: string, id: number): Promise<unknown[]> {
    const bodies: unknown[] = [];
    const record = (res: Response) => bodies.push({ status: res.status, body: res.body as unknown });
    record(await call(t, 'get', `/messages/${id}`, email));
    record(await call(t, 'post', `/messages/${id}/reactions`, email, { emoji_name: 'octopus' }));
    record(await call(t, 'delete', `/messages/${id}/reactions`, email, { emoji_name: 'octopus' }));
    const vote = JSON.stringify({ type: 'vote', key: 'canned,0', vote: 1 });
    record(await call(t, 'post', '/submessage', email, { message_id: id, msg_type: 'widget', content: vote }));
    record(await call(t, 'post', '/messages/flags', email, { messages: [id], op: 'add', flag: 'starred' }));
    record(await call(t, 'post', '/messages/flags', email, { messages: [id], op: 'remove', flag: 'read' }));
    record(await call(t, 'post', '/messages/flags', email, { messages: [id], op: 'add', flag: 'read' }));
    const fetched = await call(t, 'get', '/messages', email, { message_ids: [id] });
    bodies.push({
      status: fetched.status,
      ids: (fetched.body as { messages: Array<{ id: number }> }).messages.map((m) => m.id),
    });
    const search = await call(t, 'get', '/messages', email, {
      anchor: 'newest',
      num_before: 100,
      narrow: [{ operator: 'id', operand: id }],
    });
    bodies.push({
      status: search.status,
      ids: (search.body as { messages: Array<{ id: number }> }).messages.map((m) => m.id),
    });
    return bodies;
  }

  async function expectNoAccess(email: string, id: number): Promise<void> {
    const seen = await probe(email, id);
    const missing = await probe(email, MISSING);
    expect(seen).toEqual(missing);
    expect(seen[0]).toEqual({ status: 400, body: { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' } });
  }

  beforeAll(async () => {
    t = await startTestApp();
    const realms = t.app.get(RealmService);
    const lear = await realms.createRealm({ stringId: 'lear', name: 'Lear & Co' });
    const { user } = await t.app
      .get(UsersService)
      .createUser(lear, { email: 'king@lear.example', fullName: 'King Lear' });
    learUser = user.id;
    const sub = await callLear('post', '/users/me/subscriptions', { subscriptions: [{ name: 'heath' }] });
    expect(sub.status).toBe(200);
    const sent = await callLear('post', '/messages', {
      type: 'stream',
      to: 'heath',
      topic: 'storm',
      content: 'blow, winds',
    });
    expect(sent.status).toBe(200);
    learMessage = (sent.body as { id: number }).id;
    learChannel = (await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM stream WHERE name = 'heath'`))[0].id;
  });
  afterAll(() => t.close());

  it('hides private channel messages from non-subscribers, whatever their role', async () => {
    const id = await sendChannel(t, HAMLET, 'core team', 'plans', 'private plans');
    await expectNoAccess(OTHELLO, id);
    await expectNoAccess(POLONIUS, id);
    await expectNoAccess('shiva@zulip.com', id);
    // Nothing in narrows or search either.
    const narrowed = await call(t, 'get', '/messages', OTHELLO, {
      anchor: 'newest',
      num_before: 50,
      narrow: [{ operator: 'channel', operand: 'core team' }],
    });
    expect((narrowed.body as { messages: unknown[] }).messages).toEqual([]);
    const searched = await call(t, 'get', '/messages', OTHELLO, {
      anchor: 'newest',
      num_before: 50,
      narrow: [{ operator: 'search', operand: 'plans' }],
    });
    expect((searched.body as { messages: unknown[] }).messages).toEqual([]);
    expect(await umFlags(t, OTHELLO, id)).toBeNull();
  });

  it('hides direct messages from non-participants', async () => {
    const id = await sendDirect(t, HAMLET, [await userId(t, OTHELLO)], 'between us');
    await expectNoAccess(CORDELIA, id);
    await expectNoAccess(IAGO, id);
  });

  it('hides public channel history from guests', async () => {
    const id = await sendChannel(t, IAGO, 'Denmark', 'guests', 'not for guests');
    await expectNoAccess(POLONIUS, id);
  });

  it('limits protected history to messages received while subscribed', async () => {
    await setChannel(t, 'core team', { history_public_to_subscribers: false });
    const before = await sendChannel(t, HAMLET, 'core team', 'protected', 'before zoe');
    await subscribe(t, IAGO, 'core team', [ZOE]);
    const after = await sendChannel(t, HAMLET, 'core team', 'protected', 'after zoe');
    await expectNoAccess(ZOE, before);
    expect((await call(t, 'get', `/messages/${after}`, ZOE)).status).toBe(200);
    const narrowed = await call(t, 'get', '/messages', ZOE, {
      anchor: 'newest',
      num_before: 50,
      narrow: [{ operator: 'channel', operand: 'core team' }],
    });
    expect((narrowed.body as { messages: Array<{ id: number }> }).messages.map((m) => m.id)).toEqual([after]);
    await setChannel(t, 'core team', { history_public_to_subscribers: true });
  });

  it('takes access away when a user leaves a private channel', async () => {
    const old = await sendChannel(t, IAGO, 'core team', 'leaving', 'before hamlet leaves');
    expect((await call(t, 'get', `/messages/${old}`, HAMLET)).status).toBe(200);
    const reactions = await openQueue(t, HAMLET, ['reaction', 'message']);
    await unsubscribe(t, HAMLET, 'core team');
    await expectNoAccess(HAMLET, old);
    const everything = await call(t, 'get', '/messages', HAMLET, { anchor: 'newest', num_before: 1000 });
    expect((everything.body as { messages: Array<{ id: number }> }).messages.map((m) => m.id)).not.toContain(old);
    // Later activity is not delivered.
    await call(t, 'post', `/messages/${old}/reactions`, IAGO, { emoji_name: 'tada' });
    await sendChannel(t, IAGO, 'core team', 'leaving', 'after hamlet left');
    expect(await takeEvents(t, reactions)).toEqual([]);
    await subscribe(t, IAGO, 'core team', [HAMLET]);
    expect((await call(t, 'get', `/messages/${old}`, HAMLET)).status).toBe(200);
  });

  it('keeps realms apart', async () => {
    await expectNoAccess(HAMLET, learMessage);
    await expectNoAccess(IAGO, learMessage);
    const zulipMessage = await sendChannel(t, HAMLET, 'Verona', 'realms', 'zulip only');
    expectError(await callLear('get', `/messages/${zulipMessage}`), 400, 'Invalid message(s)');
    expectError(
      await callLear('post', `/messages/${zulipMessage}/reactions`, { emoji_name: 'octopus' }),
      400,
      'Invalid message(s)',
    );
    expectError(
      await callLear('post', '/messages/flags', { messages: [zulipMessage], op: 'add', flag: 'starred' }),
      400,
      'Invalid message(s)',
    );
    const verona = await channelId(t, 'Verona');
    expectError(
      await callLear('post', '/messages', { type: 'stream', to: String(verona), topic: 'x', content: 'x' }),
      400,
      `Channel with ID '${verona}' does not exist`,
      'STREAM_DOES_NOT_EXIST',
    );
    expectError(
      await callLear('post', '/messages', { type: 'stream', to: 'Verona', topic: 'x', content: 'x' }),
      400,
      "Channel 'Verona' does not exist",
      'STREAM_DOES_NOT_EXIST',
    );
    const hamlet = await userId(t, HAMLET);
    expectError(
      await callLear('post', '/messages', { type: 'direct', to: JSON.stringify([hamlet]), content: 'x' }),
      400,
      `Invalid user ID ${hamlet}`,
    );
    expectError(
      await callLear('post', '/messages', { type: 'direct', to: JSON.stringify([HAMLET]), content: 'x' }),
      400,
      `Invalid email '${HAMLET}'`,
    );
    expectError(
      await callLear('get', '/messages', { anchor: 'newest', narrow: [{ operator: 'channel', operand: verona }] }),
      400,
      `Invalid narrow operator: unknown channel ${verona}`,
      'BAD_NARROW',
    );
    expectError(await call(t, 'get', `/users/me/${learChannel}/topics`, HAMLET), 400, 'Invalid channel ID');
    expectError(
      await call(t, 'post', '/typing', HAMLET, { op: 'start', to: [learUser] }),
      400,
      `Invalid user ID ${learUser}`,
    );
    // Lear's own view: only Lear's messages.
    const learView = await callLear('get', '/messages', { anchor: 'newest', num_before: 1000 });
    const learIds = (learView.body as { messages: Array<{ id: number }> }).messages.map((m) => m.id);
    expect(learIds).toContain(learMessage);
    expect(learIds).not.toContain(zulipMessage);
    const zulipView = await call(t, 'get', '/messages', HAMLET, {
      anchor: 'newest',
      num_before: 1000,
      narrow: [{ operator: 'channels', operand: 'public' }],
    });
    expect((zulipView.body as { messages: Array<{ id: number }> }).messages.map((m) => m.id)).not.toContain(
      learMessage,
    );
  });

  it('never answers 500 to hostile ids and operands', async () => {
    for (const path of ['/messages/99999999999999999', '/messages/2147483648']) {
      const res = await call(t, 'get', path, HAMLET);
      expect([400, 404]).toContain(res.status);
    }
    const bigIds = await call(t, 'post', '/messages/flags', HAMLET, {
      messages: [2147483648, -1, 0],
      op: 'add',
      flag: 'starred',
    });
    expectError(bigIds, 400, 'Invalid message(s)');
    const bigNarrow = await call(t, 'get', '/messages', HAMLET, {
      anchor: 'newest',
      num_before: 5,
      narrow: [
        { operator: 'id', operand: '99999999999999999999' },
        { operator: 'sender', operand: 99999999999 },
      ],
    });
    expect(bigNarrow.status).toBe(400);
    const dmNarrow = await call(t, 'get', '/messages', HAMLET, {
      anchor: 'newest',
      narrow: [{ operator: 'dm', operand: [99999999999] }],
    });
    expectError(dmNarrow, 400, 'Invalid narrow operator: unknown user in [99999999999]', 'BAD_NARROW');
    const channelNarrow = await call(t, 'get', '/messages', HAMLET, {
      anchor: 'newest',
      narrow: [{ operator: 'channel', operand: 99999999999 }],
    });
    expectError(channelNarrow, 400, 'Invalid narrow operator: unknown channel 99999999999', 'BAD_NARROW');
    const send = await call(t, 'post', '/messages', HAMLET, { type: 'direct', to: '[99999999999]', content: 'x' });
    expectError(send, 400, 'Invalid user ID 99999999999');
    const anchor = await call(t, 'get', '/messages', HAMLET, { anchor: '99999999999', num_before: 1, num_after: 1 });
    expect(anchor.status).toBe(200);
  });

  it('never answers 500 to NUL characters (PostgreSQL text cannot hold them)', async () => {
    const nul = 'a\u0000b';
    const narrowed = async (narrow: unknown[]) =>
      call(t, 'get', '/messages', HAMLET, { anchor: 'newest', num_before: 5, narrow });
    expectError(
      await narrowed([{ operator: 'channel', operand: nul }]),
      400,
      `Invalid narrow operator: unknown channel ${nul}`,
      'BAD_NARROW',
    );
    expectError(
      await narrowed([{ operator: 'sender', operand: nul }]),
      400,
      `Invalid narrow operator: unknown user ${nul}`,
      'BAD_NARROW',
    );
    expectError(
      await narrowed([{ operator: 'dm', operand: nul }]),
      400,
      `Invalid narrow operator: unknown user in ${nul}`,
      'BAD_NARROW',
    );
    for (const narrow of [[{ operator: 'topic', operand: nul }], [{ operator: 'search', operand: nul }]]) {
      const res = await narrowed(narrow);
      expect(res.status).toBe(200);
      expect((res.body as { messages: unknown[] }).messages).toEqual([]);
    }
    const id = await sendChannel(t, HAMLET, 'Verona', 'nul', 'x');
    expectError(
      await call(t, 'post', `/messages/${id}/reactions`, HAMLET, { emoji_name: nul }),
      400,
      `Emoji '${nul}' does not exist`,
    );
    expectError(
      await call(t, 'post', `/messages/${id}/reactions`, HAMLET, {
        emoji_name: 'tada',
        emoji_code: nul,
        reaction_type: 'unicode_emoji',
      }),
      400,
      'Invalid emoji code.',
    );
    expectError(
      await call(t, 'post', `/messages/${id}/reactions`, HAMLET, {
        emoji_name: 'tada',
        emoji_code: '1f389',
        reaction_type: nul,
      }),
      400,
      'Invalid emoji type.',
    );
    expectError(
      await call(t, 'delete', `/messages/${id}/reactions`, HAMLET, { emoji_code: nul }),
      400,
      "Reaction doesn't exist.",
      'REACTION_DOES_NOT_EXIST',
    );
    expectError(
      await call(t, 'post', '/messages', HAMLET, { type: 'direct', to: JSON.stringify([nul]), content: 'x' }),
      400,
      `Invalid email '${nul}'`,
    );
    expectError(
      await call(t, 'post', '/messages', HAMLET, { type: 'stream', to: nul, topic: 'x', content: 'x' }),
      400,
      'Invalid character in channel name, at position 2.',
    );
    const render = await call(t, 'post', '/messages/render', HAMLET, { content: `@**${nul}** @*${nul}* #**${nul}**` });
    expect(render.status).toBe(200);
    expectError(
      await call(t, 'post', '/mark_topic_as_read', HAMLET, {
        stream_id: await channelId(t, 'Verona'),
        topic_name: nul,
      }),
      400,
      `No such topic '${nul}'`,
    );
  });
});
