import { channelAccessFields } from './message-access.policy';
import { type ChannelForSendRaw, toChannelForSend } from './messages.repository';

describe('toChannelForSend', () => {
  const row: ChannelForSendRaw = {
    id: 7,
    realm_id: 2,
    name: 'Denmark',
    recipient_id: 41,
    invite_only: true,
    is_web_public: false,
    history_public_to_subscribers: true,
    deactivated: false,
    topics_policy: 1,
    can_send_message_group: 11,
    can_create_topic_group: 12,
    can_subscribe_group: 13,
    can_add_subscribers_group: 14,
    sender_subscribed: true,
    sender_muted: false,
    topic_exists: true,
    topic_exists_for_sender: null,
    subscriber_ids: [3, 5, 9],
    subscriber_muted: [false, true, false],
    channel_notify_ids: [5],
    topic_policy_user_ids: [3, 9],
    topic_policies: [3, 1],
  };

  it('writes out the access fields exactly as channelAccessFields maps them (kept apart for speed)', () => {
    const channel = toChannelForSend(row, 3);
    const access = channelAccessFields(row);
    expect(Object.fromEntries(Object.keys(access).map((k) => [k, channel[k as keyof typeof access]]))).toEqual(access);
  });

  it('adds the sender-specific and notification fields', () => {
    expect(toChannelForSend(row, 3)).toMatchObject({
      topicsPolicy: 1,
      canSendMessageGroup: 11,
      canCreateTopicGroup: 12,
      senderSubscribed: true,
      senderMuted: false,
      senderVisibilityPolicy: 3,
      topicExists: true,
      topicExistsForSender: null,
      subscriberIds: [3, 5, 9],
      notifyCandidateIds: [5, 3],
    });
    expect(toChannelForSend(row, 5).senderVisibilityPolicy).toBe(0);
  });
});
