import type { RealmGroupSettingName } from '../realm/system-groups';
import { ParamErrors } from '../common/errors/param.errors';

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

/**
 * Zulip's parse_message_retention_days: "unlimited" is -1 (keep forever); other strings and
 * numbers below 1 are `Bad value for 'message_retention_days': <value>`.
 */
export function parseRetentionDays(raw: number | string): number {
  if (raw === 'unlimited') return -1;
  if (typeof raw === 'string' || raw <= 0 || raw > INT32_MAX) throw ParamErrors.badValue('message_retention_days', raw);
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
