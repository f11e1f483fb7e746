/**
 * Should a message be emailed to a user who is away, and why? A pure decision taken when the
 * message is sent, following Zulip's UserMessageNotificationsData (zerver/lib/notification_data.py)
 * and get_email_notification_trigger: direct messages and mentions unless offline email is off;
 * wildcard mentions per wildcard_mentions_notify (the channel's override first) or in followed
 * topics; followed topics; channels with email notifications on (the channel's override first);
 * never for muted channels/topics (unless the topic is unmuted or followed), muted senders, bots,
 * the sender, or a user who is online.
 */
import { allowsChannelNotification, TopicVisibility } from '../push/notifiability';

/** Zulip's NotificationTriggers used for email. */
export type EmailTrigger =
  | 'private_message'
  | 'mentioned'
  | 'topic_wildcard_mentioned_in_followed_topic'
  | 'stream_wildcard_mentioned_in_followed_topic'
  | 'topic_wildcard_mentioned'
  | 'stream_wildcard_mentioned'
  | 'followed_topic_email_notify'
  | 'stream_email_notify';

export interface EmailSettings {
  enable_offline_email_notifications: boolean;
  enable_stream_email_notifications: boolean;
  enable_followed_topic_email_notifications: boolean;
  enable_followed_topic_wildcard_mentions_notify: boolean;
  wildcard_mentions_notify: boolean;
}

export interface EmailRecipient {
  userId: number;
  isBot: boolean;
  settings: EmailSettings;
  /** The recipient's flags on the message, as API names. */
  flags: ReadonlySet<string>;
  /** Channel messages: the recipient's subscription (a null override inherits the user setting). */
  subscription?: { isMuted: boolean; emailNotifications: boolean | null; wildcardMentionsNotify: boolean | null };
  topicVisibility?: number;
  /** The recipient muted the sender. */
  senderMuted: boolean;
  /** No active client: no event queue polled recently, or no recent activity in presence. */
  idle: boolean;
}

export interface EmailMessageContext {
  senderId: number;
  isDirectMessage: boolean;
}

/** The reason to email `message` to `recipient`, or null. */
export function emailTrigger(recipient: EmailRecipient, message: EmailMessageContext): EmailTrigger | null {
  const s = recipient.settings;
  if (recipient.isBot || !recipient.idle) return null;
  if (recipient.userId === message.senderId || recipient.senderMuted) return null;
  if (recipient.flags.has('read')) return null;

  const has = (flag: string) => recipient.flags.has(flag);
  const dmOrMention = s.enable_offline_email_notifications;
  if (message.isDirectMessage) return dmOrMention ? 'private_message' : null;
  // Personal and group mentions both set `mentioned`.
  if (dmOrMention && has('mentioned')) return 'mentioned';

  const sub = recipient.subscription;
  const visibility = recipient.topicVisibility ?? TopicVisibility.INHERIT;
  const followed = visibility === TopicVisibility.FOLLOWED;
  if (followed && s.enable_followed_topic_wildcard_mentions_notify && dmOrMention) {
    if (has('topic_wildcard_mentioned')) return 'topic_wildcard_mentioned_in_followed_topic';
    if (has('stream_wildcard_mentioned')) return 'stream_wildcard_mentioned_in_followed_topic';
  }
  const wildcardNotify =
    sub !== undefined &&
    allowsChannelNotification(sub.isMuted, visibility, sub.wildcardMentionsNotify, s.wildcard_mentions_notify);
  if (wildcardNotify && dmOrMention) {
    if (has('topic_wildcard_mentioned')) return 'topic_wildcard_mentioned';
    if (has('stream_wildcard_mentioned')) return 'stream_wildcard_mentioned';
  }
  if (followed && s.enable_followed_topic_email_notifications) return 'followed_topic_email_notify';
  if (
    sub &&
    allowsChannelNotification(sub.isMuted, visibility, sub.emailNotifications, s.enable_stream_email_notifications)
  ) {
    return 'stream_email_notify';
  }
  return null;
}
