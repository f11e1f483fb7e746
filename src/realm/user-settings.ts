import { Column } from 'typeorm';

/**
 * Personal preference settings (Zulip's UserBaseSettings). One table drives the columns of both
 * `user_profile` and `realm_user_default`, the validation of PATCH endpoints, and the API shape.
 */
export type SettingDef =
  | { kind: 'bool'; default: boolean }
  | { kind: 'intEnum'; values: readonly number[]; default: number }
  | { kind: 'strEnum'; values: readonly string[]; default: string; message?: 'literal' | 'valueError' }
  | { kind: 'int'; default: number; min?: number; max?: number }
  | { kind: 'str'; default: string; maxLength: number };

const bool = (d: boolean) => ({ kind: 'bool' as const, default: d });
const intEnum = (values: number[], d: number) => ({ kind: 'intEnum' as const, values, default: d });
const strEnum = (values: string[], d: string, message: 'literal' | 'valueError' = 'literal') => ({
  kind: 'strEnum' as const,
  values,
  default: d,
  message,
});

/** Notification sounds Zulip ships (static/audio/notification_sounds), plus "none". */
export const NOTIFICATION_SOUNDS = ['chime', 'ding', 'zulip', 'none'] as const;

export const USER_SETTING_DEFS = {
  // Display settings
  color_scheme: intEnum([1, 2, 3], 1),
  default_language: { kind: 'str' as const, default: 'en', maxLength: 50 },
  web_home_view: strEnum(['recent_topics', 'inbox', 'all_messages'], 'inbox'),
  demote_inactive_streams: intEnum([1, 2, 3], 1),
  emojiset: strEnum(['google', 'twitter', 'text'], 'google', 'valueError'),
  enter_sends: bool(false),
  fluid_layout_width: bool(false),
  high_contrast_mode: bool(false),
  left_side_userlist: bool(false),
  starred_message_counts: bool(true),
  translate_emoticons: bool(false),
  display_emoji_reaction_users: bool(true),
  twenty_four_hour_time: bool(false),
  user_list_style: intEnum([1, 2, 3], 3),
  web_animate_image_previews: strEnum(['always', 'on_hover', 'never'], 'on_hover'),
  web_channel_default_view: intEnum([1, 2, 3, 4], 1),
  web_escape_navigates_to_home_view: bool(true),
  web_font_size_px: { kind: 'int' as const, default: 16 },
  web_line_height_percent: { kind: 'int' as const, default: 140 },
  web_mark_read_on_scroll_policy: intEnum([1, 2, 3], 1),
  web_navigate_to_sent_message: bool(true),
  web_stream_unreads_count_display_policy: intEnum([1, 2, 3], 2),
  web_suggest_update_timezone: bool(true),
  hide_ai_features: bool(false),
  web_left_sidebar_show_channel_folders: bool(true),
  web_left_sidebar_unreads_count_summary: bool(true),
  // Notification settings
  enable_desktop_notifications: bool(true),
  enable_digest_emails: bool(true),
  enable_login_emails: bool(true),
  enable_marketing_emails: bool(true),
  enable_offline_email_notifications: bool(true),
  enable_offline_push_notifications: bool(true),
  enable_online_push_notifications: bool(true),
  enable_sounds: bool(true),
  enable_stream_audible_notifications: bool(false),
  enable_stream_desktop_notifications: bool(false),
  enable_stream_email_notifications: bool(false),
  enable_stream_push_notifications: bool(false),
  enable_followed_topic_audible_notifications: bool(true),
  enable_followed_topic_desktop_notifications: bool(true),
  enable_followed_topic_email_notifications: bool(true),
  enable_followed_topic_push_notifications: bool(true),
  enable_followed_topic_wildcard_mentions_notify: bool(true),
  email_notifications_batching_period_seconds: { kind: 'int' as const, default: 120, min: 1, max: 604800 },
  message_content_in_email_notifications: bool(true),
  notification_sound: { kind: 'str' as const, default: 'zulip', maxLength: 20 },
  pm_content_in_desktop_notifications: bool(true),
  desktop_icon_count_display: intEnum([1, 2, 3, 4], 1),
  realm_name_in_email_notifications_policy: intEnum([1, 2, 3], 1),
  wildcard_mentions_notify: bool(true),
  automatically_follow_topics_policy: intEnum([1, 2, 3, 4], 3),
  automatically_unmute_topics_in_muted_streams_policy: intEnum([1, 2, 3, 4], 2),
  automatically_follow_topics_where_mentioned: bool(true),
  resolved_topic_notice_auto_read_policy: strEnum(['always', 'except_followed', 'never'], 'except_followed'),
  presence_enabled: bool(true),
  receives_typing_notifications: bool(true),
  // Other settings
  send_private_typing_notifications: bool(true),
  send_stream_typing_notifications: bool(true),
  send_read_receipts: bool(true),
  email_address_visibility: intEnum([1, 2, 3, 4, 5], 1),
  allow_private_data_export: bool(false),
  enable_drafts_synchronization: bool(true),
} as const satisfies Record<string, SettingDef>;

export type UserSettingName = keyof typeof USER_SETTING_DEFS;
export const USER_SETTING_NAMES = Object.keys(USER_SETTING_DEFS) as UserSettingName[];

type ValueOf<D> = D extends { kind: 'bool' } ? boolean : D extends { kind: 'int' | 'intEnum' } ? number : string;
export type UserSettingsValues = { [K in UserSettingName]: ValueOf<(typeof USER_SETTING_DEFS)[K]> };

