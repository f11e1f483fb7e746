import { Injectable } from '@nestjs/common';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { GroupSettingRule, SystemGroupName, SystemGroups } from '../realm/system-groups';
import { UserGroup } from '../realm/user-group.entity';
import { GroupMembershipRepository } from './group-membership.repository';
import { PrincipalService } from './principal.service';
import {
  GroupSettingChange,
  GroupSettingValue,
  groupSettingValuesEqual,
  normalizeGroupSettingValue,
  parseGroupSettingValue,
} from './group-setting-values';
import { Actor } from './group-settings.policy';
import { GroupSettingErrors, UserErrors, UserGroupErrors } from './user.errors';

export type { GroupSettingValue, GroupSettingChange } from './group-setting-values';

/** How a group setting may be set (realm, channel or user-group setting). */
export type SettingRule = Pick<
  GroupSettingRule,
  'allowEveryone' | 'allowNobody' | 'allowOwners' | 'requireSystemGroup' | 'allowedSystemGroups'
> & {
  allowInternet?: boolean;
};

/**
 * Stores, validates and resolves group-setting values for every module: a named group id or an
 * anonymous `{direct_members, direct_subgroups}` group, resolved recursively through subgroups.
 */
@Injectable()
export class GroupSettingsService {
  constructor(
    private readonly groups: GroupMembershipRepository,
    private readonly principals: PrincipalService,
  ) {}

  /**
   * Validates `value` for `setting` (Zulip's parse_group_setting_value followed by
   * access_user_group_for_setting) and returns the id to store: the named group's id,
   * role:nobody for an empty value, or an anonymous group. When the setting currently holds an
   * anonymous group (`currentGroupId`), that group is updated in place, as Zulip does.
   * Must run inside the caller's transaction.
   */
  async parseForSetting(
    realmId: number,
    setting: string,
    value: unknown,
    rule: SettingRule,
    opts: { currentGroupId?: number | null } = {},
  ): Promise<number> {
    const nobody = await this.systemGroupId(realmId, SystemGroups.NOBODY);
    const normalized = normalizeGroupSettingValue(parseGroupSettingValue(setting, value), nobody);
    if (typeof normalized === 'number') {
      const group = await this.groups.findGroupInRealm(realmId, normalized);
      if (!group || group.name === null) throw UserGroupErrors.invalidGroup();
      if (group.deactivated) throw UserGroupErrors.deactivated();
      this.checkNamedGroup(setting, group, rule);
      return group.id;
    }
    if (rule.requireSystemGroup) throw this.systemGroupRequired(setting);
    const members = normalized.direct_members;
    const subgroups = normalized.direct_subgroups;
    const active = new Set(await this.groups.activeUserIdsInRealm(realmId, members));
    for (const id of members) if (!active.has(id)) throw UserErrors.invalidId(id);
    const found = new Map((await this.groups.findGroupsInRealm(realmId, subgroups)).map((g) => [g.id, g]));
    for (const id of subgroups) {
      const g = found.get(id);
      if (!g || g.name === null) throw UserGroupErrors.invalidId(id);
    }
    for (const id of subgroups) {
      if (found.get(id)!.deactivated) throw UserGroupErrors.deactivated();
    }
    const uniqMembers = [...new Set(members)].sort((a, b) => a - b);
    const uniqSubgroups = [...new Set(subgroups)].sort((a, b) => a - b);
    const current = opts.currentGroupId;
    if (current !== undefined && current !== null && (await this.isAnonymous(realmId, current))) {
      await this.groups.setGroupMembership(current, uniqMembers, uniqSubgroups);
      return current;
    }
    return this.groups.insertAnonymousGroup(realmId, uniqMembers, uniqSubgroups);
  }

  /**
   * For PATCH endpoints (`{new, old}`): EXPECTATION_MISMATCH when `old` is given and differs
   * from the current value; returns the normalized new value when it differs from the current
   * one, or undefined when there is nothing to change (Zulip's validate_group_setting_value_change).
   */
  async changeFor(
    realmId: number,
    change: GroupSettingChange,
    currentGroupId: number,
  ): Promise<{ next: GroupSettingValue; current: GroupSettingValue } | undefined> {
    const nobody = await this.systemGroupId(realmId, SystemGroups.NOBODY);
    const next = normalizeGroupSettingValue(change.new, nobody);
    const current = await this.valueForApi(realmId, currentGroupId);
    if (change.old !== undefined) {
      const expected = normalizeGroupSettingValue(change.old, nobody);
      if (!groupSettingValuesEqual(expected, current)) {
        throw Errors.oldValueMismatch();
      }
    }
    if (groupSettingValuesEqual(current, next)) return undefined;
    return { next, current };
  }

