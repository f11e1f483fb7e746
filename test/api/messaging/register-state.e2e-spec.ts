import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  call,
  channelId,
  CORDELIA,
  HAMLET,
  IAGO,
  OTHELLO,
  PROSPERO,
  sendChannel,
  sendDirect,
  subscribe,
  unsubscribe,
  userId,
} from './helpers';

describe('POST /register message state', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function register(email: string, eventTypes: string[], extra: Record<string, unknown> = {}) {
    const res = await call(t, 'post', '/register', email, { event_types: eventTypes, ...extra });
    expect(res.status).toBe(200);
    // DECISIONS #2: the spec's service_* keys are sent beside Zulip's, which the document lacks.
    const {
      service_version: _v,
      service_feature_level: _l,
      service_merge_base: _m,
      ...zulipShape
    } = res.body as Record<string, unknown>;
    expectMatchesOpenApi('post', '/register', 200, zulipShape);
    return res.body as Record<string, unknown>;
  }

  it('reports unread messages by conversation, mentions, and muting in count', async () => {
    const othello = await userId(t, OTHELLO);
    const hamlet = await userId(t, HAMLET);
    const cordelia = await userId(t, CORDELIA);
    const v1 = await sendChannel(t, IAGO, 'Verona', 'Lunch', 'one');
    const v2 = await sendChannel(t, IAGO, 'Verona', 'lunch', 'two @**King Hamlet**');
    const empty = await sendChannel(t, IAGO, 'Verona', '', 'general');
    const d1 = await sendChannel(t, IAGO, 'Denmark', 'muted topic', '@**all** three');
    const dm = await sendDirect(t, OTHELLO, [hamlet], 'dm');
    const group = await sendDirect(t, OTHELLO, [hamlet, cordelia], 'group');
    const self = await sendDirect(t, HAMLET, [hamlet], 'note');
    // Not subscribed: never unread for Hamlet.
    await sendChannel(t, PROSPERO, 'Venice', 'x', 'elsewhere');
    const denmark = await channelId(t, 'Denmark');
    const mute = await call(t, 'patch', '/users/me/subscriptions/muted_topics', HAMLET, {
      stream_id: denmark,
      topic: 'muted topic',
      op: 'add',
    });
    expect(mute.status).toBe(200);
    const state = await register(HAMLET, ['message', 'update_message_flags']);
    expect(state.unread_msgs).toEqual({
      pms: [
        { other_user_id: hamlet, sender_id: hamlet, unread_message_ids: [self] },
        { other_user_id: othello, sender_id: othello, unread_message_ids: [dm] },
      ].sort((a, b) => a.other_user_id - b.other_user_id),
      streams: [
        { stream_id: await channelId(t, 'Verona'), topic: 'general chat', unread_message_ids: [empty] },
        { stream_id: await channelId(t, 'Verona'), topic: 'Lunch', unread_message_ids: [v1, v2] },
        { stream_id: denmark, topic: 'muted topic', unread_message_ids: [d1] },
      ].sort((a, b) => a.stream_id - b.stream_id || (a.topic.toLowerCase() < b.topic.toLowerCase() ? -1 : 1)),
      huddles: [
        { user_ids_string: [hamlet, othello, cordelia].sort((a, b) => a - b).join(','), unread_message_ids: [group] },
      ],
      // The wildcard mention is in a muted topic.
      mentions: [v2],
      // Muted topics are not counted.
      count: 6,
      old_unreads_missing: false,
    });
    expect(state.max_message_id).toBe(self);
    const modern = await register(HAMLET, ['message', 'update_message_flags'], {
      client_capabilities: { empty_topic_name: true },
    });
    const streams = (modern.unread_msgs as { streams: Array<{ topic: string }> }).streams;
    expect(streams.map((s) => s.topic)).toContain('');
    // Only with both event types.
    expect(await register(HAMLET, ['message'])).not.toHaveProperty('unread_msgs');
  });

  it('leaves out unread messages of channels the user left, keeping their direct messages', async () => {
    const cordelia = await userId(t, CORDELIA);
    await call(t, 'post', '/users/me/subscriptions', IAGO, { subscriptions: [{ name: 'left later' }] });
    await subscribe(t, IAGO, 'left later', [CORDELIA]);
    const kept = await sendChannel(t, IAGO, 'Verona', 'kept', 'stays unread');
    await sendChannel(t, IAGO, 'left later', 'gone', 'a');
    await sendChannel(t, IAGO, 'left later', 'gone', 'b');
    const dm = await sendDirect(t, IAGO, [cordelia], 'still here');
    const streamsOf = (state: Record<string, unknown>) =>
      (state.unread_msgs as { streams: Array<{ stream_id: number; topic: string }> }).streams;
    const before = await register(CORDELIA, ['message', 'update_message_flags']);
    expect(streamsOf(before).filter((s) => s.topic === 'gone')).toEqual([
      expect.objectContaining({ stream_id: await channelId(t, 'left later') }),
    ]);
    await unsubscribe(t, CORDELIA, 'left later');
    const after = await register(CORDELIA, ['message', 'update_message_flags']);
    const unread = after.unread_msgs as { pms: Array<{ unread_message_ids: number[] }>; count: number };
    expect(streamsOf(after).filter((s) => s.topic === 'gone')).toEqual([]);
    expect(streamsOf(after)).toContainEqual(
      expect.objectContaining({ stream_id: await channelId(t, 'Verona'), topic: 'kept', unread_message_ids: [kept] }),
    );
    expect(unread.pms.flatMap((p) => p.unread_message_ids)).toContain(dm);
    expect(unread.count).toBe((before.unread_msgs as { count: number }).count - 2);
  });

  it('lists starred messages and recent direct-message conversations', async () => {
    const othello = await userId(t, OTHELLO);
    const cordelia = await userId(t, CORDELIA);
    const a = await sendChannel(t, IAGO, 'Verona', 'stars', 'a');
    const b = await sendChannel(t, IAGO, 'Verona', 'stars', 'b');
    await call(t, 'post', '/messages/flags', CORDELIA, { messages: [b, a], op: 'add', flag: 'starred' });
    const dm1 = await sendDirect(t, CORDELIA, [othello], 'first');
    const dm2 = await sendDirect(t, CORDELIA, [othello, await userId(t, HAMLET)], 'group');
    const dm3 = await sendDirect(t, OTHELLO, [cordelia], 'reply');
    const state = await register(CORDELIA, ['starred_messages', 'recent_private_conversations']);
    expect(state.starred_messages).toEqual([a, b]);
    const recent = state.recent_private_conversations as Array<{ max_message_id: number; user_ids: number[] }>;
    expect(recent.slice(0, 2)).toEqual([
      { max_message_id: dm3, user_ids: [othello] },
      { max_message_id: dm2, user_ids: [othello, await userId(t, HAMLET)].sort((x, y) => x - y) },
    ]);
    expect(dm1).toBeLessThan(dm3);
  });
});
