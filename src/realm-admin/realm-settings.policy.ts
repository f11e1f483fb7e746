import type { RealmGroupSettingName } from '../realm/system-groups';
import { ParamErrors } from '../common/errors/param.errors';

/** The edit/move/delete time limits: a positive number of seconds, or "unlimited" (null). */
export const TIME_LIMIT_SETTINGS = [
  'message_content_delete_limit_seconds',
  'message_content_edit_limit_seconds',
  'move_messages_within_stream_limit_seconds',
  'move_messages_between_streams_limit_seconds',
] as const;
export type TimeLimitSetting = (typeof TIME_LIMIT_SETTINGS)[number];

/** Zulip's RequestVariableConversionError code. */

const INT32_MAX = 2_147_483_647;

/**
 * Zulip's parse_message_time_limit_setting: "unlimited" means no limit (null); other strings and
 * numbers below 1 are `Bad value for '<name>': <value>` (code REQUEST_VARIABLE_INVALID).
 */
export function parseTimeLimit(name: string, raw: number | string): number | null {
  if (raw === 'unlimited') return null;
  if (typeof raw === 'string' || raw <= 0 || raw > INT32_MAX) {
    throw ParamErrors.badValue(name, raw);
  }
  return raw;
}

/** Settings only organization owners may change (the rest of PATCH /realm needs an administrator). */
export const OWNER_ONLY_GROUP_SETTINGS: RealmGroupSettingName[] = [
  'can_create_groups',
  'can_invite_users_group',
  'can_manage_all_groups',
  'can_manage_billing_group',
  'create_multiuse_invite_group',
];

/** Realm topics_policy values (RealmTopicsPolicyEnum) and their codes. */
export const REALM_TOPICS_POLICIES: Record<string, number> = {
  allow_empty_topic: 2,
  disable_empty_topic: 3,
};

/** Realm message_edit_history_visibility_policy values (MessageEditHistoryVisibilityPolicyEnum) and their codes. */
export const EDIT_HISTORY_VISIBILITY_POLICIES: Record<string, number> = {
  all: 1,
  moves: 2,
  none: 3,
};
