import { SystemGroupName } from '../realm/system-groups';
import type { Stream } from './channel.entity';

/**
 * Channel-level group permission settings (Zulip's Stream.stream_permission_group_settings):
 * whether role:everyone may hold them (guests never hold the others) and the default for new
 * channels. `channel_creator` is an anonymous group containing the creator (role:nobody when a
 * channel has no creator).
 */
export interface ChannelGroupSettingRule {
  allowEveryone: boolean;
  default: SystemGroupName | 'channel_creator';
  /** Entity property holding the group id. */
  property: keyof Stream;
}

export const CHANNEL_GROUP_SETTINGS = {
  can_add_subscribers_group: { allowEveryone: false, default: 'role:nobody', property: 'canAddSubscribersGroup' },
  can_administer_channel_group: {
    allowEveryone: false,
    default: 'channel_creator',
    property: 'canAdministerChannelGroup',
  },
  can_create_topic_group: { allowEveryone: true, default: 'role:everyone', property: 'canCreateTopicGroup' },
  can_delete_any_message_group: { allowEveryone: true, default: 'role:nobody', property: 'canDeleteAnyMessageGroup' },
  can_delete_own_message_group: { allowEveryone: true, default: 'role:nobody', property: 'canDeleteOwnMessageGroup' },
  can_move_messages_out_of_channel_group: {
    allowEveryone: true,
    default: 'role:nobody',
    property: 'canMoveMessagesOutOfChannelGroup',
  },
  can_move_messages_within_channel_group: {
    allowEveryone: true,
    default: 'role:nobody',
    property: 'canMoveMessagesWithinChannelGroup',
  },
  can_remove_subscribers_group: {
    allowEveryone: true,
    default: 'role:administrators',
    property: 'canRemoveSubscribersGroup',
  },
  can_resolve_topics_group: { allowEveryone: true, default: 'role:nobody', property: 'canResolveTopicsGroup' },
  can_send_message_group: { allowEveryone: true, default: 'role:everyone', property: 'canSendMessageGroup' },
  can_subscribe_group: { allowEveryone: false, default: 'role:nobody', property: 'canSubscribeGroup' },
} as const satisfies Record<string, ChannelGroupSettingRule>;

export type ChannelGroupSettingName = keyof typeof CHANNEL_GROUP_SETTINGS;
export const CHANNEL_GROUP_SETTING_NAMES = Object.keys(CHANNEL_GROUP_SETTINGS) as ChannelGroupSettingName[];

/**
 * Settings that appear in channel objects. `can_create_topic_group` is newer than the API level
 * this server speaks (its OpenAPI document forbids the field in channel objects): it is stored,
 * accepted on creation and update and enforced by messaging, but not sent to clients.
 */
export const API_CHANNEL_GROUP_SETTING_NAMES: ChannelGroupSettingName[] = CHANNEL_GROUP_SETTING_NAMES.filter(
  (n) => n !== 'can_create_topic_group',
);

/** Settings whose members get metadata access to a private channel. */
export const METADATA_GRANTING_SETTINGS: ChannelGroupSettingName[] = [
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_subscribe_group',
];

/** Settings that may only be changed by someone with content access. */
export const CONTENT_ACCESS_REQUIRED_SETTINGS: ChannelGroupSettingName[] = [
  'can_add_subscribers_group',
  'can_subscribe_group',
];

/** Stream.topics_policy codes and their API names. */
export const TopicsPolicy = {
  inherit: 1,
  allow_empty_topic: 2,
  disable_empty_topic: 3,
  empty_topic_only: 4,
} as const;
export type TopicsPolicyName = keyof typeof TopicsPolicy;
export const TOPICS_POLICY_NAMES = Object.keys(TopicsPolicy) as TopicsPolicyName[];

export function topicsPolicyName(code: number): TopicsPolicyName {
  return TOPICS_POLICY_NAMES.find((n) => TopicsPolicy[n] === code) ?? 'inherit';
}

/** Legacy stream_post_policy values derived from can_send_message_group. */
export const StreamPostPolicy = {
  EVERYONE: 1,
  ADMINS: 2,
  RESTRICT_NEW_MEMBERS: 3,
  MODERATORS: 4,
} as const;

/** Colors given to new subscriptions (zerver/lib/stream_color.py STREAM_ASSIGNMENT_COLORS). */
export const STREAM_ASSIGNMENT_COLORS = [
  '#76ce90',
  '#fae589',
  '#a6c7e5',
  '#e79ab5',
  '#bfd56f',
  '#f4ae55',
  '#b0a5fd',
  '#addfe5',
  '#f5ce6e',
  '#c2726a',
  '#94c849',
  '#bd86e5',
  '#ee7e4a',
  '#a6dcbf',
  '#95a5fd',
  '#53a063',
  '#9987e1',
  '#e4523d',
  '#c2c2c2',
  '#4f8de4',
  '#c6a8ad',
  '#e7cc4d',
  '#c8bebf',
  '#a47462',
];

export const DEFAULT_STREAM_COLOR = '#c2c2c2';

/** Subscription properties of POST /users/me/subscriptions/properties. */
export const BOOLEAN_SUBSCRIPTION_PROPERTIES = [
  'in_home_view',
  'is_muted',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'pin_to_top',
  'wildcard_mentions_notify',
] as const;
export type SubscriptionPropertyName = (typeof BOOLEAN_SUBSCRIPTION_PROPERTIES)[number] | 'color';
