import { IsString, ValidateBy } from 'class-validator';
import { OptionalArg } from '../../common/http/params';
import { decoratorsFor } from '../../realm/user-settings-defaults.params';
import { USER_SETTING_DEFS, UserSettingName } from '../../realm/user-settings';
import { isRecognizedTimezone } from '../languages';
import { SettingsErrors } from '../user.errors';

/**
 * The parameters of PATCH /settings in the order of Zulip's json_change_settings (which is the
 * order its errors come in): account fields, then the settings, with `timezone` among them.
 */
export const SETTINGS_PARAM_ORDER = [
  'full_name',
  'email',
  'old_password',
  'new_password',
  'twenty_four_hour_time',
  'web_mark_read_on_scroll_policy',
  'web_channel_default_view',
  'starred_message_counts',
  'receives_typing_notifications',
  'web_suggest_update_timezone',
  'fluid_layout_width',
  'high_contrast_mode',
  'web_font_size_px',
  'web_line_height_percent',
  'color_scheme',
  'enable_drafts_synchronization',
  'translate_emoticons',
  'display_emoji_reaction_users',
  'default_language',
  'web_home_view',
  'web_escape_navigates_to_home_view',
  'left_side_userlist',
  'emojiset',
  'demote_inactive_streams',
  'user_list_style',
  'web_animate_image_previews',
  'web_stream_unreads_count_display_policy',
  'hide_ai_features',
  'web_left_sidebar_show_channel_folders',
  'web_left_sidebar_unreads_count_summary',
  'timezone',
  'enable_stream_desktop_notifications',
  'enable_stream_email_notifications',
  'enable_stream_push_notifications',
  'enable_stream_audible_notifications',
  'notification_sound',
  'enable_desktop_notifications',
  'enable_sounds',
  'email_notifications_batching_period_seconds',
  'enable_offline_email_notifications',
  'enable_offline_push_notifications',
  'enable_online_push_notifications',
  'enable_followed_topic_desktop_notifications',
  'enable_followed_topic_email_notifications',
  'enable_followed_topic_push_notifications',
  'enable_followed_topic_audible_notifications',
  'enable_digest_emails',
  'enable_marketing_emails',
  'enable_login_emails',
  'message_content_in_email_notifications',
  'pm_content_in_desktop_notifications',
  'wildcard_mentions_notify',
  'enable_followed_topic_wildcard_mentions_notify',
  'desktop_icon_count_display',
  'realm_name_in_email_notifications_policy',
  'automatically_follow_topics_policy',
  'automatically_unmute_topics_in_muted_streams_policy',
  'automatically_follow_topics_where_mentioned',
  'resolved_topic_notice_auto_read_policy',
  'presence_enabled',
  'enter_sends',
  'send_private_typing_notifications',
  'send_stream_typing_notifications',
  'send_read_receipts',
  'allow_private_data_export',
  'email_address_visibility',
  'web_navigate_to_sent_message',
] as const;

const ACCOUNT_FIELDS = new Set(['full_name', 'email', 'old_password', 'new_password']);

/** Zulip's check_timezone. */
function recognizedTimezone(name: string): PropertyDecorator {
  return ValidateBy({
    name: 'recognizedTimezone',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isRecognizedTimezone(value),
      defaultMessage: () => SettingsErrors.unrecognizedTimezone(name).message,
    },
  });
}

/** DTO of PATCH /settings (and its legacy paths /settings/display, /settings/notifications). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class UpdateSettingsArgs {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface UpdateSettingsArgs extends Partial<Record<UserSettingName, unknown>> {
  full_name?: string;
  email?: string;
  old_password?: string;
  new_password?: string;
  timezone?: string;
}
for (const name of SETTINGS_PARAM_ORDER) {
  const decorators: PropertyDecorator[] = ACCOUNT_FIELDS.has(name)
    ? [OptionalArg({ json: false }), IsString()]
    : name === 'timezone'
      ? [OptionalArg({ json: false }), IsString(), recognizedTimezone(name)]
      : decoratorsFor(name, USER_SETTING_DEFS[name as UserSettingName]);
  for (const decorate of decorators) decorate(UpdateSettingsArgs.prototype, name);
}
