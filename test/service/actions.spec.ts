/**
 * verify_action without HTTP: actions called on their services, the observer's /register state
 * taken from RegisterService and the events read from EventsService, applied as a client would
 * and compared with a fresh state (test/service/harness.ts, test/helpers/verify-action.ts).
 */
import { SubscriptionsService } from '../../src/channels/subscriptions.service';
import { MessageFlagsService } from '../../src/messaging/message-flags.service';
import { MessageSendService } from '../../src/messaging/message-send.service';
import { ReactionsService } from '../../src/messaging/reactions.service';
import { UserStatusService } from '../../src/presence/user-status.service';
import { ServiceHarness, startServiceHarness } from './harness';

const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';

describe('actions through their services (verify_action)', () => {
  let h: ServiceHarness;
  beforeAll(async () => {
    h = await startServiceHarness();
  });
  afterAll(() => h.close());

  it('a subscription property change', async () => {
    const channel = await h.createChannel(HAMLET, 'service props', { subscribers: [HAMLET, OTHELLO] });
    // Zulip's apply_event does not recount unread_msgs.count when a channel is muted (nor does
    // ours): read the channel's messages (its creation notice) first.
    await h.get(MessageFlagsService).markAllAsRead(await h.auth(HAMLET));
    const subscriptions = h.get(SubscriptionsService);
    const change = async (property: 'is_muted' | 'color' | 'pin_to_top', value: boolean | string) =>
      subscriptions.updateProperties(await h.auth(HAMLET), [{ streamId: channel.id, property, value }]);
    const events = await h.verifyAction(HAMLET, () => change('is_muted', true), { expectedEvents: ['subscription'] });
    // Zulip sends the legacy in_home_view (inverted) with is_muted.
    expect(events.map((e) => [e.type, e.op, e.stream_id, e.property, e.value])).toEqual([
      ['subscription', 'update', channel.id, 'in_home_view', false],
      ['subscription', 'update', channel.id, 'is_muted', true],
    ]);
    await h.verifyAction(HAMLET, () => change('color', '#a1b2c3'), { expectedEvents: ['subscription'] });
    await h.verifyAction(HAMLET, () => change('pin_to_top', true), { expectedEvents: ['subscription'] });
    // Another user's subscription settings are not theirs to hear about.
    await h.verifyAction(OTHELLO, () => change('is_muted', false), { noEvents: true });
  });

  it('a user-status change, seen by the user and by others', async () => {
    const statuses = h.get(UserStatusService);
    const set = async (statusText: string, emojiName?: string) =>
      statuses.updateOwnStatus(await h.auth(HAMLET), { statusText, emojiName });
    await h.verifyAction(HAMLET, () => set('on vacation', 'palm_tree'), { expectedEvents: ['user_status'] });
    await h.verifyAction(OTHELLO, () => set('back soon'), { expectedEvents: ['user_status'] });
    await h.verifyAction(OTHELLO, () => set(''), { expectedEvents: ['user_status'] });
  });

  it('a reaction added and removed', async () => {
    await h.createChannel(HAMLET, 'service reactions', { subscribers: [HAMLET, OTHELLO] });
    const { id } = await h.get(MessageSendService).sendMessage(await h.auth(HAMLET), {
      type: 'channel',
      to: 'service reactions',
      topic: 'lunch',
      content: 'pizza?',
      queueId: undefined,
      localId: undefined,
      readBySender: undefined,
      clientName: 'test',
    });
    const reactions = h.get(ReactionsService);
    const events = await h.verifyAction(
      OTHELLO,
      async () => reactions.addReaction(await h.auth(OTHELLO), id, 'thumbs_up', undefined, undefined),
      { expectedEvents: ['reaction'] },
    );
    expect(events).toEqual([
      expect.objectContaining({ type: 'reaction', op: 'add', message_id: id, emoji_name: 'thumbs_up' }),
    ]);
    await h.verifyAction(
      HAMLET,
      async () => reactions.removeReaction(await h.auth(OTHELLO), id, 'thumbs_up', undefined, 'unicode_emoji'),
      { expectedEvents: ['reaction'] },
    );
  });
});