/**
 * Embedded TypeORM columns, one per setting (the decorators are generated from the table above).
 *
 * The fields are declared one by one, not merged in from {@link UserSettingsValues}, for V8:
 * TypeORM builds the embedded object with `new UserSettings()` and then sets every column through
 * a computed key. Fields the constructor defines get slots in the object itself, and those stores
 * only fill them; on an empty class the ~60 keyed additions turned every object into a hash
 * table (a hydrated user row weighed 3.4 KB instead of 0.7 KB, and took twice as long to fill). `implements` makes
 * the compiler reject a missing or mistyped field; a test compares the field list with the table.
 */
export class UserSettings implements UserSettingsValues {
  color_scheme: number;
  default_language: string;
  web_home_view: string;
  demote_inactive_streams: number;
  emojiset: string;
  enter_sends: boolean;
  fluid_layout_width: boolean;
  high_contrast_mode: boolean;
  left_side_userlist: boolean;
  starred_message_counts: boolean;
  translate_emoticons: boolean;
  display_emoji_reaction_users: boolean;
  twenty_four_hour_time: boolean;
  user_list_style: number;
  web_animate_image_previews: string;
  web_channel_default_view: number;
  web_escape_navigates_to_home_view: boolean;
  web_font_size_px: number;
  web_line_height_percent: number;
  web_mark_read_on_scroll_policy: number;
  web_navigate_to_sent_message: boolean;
  web_stream_unreads_count_display_policy: number;
  web_suggest_update_timezone: boolean;
  hide_ai_features: boolean;
  web_left_sidebar_show_channel_folders: boolean;
  web_left_sidebar_unreads_count_summary: boolean;
  enable_desktop_notifications: boolean;
  enable_digest_emails: boolean;
  enable_login_emails: boolean;
  enable_marketing_emails: boolean;
  enable_offline_email_notifications: boolean;
  enable_offline_push_notifications: boolean;
  enable_online_push_notifications: boolean;
  enable_sounds: boolean;
  enable_stream_audible_notifications: boolean;
  enable_stream_desktop_notifications: boolean;
  enable_stream_email_notifications: boolean;
  enable_stream_push_notifications: boolean;
  enable_followed_topic_audible_notifications: boolean;
  enable_followed_topic_desktop_notifications: boolean;
  enable_followed_topic_email_notifications: boolean;
  enable_followed_topic_push_notifications: boolean;
  enable_followed_topic_wildcard_mentions_notify: boolean;
  email_notifications_batching_period_seconds: number;
  message_content_in_email_notifications: boolean;
  notification_sound: string;
  pm_content_in_desktop_notifications: boolean;
  desktop_icon_count_display: number;
  realm_name_in_email_notifications_policy: number;
  wildcard_mentions_notify: boolean;
  automatically_follow_topics_policy: number;
  automatically_unmute_topics_in_muted_streams_policy: number;
  automatically_follow_topics_where_mentioned: boolean;
  resolved_topic_notice_auto_read_policy: string;
  presence_enabled: boolean;
  receives_typing_notifications: boolean;
  send_private_typing_notifications: boolean;
  send_stream_typing_notifications: boolean;
  send_read_receipts: boolean;
  email_address_visibility: number;
  allow_private_data_export: boolean;
  enable_drafts_synchronization: boolean;
}

for (const name of USER_SETTING_NAMES) {
  const def: SettingDef = USER_SETTING_DEFS[name];
  const column =
    def.kind === 'bool'
      ? Column({ name, type: 'boolean', default: def.default })
      : def.kind === 'int' || def.kind === 'intEnum'
        ? Column({ name, type: 'integer', default: def.default })
        : Column({ name, type: 'varchar', length: def.kind === 'str' ? def.maxLength : 32, default: def.default });
  column(UserSettings.prototype, name);
}

export function defaultUserSettings(): UserSettingsValues {
  const out: Record<string, unknown> = {};
  for (const name of USER_SETTING_NAMES) out[name] = USER_SETTING_DEFS[name].default;
  return out as UserSettingsValues;
}

export function pickUserSettings(source: UserSettingsValues): UserSettingsValues {
  const out: Record<string, unknown> = {};
  for (const name of USER_SETTING_NAMES) out[name] = source[name];
  return out as UserSettingsValues;
}

/**
 * UserProfile.display_settings_legacy: sent at the top level of /register and in
 * `update_display_settings` events (with `timezone`), with `fetch_event_types`
 * containing `update_display_settings`, to clients without the user_settings_object capability.
 */
export const DISPLAY_SETTINGS_LEGACY = [
  'color_scheme',
  'default_language',
  'web_home_view',
  'demote_inactive_streams',
  'emojiset',
  'enable_drafts_synchronization',
  'enter_sends',
  'fluid_layout_width',
  'high_contrast_mode',
  'left_side_userlist',
  'starred_message_counts',
  'translate_emoticons',
  'twenty_four_hour_time',
] as const;

/** UserProfile.notification_settings_legacy (`update_global_notifications`), likewise. */
export const NOTIFICATION_SETTINGS_LEGACY = [
  'desktop_icon_count_display',
  'email_notifications_batching_period_seconds',
  'enable_desktop_notifications',
  'enable_digest_emails',
  'enable_login_emails',
  'enable_marketing_emails',
  'enable_offline_email_notifications',
  'enable_offline_push_notifications',
  'enable_online_push_notifications',
  'enable_sounds',
  'enable_stream_audible_notifications',
  'enable_stream_desktop_notifications',
  'enable_stream_email_notifications',
  'enable_stream_push_notifications',
  'message_content_in_email_notifications',
  'notification_sound',
  'pm_content_in_desktop_notifications',
  'presence_enabled',
  'realm_name_in_email_notifications_policy',
  'receives_typing_notifications',
  'wildcard_mentions_notify',
] as const;
