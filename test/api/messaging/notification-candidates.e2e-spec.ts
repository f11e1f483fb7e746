import { DomainEventBus } from '../../../src/events/domain-event-bus';
import { MessageSentEvent } from '../../../src/messaging/messaging.domain-events';
import { MissedMessageEmailsHandler } from '../../../src/missed-message-emails/missed-message-emails.handler';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { waitFor } from '../../helpers/jobs';
import { countQueries } from '../../helpers/query-counter';
import {
  addSubscribers,
  call,
  channelId,
  createUsers,
  expectSuccess,
  HAMLET,
  sendChannel,
  sendDirect,
} from './helpers';

/**
 * Who a message could notify (push, email) is narrowed by the send itself, as Zulip's
 * get_recipient_info: for a channel message, the subscribers with channel email or push
 * notifications on (their subscription's override first, else their own default) or following
 * the topic, plus whoever it mentions. The after-commit handlers load settings for those only,
 * so a channel message nobody has asked to hear about costs them no statement.
 */
describe('notification candidates of a sent message', () => {
  let t: TestApp;
  const seen: MessageSentEvent[] = [];
  let ids: number[] = [];
  const email = (i: number) => `notifcand${i}@zulip.com`;
  const CHANNEL = 'notification candidates';

  async function sentEvent(messageId: number): Promise<MessageSentEvent> {
    return waitFor(() => Promise.resolve(seen.find((e) => e.message.id === messageId)));
  }

  /** Every statement the process sends while `fn` runs, after-commit work included. */
  async function allQueries(fn: () => Promise<unknown>): Promise<string[]> {
    return (await countQueries(fn, { transactionControl: true, detachedHandlers: true })).queries;
  }

  beforeAll(async () => {
    t = await startTestApp();
    t.app.get(DomainEventBus).subscribe(MessageSentEvent, (e) => void seen.push(e));
    ids = await createUsers(t, 'notifcand', 7);
    expectSuccess(await call(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: CHANNEL }] }));
    await addSubscribers(t, CHANNEL, ids);
    const stream_id = await channelId(t, CHANNEL);
    // 1: channel email notifications on for this channel only.
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions/properties', email(1), {
        subscription_data: [{ stream_id, property: 'email_notifications', value: true }],
      }),
    );
    // 2: channel push notifications on by default.
    expectSuccess(await call(t, 'patch', '/settings', email(2), { enable_stream_push_notifications: true }));
    // 3: follows the topic.
    expectSuccess(await call(t, 'post', '/user_topics', email(3), { stream_id, topic: 'news', visibility_policy: 3 }));
    // 4: channel push on by default, but off for this channel.
    expectSuccess(await call(t, 'patch', '/settings', email(4), { enable_stream_push_notifications: true }));
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions/properties', email(4), {
        subscription_data: [{ stream_id, property: 'push_notifications', value: false }],
      }),
    );
    // 6: follows another topic of the channel.
    expectSuccess(await call(t, 'post', '/user_topics', email(6), { stream_id, topic: 'other', visibility_policy: 3 }));
  });
  afterAll(async () => {
    await t.close();
  });

  it('a channel message: those with channel notifications on, the topic followers and the mentioned', async () => {
    const id = await sendChannel(t, HAMLET, CHANNEL, 'news', `hello @**notifcand 5**`);
    const event = await sentEvent(id);
    expect(event.notifiableRecipientIds().sort((a, b) => a - b)).toEqual([ids[1], ids[2], ids[3], ids[5]]);
  });

  it('a wildcard mention makes every subscriber but the sender a candidate', async () => {
    const id = await sendChannel(t, HAMLET, CHANNEL, 'news', 'hello @**all**');
    const event = await sentEvent(id);
    expect(event.notifiableRecipientIds().sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('a direct message: every other participant', async () => {
    const id = await sendDirect(t, HAMLET, [ids[0], ids[6]], 'hi');
    const event = await sentEvent(id);
    expect(event.notifiableRecipientIds().sort((a, b) => a - b)).toEqual([ids[0], ids[6]].sort((a, b) => a - b));
  });

  it('the email handler reads nothing for a topic nobody follows, and loads the candidates otherwise', async () => {
    const handler = t.app.get(MissedMessageEmailsHandler);
    const quiet = await sentEvent(await sendChannel(t, email(0), CHANNEL, 'quiet', 'nobody asked'));
    // Only the channel-notification users remain: the topic has no followers and no mention.
    expect(quiet.notifiableRecipientIds().sort((a, b) => a - b)).toEqual([ids[1], ids[2]]);
    const fromFollower = await sentEvent(await sendChannel(t, email(1), CHANNEL, 'quiet', 'x'));
    expect(fromFollower.notifiableRecipientIds()).toEqual([ids[2]]);
    // ids[2] has channel push (not email) on: loaded, then not emailed.
    const loaded = await allQueries(() => handler.handle(fromFollower));
    expect(loaded.length).toBeGreaterThan(0);

    // Without anyone's channel notifications: nothing to load.
    expectSuccess(await call(t, 'patch', '/settings', email(2), { enable_stream_push_notifications: false }));
    const none = await sentEvent(await sendChannel(t, email(1), CHANNEL, 'quiet', 'y'));
    expect(none.notifiableRecipientIds()).toEqual([]);
    expect(await allQueries(() => handler.handle(none))).toEqual([]);
  });
});
