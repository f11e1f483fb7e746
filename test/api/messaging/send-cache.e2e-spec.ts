import { MessageFetchRepository } from '../../../src/messaging/message-fetch.repository';
import { MessagesRepository } from '../../../src/messaging/messages.repository';
import { countQueriesDuring } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  call,
  channelId,
  expectError,
  HAMLET,
  IAGO,
  OTHELLO,
  sendChannel,
  setChannel,
  subscribe,
  systemGroupId,
  unsubscribe,
  userId,
} from './helpers';

/**
 * The send path keeps channels, their subscribers and the topics it saw in a per-process cache
 * (ChannelSendCache). Every change made through the API must reach the next send at once.
 */
describe('POST /messages after changes to what the send path caches', () => {
  let t: TestApp;
  const CHANNEL = 'send cache';

  beforeAll(async () => {
    t = await startTestApp();
    await subscribe(t, HAMLET, CHANNEL);
  });
  afterAll(async () => {
    await t.close();
  });

  const recipientsOf = async (id: number) =>
    (
      await t.dataSource.query<Array<{ user_profile_id: number }>>(
        `SELECT user_profile_id FROM user_message WHERE message_id = $1 ORDER BY 1`,
        [id],
      )
    ).map((r) => r.user_profile_id);

  /** Sends by channel id (the cached path) and by name; returns the id of the second. */
  async function sendTwice(topic: string): Promise<number> {
    const byId = await call(t, 'post', '/messages', HAMLET, {
      type: 'stream',
      to: String(await channelId(t, CHANNEL)),
      topic,
      content: 'by id',
    });
    expect(byId.status).toBe(200);
    return sendChannel(t, HAMLET, CHANNEL, topic, 'by name');
  }

  it("a channel narrow reads the channel from the cache and sees a change of the reader's subscription at once", async () => {
    const name = 'send cache narrow';
    await subscribe(t, HAMLET, name);
    await setChannel(t, name, { invite_only: true, history_public_to_subscribers: true });
    const id = await channelId(t, name);
    const first = await sendChannel(t, HAMLET, name, 'history', 'before othello');
    const narrow = JSON.stringify([{ operator: 'channel', operand: id }]);
    const ids = async () => {
      const res = await call(t, 'get', '/messages', OTHELLO, {
        anchor: 'newest',
        num_before: '10',
        num_after: '0',
        narrow,
      });
      expect(res.status).toBe(200);
      return (res.body as { messages: Array<{ id: number }> }).messages.map((m) => m.id);
    };
    expect(await ids()).toEqual([]);
    await subscribe(t, HAMLET, name, [OTHELLO]);
    // Subscribed: the whole history, with the channel read from the cache (filled by the send).
    const fetches = countQueriesDuring(t.app.get(MessageFetchRepository), 'channelByOperand');
    try {
      const history = await ids();
      expect(history).toContain(first);
      const second = await sendChannel(t, HAMLET, name, 'history', 'to othello');
      expect(await ids()).toEqual([...history, second]);
      expect(fetches.statements).toEqual([]);
      await unsubscribe(t, OTHELLO, name);
      // Left a private channel: not even what was received while subscribed (Zulip's has_message_access).
      expect(await ids()).toEqual([]);
    } finally {
      fetches.restore();
    }
  });

  it('a new subscriber receives the next message, one who left does not', async () => {
    await sendTwice('members');
    await sendTwice('members');
    const othello = await userId(t, OTHELLO);
    await subscribe(t, OTHELLO, CHANNEL);
    expect(await recipientsOf(await sendTwice('members'))).toContain(othello);
    await unsubscribe(t, OTHELLO, CHANNEL);
    expect(await recipientsOf(await sendTwice('members'))).not.toContain(othello);
  });

  it('a topic whose messages were all deleted is new again', async () => {
    const first = await sendTwice('short lived');
    await setChannel(t, CHANNEL, { can_create_topic_group: await systemGroupId(t, 'role:administrators') });
    const second = await sendTwice('short lived');
    const ids = (
      await t.dataSource.query<Array<{ id: number }>>(
        `SELECT id FROM message WHERE recipient_id = (SELECT recipient_id FROM stream WHERE name = $1) AND subject = 'short lived'`,
        [CHANNEL],
      )
    ).map((r) => r.id);
    expect(ids).toEqual(expect.arrayContaining([first, second]));
    for (const id of ids) expect((await call(t, 'delete', `/messages/${id}`, IAGO)).status).toBe(200);
    expectError(
      await call(t, 'post', '/messages', HAMLET, { type: 'stream', to: CHANNEL, topic: 'short lived', content: 'x' }),
      400,
      'You do not have permission to create new topics in this channel.',
    );
    await setChannel(t, CHANNEL, { can_create_topic_group: await systemGroupId(t, 'role:everyone') });
  });

  it('a topic moved away is new again, and a renamed channel is not found by its old name', async () => {
    const id = await sendTwice('moving');
    await setChannel(t, CHANNEL, { can_create_topic_group: await systemGroupId(t, 'role:administrators') });
    await sendTwice('moving');
    const moved = await call(t, 'patch', `/messages/${id}`, IAGO, {
      topic: 'moved',
      propagate_mode: 'change_all',
      send_notification_to_old_thread: false,
      send_notification_to_new_thread: false,
    });
    expect(moved.status).toBe(200);
    const refused = await call(t, 'post', '/messages', HAMLET, {
      type: 'stream',
      to: CHANNEL,
      topic: 'moving',
      content: 'x',
    });
    expectError(refused, 400, 'You do not have permission to create new topics in this channel.');
    await setChannel(t, CHANNEL, { can_create_topic_group: await systemGroupId(t, 'role:everyone') });

    const stream = await channelId(t, CHANNEL);
    expect((await call(t, 'patch', `/streams/${stream}`, IAGO, { new_name: 'send cache renamed' })).status).toBe(200);
    const old = await call(t, 'post', '/messages', HAMLET, {
      type: 'stream',
      to: CHANNEL,
      topic: 'moved',
      content: 'x',
    });
    expect(old.status).toBe(400);
    expect((old.body as { code: string }).code).toBe('STREAM_DOES_NOT_EXIST');
    expect((await call(t, 'patch', `/streams/${stream}`, IAGO, { new_name: CHANNEL })).status).toBe(200);
  });

  it('a new topic in a cached channel is read alone, case-insensitively, with the topic permission', async () => {
    const repo = t.app.get(MessagesRepository);
    const send = (user: string, topic: string) =>
      call(t, 'post', '/messages', user, { type: 'stream', to: CHANNEL, topic, content: 'x' });
    await setChannel(t, CHANNEL, { can_create_topic_group: await systemGroupId(t, 'role:administrators') });
    // The channel is read whole once (an administrator may start topics).
    expect((await send(IAGO, 'Fresh Topic')).status).toBe(200);
    const channelReads = [jest.spyOn(repo, 'channelForSendById'), jest.spyOn(repo, 'channelForSendByName')];
    const topicReads = jest.spyOn(repo, 'topicForSend');
    try {
      // Another spelling of the topic is not in the cache: read from the database, where it exists.
      expect((await send(HAMLET, 'fresh topic')).status).toBe(200);
      expectError(
        await send(HAMLET, 'never seen'),
        400,
        'You do not have permission to create new topics in this channel.',
      );
      // Refused: still unknown, read again, and known once the administrator's message committed.
      expect((await send(IAGO, 'never seen')).status).toBe(200);
      expect((await send(HAMLET, 'never seen')).status).toBe(200);
      expect(channelReads.map((spy) => spy.mock.calls.length)).toEqual([0, 0]);
      expect(topicReads.mock.calls.map((c) => c[2])).toEqual(['fresh topic', 'never seen', 'never seen']);
    } finally {
      for (const spy of [...channelReads, topicReads]) spy.mockRestore();
      await setChannel(t, CHANNEL, { can_create_topic_group: await systemGroupId(t, 'role:everyone') });
    }
  });

  it('a topic policy set before the topic has messages reaches its first message', async () => {
    const topic = 'muted before';
    await sendTwice('policy warm-up');
    await subscribe(t, OTHELLO, CHANNEL);
    const stream = await channelId(t, CHANNEL);
    const muted = await call(t, 'post', '/user_topics', OTHELLO, {
      stream_id: String(stream),
      topic,
      visibility_policy: '1',
    });
    expect(muted.status).toBe(200);
    await sendTwice('policy warm-up');
    const repo = t.app.get(MessagesRepository);
    const topicReads = jest.spyOn(repo, 'topicForSend');
    try {
      const id = await sendChannel(t, HAMLET, CHANNEL, topic, 'to a muted topic');
      expect(topicReads).toHaveBeenCalledTimes(1);
      // Read alone, the topic still brings its policies (othello's mute decides his notifications);
      // he receives the message, as Zulip delivers muted topics.
      expect(await recipientsOf(id)).toContain(await userId(t, OTHELLO));
      const read = await topicReads.mock.results[0].value;
      expect(read).toEqual({
        topic_exists: false,
        topic_policy_user_ids: [await userId(t, OTHELLO)],
        topic_policies: [1],
      });
    } finally {
      topicReads.mockRestore();
      await unsubscribe(t, OTHELLO, CHANNEL);
    }
  });

  it('an archived channel refuses messages at once', async () => {
    await sendTwice('archive');
    const stream = await channelId(t, CHANNEL);
    expect((await call(t, 'delete', `/streams/${stream}`, IAGO)).status).toBe(200);
    const res = await call(t, 'post', '/messages', HAMLET, {
      type: 'stream',
      to: String(stream),
      topic: 'archive',
      content: 'x',
    });
    expect(res.status).toBe(400);
  });
});
