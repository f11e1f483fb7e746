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

/**
 * One group of a loaded group graph. System groups carry their name and are decided by role
 * (their members are not loaded); other groups list their active direct members and subgroups.
 */
export interface GroupNode {
  id: number;
  systemName: SystemGroupName | null;
  /** Active users who are direct members (deactivated users never count). */
  directMemberIds: readonly number[];
  directSubgroupIds: readonly number[];
}

export type GroupGraph = ReadonlyMap<number, GroupNode>;

/**
 * Is `actor` in group `groupId`, directly or through nested subgroups (Zulip's
 * is_user_in_group, which resolves subgroups recursively)? System groups met on the way are
 * answered from the role; cycles cannot loop. Groups missing from the graph hold nobody.
 */
export function isInGroup(actor: Actor, groupId: number, graph: GroupGraph): boolean {
  if (!actor.isActive) return false;
  const seen = new Set<number>();
  const stack = [groupId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = graph.get(id);
    if (!node) continue;
    if (node.systemName) {
      if (hasSystemGroupPermission(actor, node.systemName)) return true;
      continue;
    }
    if (node.directMemberIds.includes(actor.id)) return true;
    stack.push(...node.directSubgroupIds);
  }
  return false;
}

/**
 * Zulip's user_has_permission_for_group_setting: guests never hold a setting that may not be
 * role:everyone; otherwise membership of the setting's group (named or anonymous) decides.
 */
export function hasPermissionForGroupSetting(
  actor: Actor,
  groupId: number,
  graph: GroupGraph,
  settingAllowsEveryone: boolean,
): boolean {
  if (!actor.isActive) return false;
  if (!guestMayHold(actor, settingAllowsEveryone)) return false;
  return isInGroup(actor, groupId, graph);
}

/** Which setting of a named group gates an update (access_user_group_for_update). */
export interface GroupUpdateAccess {
  isSystemGroup: boolean;
  /** The realm's can_manage_all_groups. */
  canManageAllGroups: boolean;
  /** The group's can_manage_group. */
  canManageGroup: boolean;
  /** The specific setting asked for (can_add_members_group, can_join_group, …), if any. */
  canSpecific?: boolean;
}

/** Zulip's access_user_group_for_update decision: system groups are never editable. */
export function mayUpdateGroup(access: GroupUpdateAccess): boolean {
  if (access.isSystemGroup) return false;
  return access.canManageAllGroups || access.canManageGroup || access.canSpecific === true;
}