  /** After a setting moved away from an anonymous group, that group is no longer used anywhere. */
  async dropIfAnonymous(realmId: number, oldGroupId: number, newGroupId: number): Promise<void> {
    if (oldGroupId === newGroupId) return;
    if (await this.isAnonymous(realmId, oldGroupId)) await this.groups.deleteAnonymousGroup(oldGroupId);
  }

  private async isAnonymous(realmId: number, groupId: number): Promise<boolean> {
    const g = await this.groups.findGroupInRealm(realmId, groupId);
    return g !== null && g.name === null;
  }

  private systemGroupRequired(setting: string): ZulipError {
    return GroupSettingErrors.systemGroupRequired(setting);
  }

  /** Zulip's check_setting_configuration_for_system_groups, in its order. */
  private checkNamedGroup(setting: string, group: UserGroup, rule: SettingRule): void {
    if (rule.requireSystemGroup && !group.isSystemGroup) throw this.systemGroupRequired(setting);
    if (!group.isSystemGroup) return;
    const name = group.name as SystemGroupName;
    if (name === SystemGroups.INTERNET && !rule.allowInternet) this.forbidden(setting, name);
    if (name === SystemGroups.NOBODY && !rule.allowNobody) this.forbidden(setting, name);
    if (name === SystemGroups.EVERYONE && !rule.allowEveryone) this.forbidden(setting, name);
    if (name === SystemGroups.OWNERS && rule.allowOwners === false) this.forbidden(setting, name);
    if (rule.allowedSystemGroups && !rule.allowedSystemGroups.includes(name)) this.forbidden(setting, name);
  }

  private forbidden(setting: string, groupName: string): never {
    throw GroupSettingErrors.groupNotAllowed(setting, groupName);
  }

  async systemGroupId(realmId: number, name: SystemGroupName): Promise<number> {
    const ids = await this.systemGroupIds(realmId);
    return ids.get(name)!;
  }

  /** System group ids never change once a realm exists, so they are cached per realm. */
  systemGroupIds(realmId: number): Promise<Map<SystemGroupName, number>> {
    return this.principals.systemGroupIds(realmId);
  }

  /** API form of stored setting values: the id for named groups, the member/subgroup lists otherwise. */
  async valuesForApi(realmId: number, groupIds: number[]): Promise<Map<number, GroupSettingValue>> {
    const unique = [...new Set(groupIds)];
    const groups = await this.groups.findGroupsInRealm(realmId, unique);
    const anonymous = groups.filter((g) => g.name === null).map((g) => g.id);
    const membership = await this.groups.directMembership(anonymous);
    const out = new Map<number, GroupSettingValue>();
    for (const g of groups) {
      if (g.name !== null) out.set(g.id, g.id);
      else {
        const m = membership.get(g.id)!;
        out.set(g.id, { direct_members: m.members, direct_subgroups: m.subgroups });
      }
    }
    return out;
  }

  async valueForApi(realmId: number, groupId: number): Promise<GroupSettingValue> {
    return (await this.valuesForApi(realmId, [groupId])).get(groupId) ?? groupId;
  }

  /**
   * Does `actor` hold the permission stored as `groupId`? Guests are refused settings that may
   * not be role:everyone; system groups are answered from the role; other groups (named or
   * anonymous) by the actor's principal (its recursive groups, loaded once per request). Code that
   * has a principal asks `holds(principal, groupId)` (users/principal.ts) instead.
   */
  hasPermission(realmId: number, actor: Actor, groupId: number, settingAllowsEveryone: boolean): Promise<boolean> {
    return this.principals.userHolds(actor, realmId, groupId, settingAllowsEveryone);
  }

  /** Active, non-guest members of each group, through nested subgroups. */
  nonGuestMembersOfGroups(groupIds: number[]): Promise<Map<number, Set<number>>> {
    return this.groups.nonGuestMembersOfGroups(groupIds);
  }

  /** Is the group anonymous (a setting value, not a named group)? */
  isAnonymousGroup(groupId: number): Promise<boolean> {
    return this.groups.isAnonymousGroup(groupId);
  }

  /** Deletes an anonymous group of the realm that no setting references any more. */
  deleteAnonymousGroup(realmId: number, groupId: number): Promise<void> {
    return this.groups.deleteAnonymousGroupInRealm(realmId, groupId);
  }

  recursiveMemberIds(groupId: number): Promise<number[]> {
    return this.groups.recursiveMemberIds(groupId);
  }
}
