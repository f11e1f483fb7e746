/**
 * Notification payloads in Zulip's formats (zerver/lib/push_notifications.py: get_base_payload,
 * get_message_payload, get_message_payload_apns / _gcm, get_apns_alert_title / _subtitle,
 * get_remove_payload_apns / _gcm). Pure: everything comes in as data.
 */
import { INACCESSIBLE_USER_AVATAR_PATH, INACCESSIBLE_USER_NAME } from '../users/user-access';
import { mobilePushContent, truncatePushContent } from './push-content';
import type { PushTrigger } from './notifiability';
import type { ApnsNotification, FcmNotification, PushPayload } from './push-provider';

/** The realm as the payload names it. */
export interface PushRealm {
  id: number;
  name: string;
  /** The realm's URL, e.g. https://chat.example.com (no trailing slash needed). */
  url: string;
}

export interface PushSender {
  id: number;
  /** The sender's email as the recipients see it (API email). */
  email: string;
  fullName: string;
  /** Absolute, or relative to the realm URL. */
  avatarUrl: string;
}

export type PushMessageRecipient =
  | { type: 'channel'; channelId: number; channelName: string; topic: string }
  /**
   * A direct message. `participants`: everyone in the conversation, sender included (Zulip's
   * display recipient); a group DM (more than two) gets pm_users and a title of their names.
   */
  | { type: 'direct'; participants: ReadonlyArray<{ id: number; fullName: string }> };

export interface PushMessage {
  id: number;
  sender: PushSender;
  recipient: PushMessageRecipient;
  /** The rendered HTML (made plain as Zulip does); `content` is used as is when given instead. */
  renderedContent?: string;
  content?: string;
  /** When the message was sent (Date, or UNIX seconds). */
  dateSent: Date | number;
}

/** One user to notify, and why. */
export interface PushRecipient {
  userId: number;
  trigger: PushTrigger;
  /** When mentioned through a group rather than personally (the smallest such group). */
  mentionedUserGroup?: { id: number; name: string };
  /** False for a guest who may not see the sender (Zulip's can_access_sender); default true. */
  canAccessSender?: boolean;
}

export interface PayloadContext {
  /** The server's host (Zulip's EXTERNAL_HOST), the payload's `server`. */
  serverHost: string;
  /** Topic shown for the empty topic. */
  emptyTopicName: string;
}

/** Zulip shows a notification for a day at most (APNs time_to_live). */
const APNS_TIME_TO_LIVE_SECONDS = 24 * 3600;
/** Newest message ids kept in a remove payload (APNs' 4 KB limit). */
export const MAX_REMOVE_MESSAGE_IDS = 200;

function absoluteUrl(url: string, realmUrl: string): string {
  try {
    return new URL(url, realmUrl.endsWith('/') ? realmUrl : realmUrl + '/').toString();
  } catch {
    return url;
  }
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

const isGroupDirect = (r: PushMessageRecipient) => r.type === 'direct' && r.participants.length > 2;

/** The fields of every payload: which server, realm and user it is for. */
export function basePayload(ctx: PayloadContext, realm: PushRealm, userId: number): Record<string, unknown> {
  return {
    server: ctx.serverHost,
    realm_id: realm.id,
    realm_uri: realm.url,
    realm_url: realm.url,
    realm_name: realm.name,
    user_id: userId,
  };
}

function topicDisplayName(topic: string, ctx: PayloadContext): string {
  return topic === '' ? ctx.emptyTopicName : topic;
}

function senderIdentity(realm: PushRealm, message: PushMessage, recipient: PushRecipient) {
  if (recipient.canAccessSender === false) {
    return {
      email: `user${message.sender.id}@${hostnameOf(realm.url) ?? 'unknown'}`,
      fullName: INACCESSIBLE_USER_NAME,
      avatarUrl: absoluteUrl(INACCESSIBLE_USER_AVATAR_PATH, realm.url),
    };
  }
  return {
    email: message.sender.email,
    fullName: message.sender.fullName,
    avatarUrl: absoluteUrl(message.sender.avatarUrl, realm.url),
  };
}

/** get_message_payload: the message fields common to both platforms. */
export function messagePayload(
  ctx: PayloadContext,
  realm: PushRealm,
  message: PushMessage,
  recipient: PushRecipient,
): Record<string, unknown> {
  const data = basePayload(ctx, realm, recipient.userId);
  data.sender_id = message.sender.id;
  data.sender_email = senderIdentity(realm, message, recipient).email;
  data.time = Math.floor(typeof message.dateSent === 'number' ? message.dateSent : message.dateSent.getTime() / 1000);
  if (recipient.mentionedUserGroup) {
    data.mentioned_user_group_id = recipient.mentionedUserGroup.id;
    data.mentioned_user_group_name = recipient.mentionedUserGroup.name;
  }
  const r = message.recipient;
  if (r.type === 'channel') {
    data.recipient_type = 'stream';
    data.stream = r.channelName;
    data.stream_id = r.channelId;
    data.topic = topicDisplayName(r.topic, ctx);
  } else {
    data.recipient_type = 'private';
    if (isGroupDirect(r)) {
      data.pm_users = [...new Set(r.participants.map((p) => p.id))].sort((a, b) => a - b).join(',');
    }
  }
  return data;
}

/** get_apns_alert_title: the first bold line on iOS. */
export function apnsAlertTitle(message: PushMessage, ctx: PayloadContext): string {
  const r = message.recipient;
  if (r.type === 'direct' && isGroupDirect(r)) {
    return r.participants
      .map((p) => p.fullName)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .join(', ');
  }
  if (r.type === 'channel') return `#${r.channelName} > ${topicDisplayName(r.topic, ctx)}`;
  return message.sender.fullName;
}

/** get_apns_alert_subtitle: the second bold line on iOS. */
export function apnsAlertSubtitle(message: PushMessage, recipient: PushRecipient, senderName: string): string {
  switch (recipient.trigger) {
    case 'mentioned':
      return recipient.mentionedUserGroup
        ? `${senderName} mentioned @${recipient.mentionedUserGroup.name}:`
        : `${senderName} mentioned you:`;
    case 'topic_wildcard_mentioned_in_followed_topic':
    case 'stream_wildcard_mentioned_in_followed_topic':
    case 'topic_wildcard_mentioned':
    case 'stream_wildcard_mentioned':
      return `${senderName} mentioned everyone:`;
    case 'direct_message':
    case 'followed_topic':
    case 'stream_push_notify':
      break;
  }
  if (message.recipient.type === 'direct' && !isGroupDirect(message.recipient)) return '';
  return `${senderName}:`;
}

/** The notification text: rendered HTML made plain, truncated to 200 code points. */
export function notificationContent(
  message: PushMessage,
  ctx: PayloadContext,
  realm: PushRealm,
): { content: string; truncated: boolean } {
  const text =
    message.renderedContent !== undefined
      ? mobilePushContent(message.renderedContent, {
          serverHosts: [ctx.serverHost.replace(/:\d+$/, ''), hostnameOf(realm.url)].filter((h): h is string => !!h),
        })
      : (message.content ?? '');
  return truncatePushContent(text);
}

/**
 * FCM requires string values; Zulip converts with Python's str(), so booleans read "True"/"False"
 * and numbers their decimal form.
 */
export function fcmData(data: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined) continue;
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'boolean') out[k] = v ? 'True' : 'False';
    else if (typeof v === 'number') out[k] = String(v);
    else out[k] = JSON.stringify(v);
  }
  return out;
}

