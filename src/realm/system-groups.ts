/** Zulip's system groups (zerver/models/groups.py SystemGroups) and the role codes. */
export const SystemGroups = {
  NOBODY: 'role:nobody',
  OWNERS: 'role:owners',
  ADMINISTRATORS: 'role:administrators',
  MODERATORS: 'role:moderators',
  FULL_MEMBERS: 'role:fullmembers',
  MEMBERS: 'role:members',
  EVERYONE: 'role:everyone',
  INTERNET: 'role:internet',
} as const;
export type SystemGroupName = (typeof SystemGroups)[keyof typeof SystemGroups];

export const SYSTEM_GROUP_DESCRIPTIONS: Record<SystemGroupName, string> = {
  'role:nobody': 'Nobody',
  'role:owners': 'Owners of this organization',
  'role:administrators': 'Administrators of this organization, including owners',
  'role:moderators': 'Moderators of this organization, including administrators',
  'role:fullmembers': 'Members of this organization, not including new accounts and guests',
  'role:members': 'Members of this organization, not including guests',
  'role:everyone': 'Everyone in this organization, including guests',
  'role:internet': 'Everyone on the internet',
};

/** Subgroup chain: each group is a direct subgroup of the next (owners ⊂ administrators ⊂ …). */
export const SYSTEM_GROUP_CHAIN: SystemGroupName[] = [
  'role:owners',
  'role:administrators',
  'role:moderators',
  'role:fullmembers',
  'role:members',
  'role:everyone',
  'role:internet',
];

import { Role } from '../common/roles';
export { Role, ROLE_CODES, type RoleCode } from '../common/roles';

/** The system group a user of `role` is a direct member of (members also of fullmembers). */
export function roleGroupsFor(role: number, isProvisional = false): SystemGroupName[] {
  switch (role) {
    case Role.OWNER:
      return ['role:owners'];
    case Role.ADMINISTRATOR:
      return ['role:administrators'];
    case Role.MODERATOR:
      return ['role:moderators'];
    case Role.MEMBER:
      return isProvisional ? ['role:members'] : ['role:members', 'role:fullmembers'];
    default:
      return ['role:everyone'];
  }
}

/** How a realm-level group setting may be set (zerver/models/realms.py REALM_PERMISSION_GROUP_SETTINGS). */
export interface GroupSettingRule {
  default: SystemGroupName;
  allowEveryone: boolean;
  allowNobody: boolean;
  allowOwners?: boolean;
  requireSystemGroup?: boolean;
  /** If set, only these system groups are allowed. */
  allowedSystemGroups?: SystemGroupName[];
}

const rule = (d: SystemGroupName, allowEveryone: boolean, extra: Partial<GroupSettingRule> = {}): GroupSettingRule => ({
  default: d,
  allowEveryone,
  allowNobody: true,
  ...extra,
});

export const REALM_GROUP_SETTINGS = {
  can_access_all_users_group: rule('role:everyone', true, {
    requireSystemGroup: true,
    allowedSystemGroups: ['role:everyone', 'role:members'],
    allowNobody: false,
  }),
  can_add_custom_emoji_group: rule('role:members', false),
  can_add_subscribers_group: rule('role:members', false),
  can_create_bots_group: rule('role:members', false),
  can_create_groups: rule('role:members', false),
  can_create_private_channel_group: rule('role:members', false),
  can_create_public_channel_group: rule('role:members', false),
  can_create_web_public_channel_group: rule('role:owners', false, {
    requireSystemGroup: true,
    allowedSystemGroups: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'],
  }),
  can_create_write_only_bots_group: rule('role:members', false),
  can_delete_any_message_group: rule('role:administrators', false),
  can_delete_own_message_group: rule('role:everyone', true),
  can_invite_users_group: rule('role:members', false),
  can_manage_all_groups: rule('role:owners', false, { allowNobody: false }),
  can_manage_billing_group: rule('role:administrators', false, { allowNobody: false }),
  can_mention_many_users_group: rule('role:administrators', true),
  can_move_messages_between_channels_group: rule('role:members', false),
  can_move_messages_between_topics_group: rule('role:everyone', true),
  can_resolve_topics_group: rule('role:everyone', true),
  can_set_delete_message_policy_group: rule('role:moderators', false),
  can_set_topics_policy_group: rule('role:members', true),
  can_summarize_topics_group: rule('role:everyone', true),
  create_multiuse_invite_group: rule('role:administrators', false),
  direct_message_initiator_group: rule('role:everyone', true),
  direct_message_permission_group: rule('role:everyone', true),
} as const satisfies Record<string, GroupSettingRule>;

export type RealmGroupSettingName = keyof typeof REALM_GROUP_SETTINGS;
export const REALM_GROUP_SETTING_NAMES = Object.keys(REALM_GROUP_SETTINGS) as RealmGroupSettingName[];
