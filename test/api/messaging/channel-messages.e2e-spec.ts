import { startTestApp, TestApp } from '../../helpers/test-app';
import { Flag } from '../../../src/messaging/flags';
import {
  call,
  channelId,
  CORDELIA,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  sendChannel,
  takeEvents,
  umFlags,
  unsubscribe,
  userId,
  channelsChanged,
} from './helpers';

type Msg = {
  id: number;
  content: string;
  subject: string;
  sender_email: string;
  sender_realm_str: string;
  client: string;
  type: string;
};

/** What messaging does when channels change (its subscribers of the channels module's domain events). */
describe('channel lifecycle messages', () => {
  let t: TestApp;
  let hamlet: number;
  let iago: number;
  beforeAll(async () => {
    t = await startTestApp();
    hamlet = await userId(t, HAMLET);
    iago = await userId(t, IAGO);
  });
  afterAll(() => t.close());

  async function messagesIn(email: string, narrow: unknown[]): Promise<Msg[]> {
    const res = await call(t, 'get', '/messages', email, {
      anchor: 'newest',
      num_before: 50,
      narrow,
      apply_markdown: false,
    });
    expect(res.status).toBe(200);
    return (res.body as { messages: Msg[] }).messages;
  }

  it('announces new channels and posts the channel events notice from the Notification Bot', async () => {
    const res = await call(t, 'post', '/users/me/subscriptions', HAMLET, {
      subscriptions: [{ name: 'brand new', description: 'Fresh **paint**' }],
      announce: true,
    });
    expect(res.status).toBe(200);
    const announcements = await messagesIn(OTHELLO, [
      { operator: 'channel', operand: 'Verona' },
      { operator: 'topic', operand: 'new channels' },
    ]);
    expect(announcements).toHaveLength(1);
    expect(announcements[0]).toMatchObject({
      content: `@_**King Hamlet|${hamlet}** created a new channel #**brand new**.`,
      sender_email: 'notification-bot@zulip.com',
      sender_realm_str: 'zulipinternal',
      client: 'Internal',
    });
    const notice = await messagesIn(HAMLET, [{ operator: 'channel', operand: 'brand new' }]);
    expect(notice).toEqual([
      expect.objectContaining({
        subject: 'channel events',
        content: `**Public** channel created by @_**King Hamlet|${hamlet}**. **Description:**\n\`\`\`\` quote\nFresh **paint**\n\`\`\`\``,
      }),
    ]);
    // Unread for the subscribers, including the creator.
    expect(await umFlags(t, HAMLET, notice[0].id)).toBe(0);
    // Several channels at once, one of them private.
    await call(t, 'post', '/users/me/subscriptions', HAMLET, {
      subscriptions: [{ name: 'alpha' }, { name: 'beta' }],
      announce: true,
      invite_only: true,
    });
    const more = await messagesIn(OTHELLO, [
      { operator: 'channel', operand: 'Verona' },
      { operator: 'topic', operand: 'new channels' },
    ]);
    expect(more[1].content).toBe(`@_**King Hamlet|${hamlet}** created the following channels: #**alpha**, #**beta**.`);
    const alpha = await messagesIn(HAMLET, [{ operator: 'channel', operand: 'alpha' }]);
    expect(alpha[0].content).toMatch(
      /^\*\*Private, protected history\*\* channel created by .*\n```` quote\n\*No description\.\*\n````$/,
    );
  });

  it('tells users subscribed by someone else, in a direct message', async () => {
    const q = await openQueue(t, CORDELIA, ['message']);
    await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name: 'Denmark' }, { name: 'Scotland' }],
      principals: [CORDELIA],
    });
    const [event] = await takeEvents(t, q);
    expect(event).toMatchObject({
      type: 'message',
      flags: [],
      message: {
        type: 'private',
        sender_email: 'notification-bot@zulip.com',
        content: `@_**Iago|${iago}** subscribed you to the following channels:\n\n* #**Denmark**\n* #**Scotland**`,
      },
    });
    await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name: 'Venice' }],
      principals: [CORDELIA],
    });
    const dms = await messagesIn(CORDELIA, [{ operator: 'is', operand: 'dm' }]);
    expect(dms[dms.length - 1].content).toBe(`@_**Iago|${iago}** subscribed you to #**Venice**.`);
  });

  it('marks messages read in channels a user leaves', async () => {
    const id = await sendChannel(t, IAGO, 'Denmark', 'leaving', 'unread until othello leaves');
    expect(await umFlags(t, OTHELLO, id)).toBe(0);
    const q = await openQueue(t, OTHELLO, ['update_message_flags']);
    await unsubscribe(t, OTHELLO, 'Denmark');
    expect(await umFlags(t, OTHELLO, id)).toBe(Flag.read);
    const events = await takeEvents(t, q);
    expect(events).toEqual([
      {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'read',
        messages: expect.arrayContaining([id]),
        all: false,
      },
    ]);
  });

  it('posts notices when a channel is renamed, described or archived', async () => {
    const id = await channelId(t, 'brand new');
    expect((await call(t, 'patch', `/streams/${id}`, HAMLET, { new_name: 'renamed' })).status).toBe(200);
    expect((await call(t, 'patch', `/streams/${id}`, HAMLET, { description: 'New words' })).status).toBe(200);
    const notices = await messagesIn(HAMLET, [{ operator: 'channel', operand: 'renamed' }]);
    expect(notices.slice(1).map((m) => m.content)).toEqual([
      `@_**King Hamlet|${hamlet}** renamed channel **brand new** to **renamed**.`,
      `@_**King Hamlet|${hamlet}** changed the description for this channel.\n\n* **Old description:**\n\`\`\`\` quote\nFresh **paint**\n\`\`\`\`\n* **New description:**\n\`\`\`\` quote\nNew words\n\`\`\`\``,
    ]);
    expect((await call(t, 'delete', `/streams/${id}`, IAGO)).status).toBe(200);
    const archived = await messagesIn(HAMLET, [{ operator: 'channel', operand: 'renamed' }]);
    expect(archived[archived.length - 1].content).toBe('Channel #**renamed** has been archived.');
  });

  it('lets channels check for named topics before allowing empty_topic_only', async () => {
    await call(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'quiet' }] });
    const quiet = await channelId(t, 'quiet');
    // The creation notice is in the "channel events" topic.
    const refused = await call(t, 'patch', `/streams/${quiet}`, IAGO, { topics_policy: 'empty_topic_only' });
    expect(refused.status).toBe(400);
    await t.dataSource.query(
      `DELETE FROM user_message WHERE message_id IN (SELECT id FROM message WHERE recipient_id = (SELECT recipient_id FROM stream WHERE id = $1))`,
      [quiet],
    );
    await t.dataSource.query(
      `DELETE FROM message WHERE recipient_id = (SELECT recipient_id FROM stream WHERE id = $1)`,
      [quiet],
    );
    await channelsChanged(t);
    await sendChannel(t, HAMLET, 'quiet', '', 'general chat only');
    expect((await call(t, 'patch', `/streams/${quiet}`, IAGO, { topics_policy: 'empty_topic_only' })).status).toBe(200);
  });
});