/** A `message` notification for one recipient, for both platforms. */
export function messageNotification(
  ctx: PayloadContext,
  realm: PushRealm,
  message: PushMessage,
  recipient: PushRecipient,
  content: { content: string; truncated: boolean } = notificationContent(message, ctx, realm),
): PushPayload {
  const common = messagePayload(ctx, realm, message, recipient);
  const sender = senderIdentity(realm, message, recipient);
  const apns: ApnsNotification = {
    body: {
      aps: {
        alert: {
          title: apnsAlertTitle(message, ctx),
          subtitle: apnsAlertSubtitle(message, recipient, sender.fullName),
          body: content.content,
        },
        sound: 'default',
        badge: 0,
      },
      zulip: { ...common, message_ids: [message.id] },
    },
    priority: 10,
    timeToLiveSeconds: APNS_TIME_TO_LIVE_SECONDS,
  };
  const fcm: FcmNotification = {
    data: fcmData({
      ...common,
      event: 'message',
      zulip_message_id: message.id,
      content: content.content,
      content_truncated: content.truncated,
      sender_full_name: sender.fullName,
      sender_avatar_url: sender.avatarUrl,
    }),
    priority: 'high',
  };
  return { apns, fcm };
}

/** The newest MAX_REMOVE_MESSAGE_IDS ids, ascending (handle_remove_push_notification). */
export function idsForRemoval(messageIds: readonly number[]): number[] {
  return [...new Set(messageIds)].sort((a, b) => a - b).slice(-MAX_REMOVE_MESSAGE_IDS);
}

/** A `remove` notification: take these messages' notifications off the device. */
export function removeNotification(
  ctx: PayloadContext,
  realm: PushRealm,
  userId: number,
  messageIds: readonly number[],
): PushPayload {
  const ids = idsForRemoval(messageIds);
  const base = basePayload(ctx, realm, userId);
  return {
    apns: {
      body: { aps: { badge: 0 }, zulip: { ...base, event: 'remove', zulip_message_ids: ids.join(',') } },
      priority: 10,
      timeToLiveSeconds: APNS_TIME_TO_LIVE_SECONDS,
    },
    fcm: {
      data: fcmData({
        ...base,
        event: 'remove',
        zulip_message_ids: ids.join(','),
        // Clients older than 2019 read only zulip_message_id.
        zulip_message_id: ids[0],
      }),
      priority: 'normal',
    },
  };
}

/**
 * A `test` notification (send_test_push_notification_directly_to_devices): the base payload with
 * `event: "test"`; on APNs a visible alert naming the realm, on FCM the send time.
 */
export function testNotification(ctx: PayloadContext, realm: PushRealm, userId: number, now: Date): PushPayload {
  const base = { ...basePayload(ctx, realm, userId), event: 'test' };
  return {
    apns: {
      body: {
        aps: {
          alert: {
            title: 'Test notification',
            body: `This is a test notification from ${realm.name} (${realm.url}).`,
          },
          sound: 'default',
        },
        zulip: base,
      },
      priority: 10,
      timeToLiveSeconds: APNS_TIME_TO_LIVE_SECONDS,
    },
    fcm: { data: fcmData({ ...base, time: Math.floor(now.getTime() / 1000) }), priority: 'high' },
  };
}
