import { Role, SystemGroupName } from '../realm/system-groups';

/** What a permission check needs to know about the acting user. */
export interface Actor {
  id: number;
  role: number;
  isActive: boolean;
  /** Provisional members (waiting period not passed) are not in role:fullmembers. */
  isProvisional?: boolean;
}

/**
 * Zulip's fast path for system groups (check_user_has_permission_by_role): membership follows
 * from the role alone, so no query is needed. Returns undefined for groups that are not system
 * groups (the caller then asks the database).
 */
export function hasSystemGroupPermission(actor: Actor, group: SystemGroupName): boolean {
  if (!actor.isActive) return false;
  switch (group) {
    case 'role:nobody':
      return false;
    case 'role:internet':
    case 'role:everyone':
      return true;
    case 'role:members':
      return actor.role !== Role.GUEST;
    case 'role:fullmembers':
      return actor.role !== Role.GUEST && !actor.isProvisional;
    case 'role:moderators':
      return actor.role <= Role.MODERATOR;
    case 'role:administrators':
      return actor.role <= Role.ADMINISTRATOR;
    case 'role:owners':
      return actor.role === Role.OWNER;
  }
}

/**
 * Guests never hold a permission whose setting may not be role:everyone, whatever the group
 * (user_has_permission_for_group_setting). Returns false when that rule refuses.
 */
export function guestMayHold(actor: Actor, settingAllowsEveryone: boolean): boolean {
  return actor.role !== Role.GUEST || settingAllowsEveryone;
}

export function isAdmin(role: number): boolean {
  return role <= Role.ADMINISTRATOR;
}

export function isModeratorOrAbove(role: number): boolean {
  return role <= Role.MODERATOR;
}
