/**
 * Should a message reach a user's phone, and why? A pure decision, computed when a message is
 * sent, following Zulip's UserMessageNotificationsData (zerver/lib/notification_data.py):
 * direct messages and mentions unless offline push is off; wildcard mentions per the
 * wildcard_mentions_notify setting (channel override first); followed topics; channels with push
 * enabled (channel override first); never for muted channels/topics (except for followed or
 * unmuted topics), muted senders, bots, or the sender; and only when the user is idle unless
 * online push is on.
 */

/** Topic visibility policies (zerver/models/user_topics.py). */
export const TopicVisibility = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

export type PushTrigger =
  | 'direct_message'
  | 'mentioned'
  | 'topic_wildcard_mentioned_in_followed_topic'
  | 'stream_wildcard_mentioned_in_followed_topic'
  | 'topic_wildcard_mentioned'
  | 'stream_wildcard_mentioned'
  | 'followed_topic'
  | 'stream_push_notify';

export interface PushSettings {
  enable_offline_push_notifications: boolean;
  enable_online_push_notifications: boolean;
  enable_stream_push_notifications: boolean;
  enable_followed_topic_push_notifications: boolean;
  enable_followed_topic_wildcard_mentions_notify: boolean;
  wildcard_mentions_notify: boolean;
}

export interface RecipientContext {
  userId: number;
  isBot: boolean;
  settings: PushSettings;
  /** The recipient's message flags: mentioned, stream_wildcard_mentioned, topic_wildcard_mentioned, … */
  flags: ReadonlySet<string>;
  /** For channel messages: the recipient's subscription (null overrides inherit the user setting). */
  subscription?: { isMuted: boolean; pushNotifications: boolean | null; wildcardMentionsNotify: boolean | null };
  /** For channel messages: the recipient's visibility policy for the topic. */
  topicVisibility?: number;
  /** The recipient muted the sender. */
  senderMuted: boolean;
}

export interface MessageContext {
  senderId: number;
  isDirectMessage: boolean;
  /** Messages sent by the server itself with notifications disabled (Zulip's disable_external_notifications). */
  disableExternalNotifications?: boolean;
}

/** Zulip's user_allows_notifications_in_StreamTopic: muting wins unless the topic is unmuted/followed. */
export function allowsChannelNotification(
  channelMuted: boolean,
  visibility: number,
  channelSetting: boolean | null,
  userSetting: boolean,
): boolean {
  if (visibility === TopicVisibility.MUTED) return false;
  if (channelMuted && visibility !== TopicVisibility.UNMUTED && visibility !== TopicVisibility.FOLLOWED) return false;
  return channelSetting ?? userSetting;
}

/** The reason to push `message` to `recipient`, or null. `idle`: the user has no active client. */
export function pushTrigger(recipient: RecipientContext, message: MessageContext, idle: boolean): PushTrigger | null {
  const s = recipient.settings;
  if (recipient.isBot) return null;
  if (!idle && !s.enable_online_push_notifications) return null;
  if (recipient.userId === message.senderId) return null;
  if (recipient.senderMuted || message.disableExternalNotifications) return null;

  const has = (flag: string) => recipient.flags.has(flag);
  const dmOrMentionPush = s.enable_offline_push_notifications;
  if (message.isDirectMessage) return dmOrMentionPush ? 'direct_message' : null;
  if (dmOrMentionPush && has('mentioned')) return 'mentioned';

  const sub = recipient.subscription;
  const visibility = recipient.topicVisibility ?? TopicVisibility.INHERIT;
  const followed = visibility === TopicVisibility.FOLLOWED;
  const wildcardNotify =
    sub !== undefined &&
    allowsChannelNotification(sub.isMuted, visibility, sub.wildcardMentionsNotify, s.wildcard_mentions_notify);

  if (followed && s.enable_followed_topic_wildcard_mentions_notify && dmOrMentionPush) {
    if (has('topic_wildcard_mentioned')) return 'topic_wildcard_mentioned_in_followed_topic';
    if (has('stream_wildcard_mentioned')) return 'stream_wildcard_mentioned_in_followed_topic';
  }
  if (wildcardNotify && dmOrMentionPush) {
    if (has('topic_wildcard_mentioned')) return 'topic_wildcard_mentioned';
    if (has('stream_wildcard_mentioned')) return 'stream_wildcard_mentioned';
  }
  if (followed && s.enable_followed_topic_push_notifications) return 'followed_topic';
  if (
    sub &&
    allowsChannelNotification(sub.isMuted, visibility, sub.pushNotifications, s.enable_stream_push_notifications)
  ) {
    return 'stream_push_notify';
  }
  return null;
}
