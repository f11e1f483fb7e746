import { Injectable } from '@nestjs/common';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { GroupSettingRule, SystemGroupName, SystemGroups } from '../realm/system-groups';
import { UserGroup } from '../realm/user-group.entity';
import { GroupMembershipRepository } from './group-membership.repository';
import { Actor, guestMayHold, hasSystemGroupPermission } from './group-settings.policy';

/** A group-setting value as the API sends and receives it. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/**
 * Stores, validates and resolves group-setting values for every module: a named group id or an
 * anonymous `{direct_members, direct_subgroups}` group, resolved recursively through subgroups.
 */
@Injectable()
export class GroupSettingsService {
  constructor(private readonly groups: GroupMembershipRepository) {}

  /**
   * Validates `value` for `setting` (rules as Zulip's access_user_group_for_setting) and returns
   * the id to store: the named group's id, role:nobody for an empty anonymous group, or a newly
   * created anonymous group. Must run inside the caller's transaction.
   */
  async parseForSetting(
    realmId: number,
    setting: string,
    value: unknown,
    rule: Pick<GroupSettingRule, 'allowEveryone' | 'allowNobody' | 'allowOwners' | 'requireSystemGroup' | 'allowedSystemGroups'> & {
      allowInternet?: boolean;
    },
  ): Promise<number> {
    if (typeof value === 'number' && Number.isInteger(value)) {
      const group = await this.groups.findGroupInRealm(realmId, value);
      if (!group || group.name === null) throw Errors.badRequest('Invalid user group');
      this.checkNamedGroup(setting, group, rule);
      return group.id;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw Errors.badRequest(`${setting} is not a dict`);
    }
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      if (key !== 'direct_members' && key !== 'direct_subgroups') {
        throw Errors.badRequest(`Argument "${key}" at ${setting} is unexpected`);
      }
    }
    const members = this.intList(setting, 'direct_members', obj.direct_members);
    const subgroups = this.intList(setting, 'direct_subgroups', obj.direct_subgroups);
    if (rule.requireSystemGroup) {
      throw new ZulipError(`'${setting}' must be a system user group.`, 'SYSTEM_GROUP_REQUIRED');
    }
    const uniqMembers = [...new Set(members)].sort((a, b) => a - b);
    const uniqSubgroups = [...new Set(subgroups)].sort((a, b) => a - b);
    const found = await this.groups.findGroupsInRealm(realmId, uniqSubgroups);
    for (const id of uniqSubgroups) {
      const g = found.find((x) => x.id === id);
      if (!g || g.name === null) throw Errors.badRequest(`Invalid user group ID: ${id}`);
    }
    const active = new Set(await this.groups.activeUserIdsInRealm(realmId, uniqMembers));
    for (const id of uniqMembers) if (!active.has(id)) throw Errors.badRequest(`Invalid user ID: ${id}`);
    if (uniqMembers.length === 0 && uniqSubgroups.length === 1) {
      const g = found[0];
      this.checkNamedGroup(setting, g, rule);
      return g.id;
    }
    if (uniqMembers.length === 0 && uniqSubgroups.length === 0) {
      const nobody = await this.systemGroupId(realmId, SystemGroups.NOBODY);
      if (!rule.allowNobody) this.forbidden(setting, SystemGroups.NOBODY);
      return nobody;
    }
    return this.groups.insertAnonymousGroup(realmId, uniqMembers, uniqSubgroups);
  }

  private intList(setting: string, key: string, v: unknown): number[] {
    if (v === undefined) throw Errors.badRequest(`${setting}["${key}"] field is missing: Field required`);
    if (!Array.isArray(v)) throw Errors.badRequest(`${setting}["${key}"] is not a list`);
    v.forEach((x, i) => {
      if (typeof x !== 'number' || !Number.isInteger(x)) {
        throw Errors.badRequest(`${setting}["${key}"][${i}] is not an integer`);
      }
    });
    return v as number[];
  }

  private checkNamedGroup(
    setting: string,
    group: UserGroup,
    rule: Pick<GroupSettingRule, 'allowEveryone' | 'allowNobody' | 'allowOwners' | 'requireSystemGroup' | 'allowedSystemGroups'> & {
      allowInternet?: boolean;
    },
  ): void {
    if (group.isSystemGroup) {
      const name = group.name as SystemGroupName;
      if (name === SystemGroups.INTERNET && !rule.allowInternet) this.forbidden(setting, name);
      if (name === SystemGroups.EVERYONE && !rule.allowEveryone) this.forbidden(setting, name);
      if (name === SystemGroups.NOBODY && !rule.allowNobody) this.forbidden(setting, name);
      if (name === SystemGroups.OWNERS && rule.allowOwners === false) this.forbidden(setting, name);
      if (rule.allowedSystemGroups && !rule.allowedSystemGroups.includes(name)) this.forbidden(setting, name);
    } else if (rule.requireSystemGroup) {
      throw new ZulipError(`'${setting}' must be a system user group.`, 'SYSTEM_GROUP_REQUIRED');
    }
  }

  private forbidden(setting: string, groupName: string): never {
    throw Errors.badRequest(`'${setting}' setting cannot be set to '${groupName}' group.`);
  }

  async systemGroupId(realmId: number, name: SystemGroupName): Promise<number> {
    const ids = await this.systemGroupIds(realmId);
    return ids.get(name)!;
  }

  private readonly systemIdsCache = new Map<number, Map<SystemGroupName, number>>();

  /** System group ids never change once a realm exists, so they are cached per realm. */
  async systemGroupIds(realmId: number): Promise<Map<SystemGroupName, number>> {
    let ids = this.systemIdsCache.get(realmId);
    if (!ids) {
      const rows = await this.groups.systemGroups(realmId);
      ids = new Map(rows.map((g) => [g.name as SystemGroupName, g.id]));
      if (ids.size > 0) this.systemIdsCache.set(realmId, ids);
    }
    return ids;
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
   * not be role:everyone; system groups are answered from the role; others by recursive membership.
   */
  async hasPermission(realmId: number, actor: Actor, groupId: number, settingAllowsEveryone: boolean): Promise<boolean> {
    if (!actor.isActive) return false;
    if (!guestMayHold(actor, settingAllowsEveryone)) return false;
    const system = await this.systemGroupIds(realmId);
    for (const [name, id] of system) {
      if (id === groupId) return hasSystemGroupPermission(actor, name);
    }
    return this.groups.isRecursiveMember(groupId, actor.id);
  }

  recursiveMemberIds(groupId: number): Promise<number[]> {
    return this.groups.recursiveMemberIds(groupId);
  }
}
