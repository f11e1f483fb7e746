import type { SystemGroupName } from '../realm/system-groups';
import type { GroupSettingValue } from '../users/group-settings.service';
import type { Stream } from './channel.entity';
import {
  API_CHANNEL_GROUP_SETTING_NAMES,
  CHANNEL_GROUP_SETTINGS,
  StreamPostPolicy,
  topicsPolicyName,
} from './channel-settings';
import { streamPostPolicyFor } from './channels.policy';
import type { Subscription } from './subscription.entity';

/** Lookups a channel dict needs, prepared in bulk by the caller (fixed number of queries). */
export interface ChannelFormatContext {
  /** API value of a stored group-setting id. */
  groupValue(groupId: number): GroupSettingValue;
  /** The system group name of an id, if it is one. */
  systemGroupName(groupId: number): SystemGroupName | undefined;
  /** Active subscribers of the channel. */
  subscriberCount(streamId: number): number;
  /**
   * Equal for two contexts whose `groupValue` and `systemGroupName` answer alike (a serialised dict
   * may be reused when its channel row and subscriber count are the same too); absent: never.
   */
  signature?: string;
}

export type ChannelDict = Record<string, unknown> & { stream_id: number; name: string };

function timestamp(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** Zulip's stream_to_dict (APIStreamDict). `stream_weekly_traffic` is null until messages exist. */
export function channelDict(stream: Stream, ctx: ChannelFormatContext): ChannelDict {
  const postPolicy = streamPostPolicyFor(ctx.systemGroupName(stream.canSendMessageGroup));
  const dict: ChannelDict = {
    stream_id: stream.id,
    name: stream.name,
    is_archived: stream.deactivated,
    description: stream.description,
    rendered_description: stream.renderedDescription,
    date_created: timestamp(stream.dateCreated),
    creator_id: stream.creatorId,
    invite_only: stream.inviteOnly,
    is_web_public: stream.isWebPublic,
    history_public_to_subscribers: stream.historyPublicToSubscribers,
    message_retention_days: stream.messageRetentionDays,
    topics_policy: topicsPolicyName(stream.topicsPolicy),
    first_message_id: stream.firstMessageId,
    folder_id: stream.folderId,
    is_recently_active: stream.isRecentlyActive,
    stream_post_policy: postPolicy,
    is_announcement_only: postPolicy === StreamPostPolicy.ADMINS,
    stream_weekly_traffic: null,
    subscriber_count: ctx.subscriberCount(stream.id),
  };
  for (const name of API_CHANNEL_GROUP_SETTING_NAMES) {
    dict[name] = ctx.groupValue(stream[CHANNEL_GROUP_SETTINGS[name].property]);
  }
  return dict;
}

/** The subscription-specific part of a subscription object (Subscription.API_FIELDS + in_home_view). */
export function subscriptionFields(sub: Subscription): Record<string, unknown> {
  return {
    color: sub.color,
    is_muted: sub.isMuted,
    in_home_view: !sub.isMuted,
    pin_to_top: sub.pinToTop,
    desktop_notifications: sub.desktopNotifications,
    audible_notifications: sub.audibleNotifications,
    push_notifications: sub.pushNotifications,
    email_notifications: sub.emailNotifications,
    wildcard_mentions_notify: sub.wildcardMentionsNotify,
  };
}

/** A subscription object: the channel dict plus the user's settings (and subscribers if given). */
export function subscriptionDict(
  stream: Stream,
  sub: Subscription,
  ctx: ChannelFormatContext,
  subscribers?: number[],
): ChannelDict {
  const dict: ChannelDict = { ...channelDict(stream, ctx), ...subscriptionFields(sub) };
  if (subscribers) dict.subscribers = subscribers;
  return dict;
}
