import { Limits } from '../common/limits';
import type { SystemGroupName } from '../realm/system-groups';
import { nulPosition } from '../realm/text-checks';
import type { UserGroup } from '../realm/user-group.entity';
import { ParamErrors } from '../common/errors/param.errors';
import { UserGroupErrors } from './user.errors';

/** The six permission settings of a named user group (NamedUserGroup.GROUP_PERMISSION_SETTINGS). */
export const USER_GROUP_SETTING_NAMES = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type UserGroupSettingName = (typeof USER_GROUP_SETTING_NAMES)[number];

export interface UserGroupSettingRule {
  /** `group_creator`: a new anonymous group holding only the creator. */
  default: SystemGroupName | 'group_creator';
  allowEveryone: boolean;
  allowNobody: boolean;
  allowOwners?: boolean;
}

/**
 * Defaults and allowed values. role:internet is never allowed; role:everyone only where Zulip
 * allows it. can_mention_group also refuses role:owners (DECISIONS #8).
 */
export const USER_GROUP_SETTINGS: Record<UserGroupSettingName, UserGroupSettingRule> = {
  can_add_members_group: { default: 'group_creator', allowEveryone: false, allowNobody: true },
  can_join_group: { default: 'role:nobody', allowEveryone: false, allowNobody: true },
  can_leave_group: { default: 'role:everyone', allowEveryone: true, allowNobody: true },
  can_manage_group: { default: 'group_creator', allowEveryone: false, allowNobody: true },
  can_mention_group: { default: 'role:everyone', allowEveryone: true, allowNobody: true, allowOwners: false },
  can_remove_members_group: { default: 'role:nobody', allowEveryone: false, allowNobody: true },
};

/** Entity property of each setting. */
export const USER_GROUP_SETTING_PROPERTY: Record<UserGroupSettingName, keyof UserGroup> = {
  can_add_members_group: 'canAddMembersGroup',
  can_join_group: 'canJoinGroup',
  can_leave_group: 'canLeaveGroup',
  can_manage_group: 'canManageGroup',
  can_mention_group: 'canMentionGroup',
  can_remove_members_group: 'canRemoveMembersGroup',
};

/** Prefixes reserved for mentions and system groups (NamedUserGroup.INVALID_NAME_PREFIXES). */
export const INVALID_GROUP_NAME_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'];

/** Zulip's check_user_group_name: returns the name unchanged or throws with Zulip's text. */
export function checkUserGroupName(name: string): string {
  if (name.trim() === '') throw UserGroupErrors.nameEmpty();
  if ([...name].length > Limits.MAX_USER_GROUP_NAME_LENGTH) {
    throw UserGroupErrors.nameTooLong(Limits.MAX_USER_GROUP_NAME_LENGTH);
  }
  for (const prefix of INVALID_GROUP_NAME_PREFIXES) {
    if (name.startsWith(prefix)) throw UserGroupErrors.reservedPrefix(prefix);
  }
  const nul = nulPosition(name);
  if (nul !== undefined) throw ParamErrors.invalidCharacter('user group name', nul);
  return name;
}
