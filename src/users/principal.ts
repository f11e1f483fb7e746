import { Role } from '../common/roles';
import { SystemGroupName } from '../realm/system-groups';
import { guestMayHold, hasSystemGroupPermission } from './group-settings.policy';

/**
 * The authorization kernel's subject: who is asking, loaded once per request (one query, see
 * `PrincipalService`) and then asked pure questions. Every permission rule of every module takes a
 * principal (or the `{ role }` part of it) instead of loading group memberships itself.
 */
export interface Principal {
  id: number;
  realmId: number;
  role: number;
  isActive: boolean;
  isBot: boolean;
  botOwnerId: number | null;
  /** Provisional members (waiting period not passed) are not in role:fullmembers. */
  isProvisional?: boolean;
  /**
   * Every group the user belongs to, directly or through nested subgroups: their role's system
   * groups (decided by role), those groups' supergroups, and the named and anonymous groups that
   * contain the user or one of those groups (Zulip's get_recursive_membership_groups).
   */
  groupIds: ReadonlySet<number>;
  /** The realm's system groups by id (they are answered from the role, never from membership rows). */
  systemGroups: ReadonlyMap<number, SystemGroupName>;
}

/** Guests: role:everyone but not role:members. */
export function isGuest(user: { role: number }): boolean {
  return user.role === Role.GUEST;
}

/** Zulip's can_access_public_streams: everyone but guests. */
export function canAccessPublicChannels(user: { role: number }): boolean {
  return !isGuest(user);
}

/**
 * Does the principal hold the group setting whose value is `groupId` (a named or anonymous group)?
 * Zulip's user_has_permission_for_group_setting: deactivated users hold nothing; guests never hold
 * a setting that may not be role:everyone (`settingAllowsEveryone` false); system groups follow
 * from the role; any other group from the recursive membership. No SQL.
 */
export function holds(principal: Principal, groupId: number, settingAllowsEveryone = true): boolean {
  if (!principal.isActive) return false;
  if (!guestMayHold(principal, settingAllowsEveryone)) return false;
  const system = principal.systemGroups.get(groupId);
  if (system !== undefined) return hasSystemGroupPermission(principal, system);
  return principal.groupIds.has(groupId);
}

/** Does any of `principals` hold the setting? (A direct message is allowed when one participant does.) */
export function anyHolds(principals: Iterable<Principal>, groupId: number, settingAllowsEveryone = true): boolean {
  for (const p of principals) if (holds(p, groupId, settingAllowsEveryone)) return true;
  return false;
}

/** The system group of the realm named `name`, as a setting value (`role:everyone` …). */
export function systemGroupId(principal: Principal, name: SystemGroupName): number | undefined {
  for (const [id, n] of principal.systemGroups) if (n === name) return id;
  return undefined;
}

/** Is the setting's value exactly the system group `name` (the "everyone may" / "nobody may" shortcuts)? */
export function isSystemGroup(principal: Principal, groupId: number, name: SystemGroupName): boolean {
  return principal.systemGroups.get(groupId) === name;
}

/**
 * can_access_all_users_group (Zulip's check_user_can_access_all_users): may the principal see every
 * user of the realm? Only guests are ever restricted, and only when the setting is not role:everyone;
 * a restricted guest sees the users they share a conversation or channel with.
 */
export function accessesAllUsers(
  user: { role: number },
  canAccessAllUsersGroup: number,
  systemGroupIds: ReadonlyMap<SystemGroupName, number>,
): boolean {
  return !isGuest(user) || canAccessAllUsersGroup === systemGroupIds.get('role:everyone');
}
