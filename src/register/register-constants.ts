/**
 * Fixed parts of the POST /register state: Zulip's server-level constants and the legacy
 * (pre-feature-level-89 / pre-group-setting) representations some clients still read.
 */
import type { SystemGroupName } from '../realm/system-groups';

/** When this server process started (Zulip's settings.SERVER_GENERATION). */
export const SERVER_GENERATION = Math.floor(Date.now() / 1000);

export const AVAILABLE_NOTIFICATION_SOUNDS = ['chime', 'ding', 'zulip'];

export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
];

/** Realm.UPGRADE_TEXT_STANDARD. */
export const UPGRADE_TEXT_STANDARD = 'Available on Zulip Cloud Standard. Upgrade to access.';

/** Realm.GIPHY_RATING_OPTIONS (the server has no GIPHY key, but the realm setting exists). */
export const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  'pg-13': { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
};

/**
 * The stop words of PostgreSQL's `english` text-search configuration, which message search uses
 * (`plainto_tsquery('pg_catalog.english', …)`): words a search ignores. A test checks each one
 * against the database's dictionary.
 */
export const STOP_WORDS = [
  'i', 'me', 'my', 'myself', 'we', 'our', 'ours', 'ourselves', 'you', 'your', 'yours', 'yourself',
  'yourselves', 'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself', 'it', 'its', 'itself',
  'they', 'them', 'their', 'theirs', 'themselves', 'what', 'which', 'who', 'whom', 'this', 'that',
  'these', 'those', 'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'have', 'has', 'had',
  'having', 'do', 'does', 'did', 'doing', 'a', 'an', 'the', 'and', 'but', 'if', 'or', 'because', 'as',
  'until', 'while', 'of', 'at', 'by', 'for', 'with', 'about', 'against', 'between', 'into', 'through',
  'during', 'before', 'after', 'above', 'below', 'to', 'from', 'up', 'down', 'in', 'out', 'on', 'off',
  'over', 'under', 'again', 'further', 'then', 'once', 'here', 'there', 'when', 'where', 'why', 'how',
  'all', 'any', 'both', 'each', 'few', 'more', 'most', 'other', 'some', 'such', 'no', 'nor', 'not',
  'only', 'own', 'same', 'so', 'than', 'too', 'very', 's', 't', 'can', 'will', 'just', 'don', 'should',
  'now',
]; // prettier-ignore

// The legacy settings lists live with the settings table (realm/user-settings.ts).
export { DISPLAY_SETTINGS_LEGACY, NOTIFICATION_SETTINGS_LEGACY } from '../realm/user-settings';

/** Realm.POLICY_* (the enums the group settings replaced). */
const Policy = { MEMBERS: 1, ADMINS: 2, FULL_MEMBERS: 3, MODERATORS: 4, EVERYONE: 5, NOBODY: 6, OWNERS: 7 };

/** Realm.SYSTEM_GROUPS_ENUM_MAP */
const SYSTEM_GROUP_POLICY: Partial<Record<SystemGroupName, number>> = {
  'role:owners': Policy.OWNERS,
  'role:administrators': Policy.ADMINS,
  'role:moderators': Policy.MODERATORS,
  'role:fullmembers': Policy.FULL_MEMBERS,
  'role:members': Policy.MEMBERS,
  'role:everyone': Policy.EVERYONE,
  'role:nobody': Policy.NOBODY,
};

/** Realm.SYSTEM_GROUPS_TO_WILDCARD_MENTION_POLICY_MAP (WildcardMentionPolicyEnum values). */
const WILDCARD_MENTION_POLICY: Partial<Record<SystemGroupName, number>> = {
  'role:everyone': 1,
  'role:members': 2,
  'role:fullmembers': 3,
  'role:administrators': 5,
  'role:nobody': 6,
  'role:moderators': 7,
};

const COMMON_POLICY_TYPES = [Policy.MEMBERS, Policy.ADMINS, Policy.FULL_MEMBERS, Policy.MODERATORS];
const CREATE_WEB_PUBLIC_STREAM_POLICY_TYPES = [Policy.ADMINS, Policy.MODERATORS, Policy.NOBODY, Policy.OWNERS];

/**
 * The deprecated enum forms of four realm group settings
 * (zerver/models/realms.py get_corresponding_policy_value_for_group_setting): the enum of the
 * system group when it has one, else the value for the largest group the enum could express.
 * `groupName` is the system-group name of the setting's group, or undefined for other groups.
 */
export function legacyRealmPolicies(
  groupName: (
    setting:
      | 'can_create_public_channel_group'
      | 'can_create_private_channel_group'
      | 'can_create_web_public_channel_group'
      | 'can_mention_many_users_group',
  ) => SystemGroupName | undefined,
): Record<string, number> {
  const common = (name: SystemGroupName | undefined, valid: number[], fallback: number) => {
    const policy = name === undefined ? undefined : SYSTEM_GROUP_POLICY[name];
    return policy !== undefined && valid.includes(policy) ? policy : fallback;
  };
  const mention = groupName('can_mention_many_users_group');
  return {
    realm_create_public_stream_policy: common(
      groupName('can_create_public_channel_group'),
      COMMON_POLICY_TYPES,
      Policy.MEMBERS,
    ),
    realm_create_private_stream_policy: common(
      groupName('can_create_private_channel_group'),
      COMMON_POLICY_TYPES,
      Policy.MEMBERS,
    ),
    realm_create_web_public_stream_policy: common(
      groupName('can_create_web_public_channel_group'),
      CREATE_WEB_PUBLIC_STREAM_POLICY_TYPES,
      Policy.MODERATORS,
    ),
    realm_wildcard_mention_policy: (mention === undefined ? undefined : WILDCARD_MENTION_POLICY[mention]) ?? 1,
  };
}
