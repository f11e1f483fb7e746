import { Injectable } from '@nestjs/common';
import { SystemGroupName } from '../realm/system-groups';
import { GroupMembershipRepository, PrincipalRow } from './group-membership.repository';
import { isDbId } from '../database/ids';
import { Actor, guestMayHold, hasSystemGroupPermission } from './group-settings.policy';
import { anyHolds, holds, Principal } from './principal';
import { rememberedPrincipal, rememberPrincipal } from './principal-memo';

/**
 * Loads principals (users.principal.ts): role, activity, bot status and recursive group ids, for any
 * number of users in one query, remembered for the rest of the request. Exported to every module:
 * permission checks take principals and ask `holds(...)`, they never load memberships themselves.
 */
@Injectable()
export class PrincipalService {
  constructor(private readonly groups: GroupMembershipRepository) {}

  /** The principal of one user (a user who does not exist holds nothing). */
  async of(user: { id: number }): Promise<Principal> {
    return (await this.ofMany([user.id])).get(user.id)!;
  }

  /** Principals of several users, in one query for all those not loaded yet in this request. */
  async ofMany(userIds: readonly number[]): Promise<Map<number, Principal>> {
    const out = new Map<number, Principal>();
    const missing: number[] = [];
    for (const id of new Set(userIds)) {
      const known = rememberedPrincipal(id);
      if (known) out.set(id, known);
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    const rows = await this.groups.principalRows(missing);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of missing) {
      const row = byId.get(id);
      const principal = row ? this.build(row, await this.systemGroupsById(row.realmId)) : nobody(id);
      rememberPrincipal(principal);
      out.set(id, principal);
    }
    return out;
  }

  /**
   * Does `user` hold the group setting whose value is `groupId`? `holds(principal, …)` answered
   * lazily: a system group (most settings' value) is decided from the role the caller already
   * has, with no query; only another group loads the user's principal (once per request).
   */
  async userHolds(user: Actor, realmId: number, groupId: number, settingAllowsEveryone = true): Promise<boolean> {
    const quick = await this.decidedByRole(user, realmId, groupId, settingAllowsEveryone);
    if (quick !== undefined) return quick;
    return holds(await this.of(user), groupId, settingAllowsEveryone);
  }

  /**
   * Does any of `users` hold the setting (a direct message is allowed when one participant does)?
   * One query for all of them at most, whatever their number and the depth of nested groups.
   */
  async anyUserHolds(users: Actor[], realmId: number, groupId: number, settingAllowsEveryone = true): Promise<boolean> {
    const undecided: Actor[] = [];
    for (const user of users) {
      const quick = await this.decidedByRole(user, realmId, groupId, settingAllowsEveryone);
      if (quick === true) return true;
      if (quick === undefined) undecided.push(user);
    }
    if (undecided.length === 0) return false;
    const principals = await this.ofMany(undecided.map((u) => u.id));
    return anyHolds(principals.values(), groupId, settingAllowsEveryone);
  }

  /** What `holds` answers without the user's groups: inactive users, guests, system groups, bad ids. */
  private async decidedByRole(
    user: Actor,
    realmId: number,
    groupId: number,
    settingAllowsEveryone: boolean,
  ): Promise<boolean | undefined> {
    if (!user.isActive) return false;
    if (!guestMayHold(user, settingAllowsEveryone)) return false;
    if (!isDbId(groupId)) return false;
    const system = (await this.systemGroupsById(realmId)).get(groupId);
    return system === undefined ? undefined : hasSystemGroupPermission(user, system);
  }

  /** Every group the user belongs to, directly or through nested subgroups (role groups included). */
  async groupIdsOf(userId: number): Promise<ReadonlySet<number>> {
    return (await this.of({ id: userId })).groupIds;
  }

  /** Every group each user belongs to, directly or through nested subgroups (users export). */
  async recursiveGroupIds(userIds: readonly number[]): Promise<Map<number, ReadonlySet<number>>> {
    const principals = await this.ofMany(userIds);
    return new Map([...principals].map(([id, p]) => [id, p.groupIds]));
  }

  private readonly systemCache = new Map<number, Map<SystemGroupName, number>>();

  /** System group ids never change once a realm exists, so they are cached per realm. */
  async systemGroupIds(realmId: number): Promise<Map<SystemGroupName, number>> {
    let ids = this.systemCache.get(realmId);
    if (!ids) {
      const rows = await this.groups.systemGroups(realmId);
      ids = new Map(rows.map((g) => [g.name as SystemGroupName, g.id]));
      if (ids.size > 0) this.systemCache.set(realmId, ids);
    }
    return ids;
  }

  private readonly byIdCache = new Map<number, Map<number, SystemGroupName>>();

  private async systemGroupsById(realmId: number): Promise<Map<number, SystemGroupName>> {
    let byId = this.byIdCache.get(realmId);
    if (!byId) {
      byId = new Map([...(await this.systemGroupIds(realmId))].map(([name, id]) => [id, name]));
      if (byId.size > 0) this.byIdCache.set(realmId, byId);
    }
    return byId;
  }

  private build(row: PrincipalRow, systemGroups: Map<number, SystemGroupName>): Principal {
    return {
      id: row.id,
      realmId: row.realmId,
      role: row.role,
      isActive: row.isActive,
      isBot: row.isBot,
      botOwnerId: row.botOwnerId,
      groupIds: new Set(row.groupIds),
      systemGroups,
    };
  }
}

function nobody(id: number): Principal {
  return {
    id,
    realmId: 0,
    role: 0,
    isActive: false,
    isBot: false,
    botOwnerId: null,
    groupIds: new Set(),
    systemGroups: new Map(),
  };
}
