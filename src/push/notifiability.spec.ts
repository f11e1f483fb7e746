import {
  allowsChannelNotification,
  PushSettings,
  pushTrigger,
  RecipientContext,
  TopicVisibility,
} from './notifiability';

const defaults: PushSettings = {
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_stream_push_notifications: false,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  wildcard_mentions_notify: true,
};

function recipient(over: Partial<RecipientContext> = {}, settings: Partial<PushSettings> = {}): RecipientContext {
  return {
    userId: 2,
    isBot: false,
    settings: { ...defaults, ...settings },
    flags: new Set(),
    subscription: { isMuted: false, pushNotifications: null, wildcardMentionsNotify: null },
    topicVisibility: TopicVisibility.INHERIT,
    senderMuted: false,
    ...over,
  };
}
const channelMsg = { senderId: 1, isDirectMessage: false };
const dm = { senderId: 1, isDirectMessage: true };

describe('pushTrigger', () => {
  it('pushes direct messages unless offline push is off', () => {
    expect(pushTrigger(recipient({ subscription: undefined }), dm, true)).toBe('direct_message');
    expect(
      pushTrigger(recipient({ subscription: undefined }, { enable_offline_push_notifications: false }), dm, true),
    ).toBeNull();
  });

  it('never pushes to the sender, bots, or for muted senders and silent server messages', () => {
    expect(pushTrigger(recipient({ userId: 1 }), dm, true)).toBeNull();
    expect(pushTrigger(recipient({ isBot: true }), dm, true)).toBeNull();
    expect(pushTrigger(recipient({ senderMuted: true }), dm, true)).toBeNull();
    expect(pushTrigger(recipient(), { ...dm, disableExternalNotifications: true }, true)).toBeNull();
  });

  it('pushes to an active user only with online push enabled', () => {
    expect(pushTrigger(recipient(), dm, false)).toBe('direct_message');
    expect(pushTrigger(recipient({}, { enable_online_push_notifications: false }), dm, false)).toBeNull();
    expect(pushTrigger(recipient({}, { enable_online_push_notifications: false }), dm, true)).toBe('direct_message');
  });

  it('pushes personal mentions, even in muted channels and topics', () => {
    const flags = new Set(['mentioned']);
    expect(pushTrigger(recipient({ flags }), channelMsg, true)).toBe('mentioned');
    expect(
      pushTrigger(
        recipient({ flags, subscription: { isMuted: true, pushNotifications: null, wildcardMentionsNotify: null } }),
        channelMsg,
        true,
      ),
    ).toBe('mentioned');
    expect(pushTrigger(recipient({ flags, topicVisibility: TopicVisibility.MUTED }), channelMsg, true)).toBe(
      'mentioned',
    );
    expect(
      pushTrigger(recipient({ flags }, { enable_offline_push_notifications: false }), channelMsg, true),
    ).toBeNull();
  });

  it('pushes wildcard mentions per wildcard_mentions_notify, the channel override first', () => {
    const flags = new Set(['stream_wildcard_mentioned']);
    expect(pushTrigger(recipient({ flags }), channelMsg, true)).toBe('stream_wildcard_mentioned');
    expect(pushTrigger(recipient({ flags: new Set(['topic_wildcard_mentioned']) }), channelMsg, true)).toBe(
      'topic_wildcard_mentioned',
    );
    expect(pushTrigger(recipient({ flags }, { wildcard_mentions_notify: false }), channelMsg, true)).toBeNull();
    const override = { isMuted: false, pushNotifications: null, wildcardMentionsNotify: true };
    expect(
      pushTrigger(recipient({ flags, subscription: override }, { wildcard_mentions_notify: false }), channelMsg, true),
    ).toBe('stream_wildcard_mentioned');
    const muted = { isMuted: true, pushNotifications: null, wildcardMentionsNotify: null };
    expect(pushTrigger(recipient({ flags, subscription: muted }), channelMsg, true)).toBeNull();
  });

  it('prefers the followed-topic wildcard triggers, and pushes followed topics', () => {
    const followed = { topicVisibility: TopicVisibility.FOLLOWED };
    expect(
      pushTrigger(recipient({ ...followed, flags: new Set(['topic_wildcard_mentioned']) }), channelMsg, true),
    ).toBe('topic_wildcard_mentioned_in_followed_topic');
    expect(
      pushTrigger(recipient({ ...followed, flags: new Set(['stream_wildcard_mentioned']) }), channelMsg, true),
    ).toBe('stream_wildcard_mentioned_in_followed_topic');
    expect(pushTrigger(recipient(followed), channelMsg, true)).toBe('followed_topic');
    expect(
      pushTrigger(recipient(followed, { enable_followed_topic_push_notifications: false }), channelMsg, true),
    ).toBeNull();
    // A followed topic in a muted channel still notifies.
    const muted = { isMuted: true, pushNotifications: null, wildcardMentionsNotify: null };
    expect(pushTrigger(recipient({ ...followed, subscription: muted }), channelMsg, true)).toBe('followed_topic');
  });

  it('pushes ordinary channel messages only where channel push is on', () => {
    expect(pushTrigger(recipient(), channelMsg, true)).toBeNull();
    expect(pushTrigger(recipient({}, { enable_stream_push_notifications: true }), channelMsg, true)).toBe(
      'stream_push_notify',
    );
    const on = { isMuted: false, pushNotifications: true, wildcardMentionsNotify: null };
    expect(pushTrigger(recipient({ subscription: on }), channelMsg, true)).toBe('stream_push_notify');
    const off = { isMuted: false, pushNotifications: false, wildcardMentionsNotify: null };
    expect(
      pushTrigger(recipient({ subscription: off }, { enable_stream_push_notifications: true }), channelMsg, true),
    ).toBeNull();
    expect(
      pushTrigger(recipient({ subscription: on, topicVisibility: TopicVisibility.MUTED }), channelMsg, true),
    ).toBeNull();
  });
});

describe('allowsChannelNotification', () => {
  it.each([
    [false, TopicVisibility.INHERIT, null, true, true],
    [false, TopicVisibility.INHERIT, false, true, false],
    [false, TopicVisibility.MUTED, true, true, false],
    [true, TopicVisibility.INHERIT, true, true, false],
    [true, TopicVisibility.UNMUTED, null, true, true],
    [true, TopicVisibility.FOLLOWED, true, false, true],
  ])('muted=%s visibility=%s channel=%s user=%s → %s', (muted, visibility, channel, user, expected) => {
    expect(allowsChannelNotification(muted, visibility, channel, user)).toBe(expected);
  });
});
