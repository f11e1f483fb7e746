import { GroupUsage } from './group-usage';
import { ParamErrors } from '../common/errors/param.errors';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { runInTransaction } from '../database/transaction';
import { onUniqueViolation } from '../common/errors/unique-violation';
import {
  type ClientEvent,
  userGroupMembersEvent,
  userGroupSubgroupsEvent,
  userGroupUpdateEvent,
} from '../events/client-events';
import { EventsService } from '../events/events.service';
import { Realm } from '../realm/realm.entity';
import { REALM_GROUP_SETTING_NAMES, REALM_GROUP_SETTINGS } from '../realm/system-groups';
import { replaceNul } from '../realm/text-checks';
import { UserGroup } from '../realm/user-group.entity';
import { UserProfile } from './user.entity';
import { GroupMembershipRepository } from './group-membership.repository';
import { GroupSettingChange, GroupSettingsService } from './group-settings.service';
import { mayUpdateGroup } from './group-settings.policy';
import {
  checkUserGroupName,
  USER_GROUP_SETTING_NAMES,
  USER_GROUP_SETTING_PROPERTY,
  USER_GROUP_SETTINGS,
  UserGroupSettingName,
} from './user-groups.policy';
import { UserGroupsQueryService } from './user-groups-query.service';
import { UserErrors, UserGroupErrors } from './user.errors';

export interface NewGroup {
  name: string;
  description: string;
  creatorId: number;
  members: number[];
}

export interface CreateGroupInput {
  name: string;
  description: string;
  members: number[];
  subgroups?: number[];
  settings: Partial<Record<UserGroupSettingName, unknown>>;
}

export interface UpdateGroupInput {
  name?: string;
  description?: string;
  deactivated?: boolean;
  settings: Partial<Record<UserGroupSettingName, GroupSettingChange>>;
}

type GroupSettingColumns = Pick<
  UserGroup,
  | 'canAddMembersGroup'
  | 'canJoinGroup'
  | 'canLeaveGroup'
  | 'canManageGroup'
  | 'canMentionGroup'
  | 'canRemoveMembersGroup'
>;

/** Zulip's CannotDeactivateGroupInUseError (code added at feature level 298). */

type Objection =
  | { type: 'subgroup'; supergroup_ids: number[] }
  | { type: 'channel'; channel_id: number; settings: string[] }
  | { type: 'user_group'; group_id: number; settings: string[] }
  | { type: 'realm'; settings: string[] };

/**
 * Writes to user groups (Zulip's zerver/actions/user_groups.py with the access checks of
 * zerver/lib/user_groups.py). Every write runs in one transaction and sends its user_group
 * events to the realm's active users after commit.
 */
@Injectable()
export class UserGroupsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly membership: GroupMembershipRepository,
    private readonly groupSettings: GroupSettingsService,
    private readonly query: UserGroupsQueryService,
    private readonly events: EventsService,
    private readonly groupUsage: GroupUsage,
  ) {}

  /**
   * Creates a named group with Zulip's default settings: can_add_members_group and
   * can_manage_group are the creator (an anonymous group), can_join_group and
   * can_remove_members_group role:nobody, can_leave_group and can_mention_group role:everyone.
   */
  async createSeedGroup(realmId: number, group: NewGroup): Promise<number> {
    return runInTransaction(this.dataSource, async () => {
      const settings = await this.defaultSettings(realmId, group.creatorId, {});
      return this.membership.insertNamedGroup(realmId, {
        name: group.name,
        description: group.description,
        creatorId: group.creatorId,
        members: group.members,
        subgroups: [],
        settings,
      });
    });
  }

  private async defaultSettings(
    realmId: number,
    creatorId: number,
    given: Partial<Record<UserGroupSettingName, number>>,
  ): Promise<GroupSettingColumns> {
    const system = await this.groupSettings.systemGroupIds(realmId);
    const out: Record<string, number> = {};
    for (const name of USER_GROUP_SETTING_NAMES) {
      const property = USER_GROUP_SETTING_PROPERTY[name];
      const value = given[name];
      if (value !== undefined) {
        out[property] = value;
        continue;
      }
      const def = USER_GROUP_SETTINGS[name].default;
      out[property] =
        def === 'group_creator'
          ? await this.membership.insertAnonymousGroup(realmId, [creatorId], [])
          : system.get(def)!;
    }
    return out as unknown as GroupSettingColumns;
  }

  /** POST /user_groups/create (add_user_group): returns the new group's id. */
  async createGroup(auth: AuthContext, input: CreateGroupInput): Promise<number> {
    const realmId = auth.realm.id;
    return onUniqueViolation(
      () =>
        runInTransaction(this.dataSource, async () => {
          await this.activeUsersOrThrow(realmId, input.members);
          const name = checkUserGroupName(input.name);
          const given: Partial<Record<UserGroupSettingName, number>> = {};
          for (const setting of USER_GROUP_SETTING_NAMES) {
            const raw = input.settings[setting];
            if (raw === undefined) continue;
            given[setting] = await this.groupSettings.parseForSetting(
              realmId,
              setting,
              raw,
              USER_GROUP_SETTINGS[setting],
            );
          }
          if (await this.membership.findNamedGroupByName(realmId, name)) {
            throw UserGroupErrors.alreadyExists(name);
          }
          const settings = await this.defaultSettings(realmId, auth.user.id, given);
          const members = [...new Set(input.members)];
          const id = await this.membership.insertNamedGroup(realmId, {
            name,
            description: replaceNul(input.description),
            creatorId: auth.user.id,
            members,
            subgroups: [],
            settings,
          });
          const group = (await this.membership.findGroupInRealm(realmId, id))!;
          await this.sendToRealm(realmId, {
            type: 'user_group',
            op: 'add',
            group: (await this.query.groupDicts(realmId, [group]))[0],
          });
          const subgroups = input.subgroups ?? [];
          if (subgroups.length > 0) {
            // The creator may add any subgroups while creating the group.
            const direct = await this.accessSubgroups(realmId, subgroups);
            await this.membership.addSubgroups(id, direct);
            await this.sendToRealm(realmId, userGroupSubgroupsEvent('add_subgroups', id, direct));
          }
          return id;
        }),
      'user_group_realm_name_key',
      () => UserGroupErrors.alreadyExists(checkUserGroupName(input.name)),
    );
  }

  /** Zulip's user_ids_to_users(allow_deactivated=False): the first unknown id is reported. */
  private async activeUsersOrThrow(realmId: number, userIds: number[]): Promise<number[]> {
    const active = new Set(await this.membership.activeUserIdsInRealm(realmId, userIds));
    for (const id of userIds) if (!active.has(id)) throw UserErrors.invalidId(id);
    return [...new Set(userIds)];
  }

  /**
   * The potential subgroups (lock_subgroups_with_respect_to_supergroup): every id must be a
   * named group of the realm that is not deactivated. Returns them in the given order.
   */
  private async accessSubgroups(realmId: number, ids: number[]): Promise<number[]> {
    const found = new Map((await this.membership.findGroupsInRealm(realmId, ids)).map((g) => [g.id, g]));
    for (const id of ids) {
      const g = found.get(id);
      if (!g || g.name === null) throw UserGroupErrors.invalidId(id);
    }
    for (const id of ids) if (found.get(id)!.deactivated) throw UserGroupErrors.deactivated();
    return [...new Set(ids)];
  }

  private async canManageAllGroups(realm: Realm, user: UserProfile): Promise<boolean> {
    return this.groupSettings.hasPermission(
      realm.id,
      user,
      realm.can_manage_all_groups,
      REALM_GROUP_SETTINGS.can_manage_all_groups.allowEveryone,
    );
  }

  /**
   * Zulip's access_user_group_for_update: locks the group; "Invalid user group" for unknown or
   * anonymous ids, no system group is ever editable, and the caller needs can_manage_all_groups,
   * the group's can_manage_group, or the given setting.
   */
  private async accessGroupForUpdate(
    auth: AuthContext,
    groupId: number,
    permission: UserGroupSettingName,
    opts: { allowDeactivated: boolean },
  ): Promise<UserGroup> {
    const realmId = auth.realm.id;
    const group = await this.membership.lockNamedGroup(realmId, groupId);
    if (!group) throw UserGroupErrors.invalidGroup();
    if (!opts.allowDeactivated && group.deactivated) throw UserGroupErrors.deactivated();
    if (group.isSystemGroup) throw Errors.insufficientPermission();
    const has = (setting: UserGroupSettingName) =>
      this.groupSettings.hasPermission(
        realmId,
        auth.user,
        group[USER_GROUP_SETTING_PROPERTY[setting]] as number,
        USER_GROUP_SETTINGS[setting].allowEveryone,
      );
    const canManageAllGroups = await this.canManageAllGroups(auth.realm, auth.user);
    const canManageGroup = canManageAllGroups || (await has('can_manage_group'));
    const canSpecific = canManageGroup || permission === 'can_manage_group' ? false : await has(permission);
    if (!mayUpdateGroup({ isSystemGroup: group.isSystemGroup, canManageAllGroups, canManageGroup, canSpecific })) {
      throw Errors.insufficientPermission();
    }
    return group;
  }

  /** access_user_groups_for_invite: each group must let the inviter add members. */
  async accessGroupsForInvite(auth: AuthContext, groupIds: number[]): Promise<number[]> {
    const out: number[] = [];
    for (const id of groupIds) {
      const group = await this.accessGroupForUpdate(auth, id, 'can_add_members_group', { allowDeactivated: false });
      if (!out.includes(group.id)) out.push(group.id);
    }
    return out;
  }

  /**
   * A new user joins the named groups their invitation named (do_create_user's `user_groups`):
   * groups deactivated or gone since are skipped. Inside the caller's transaction.
   */
  async addNewUserToGroups(realmId: number, userId: number, groupIds: number[]): Promise<void> {
    for (const id of groupIds) {
      const group = await this.membership.findGroupInRealm(realmId, id);
      if (!group || group.name === null || group.deactivated || group.isSystemGroup) continue;
      const existing = new Set(await this.membership.directActiveMemberIds(group.id));
      if (existing.has(userId)) continue;
      await this.membership.addMembers(group.id, [userId]);
      await this.sendToRealm(realmId, userGroupMembersEvent('add_members', group.id, [userId]));
    }
  }

  /** Zulip's access_user_group_to_read_membership. */
  async accessGroupToRead(realmId: number, groupId: number): Promise<UserGroup> {
    const group = await this.membership.findGroupInRealm(realmId, groupId);
    if (!group || group.name === null) throw UserGroupErrors.invalidGroup();
    if (group.deactivated) throw UserGroupErrors.deactivated();
    return group;
  }

  /** POST /user_groups/{id}/members: add/delete users, add_subgroups/delete_subgroups, in that order. */
  async updateMembers(
    auth: AuthContext,
    groupId: number,
    changes: { add?: number[]; delete?: number[]; addSubgroups?: number[]; deleteSubgroups?: number[] },
  ): Promise<void> {
    const { add = [], delete: remove = [], addSubgroups = [], deleteSubgroups = [] } = changes;
    if (add.length === 0 && remove.length === 0 && addSubgroups.length === 0 && deleteSubgroups.length === 0) {
      throw UserGroupErrors.nothingToDoWithSubgroups();
    }
    await runInTransaction(this.dataSource, async () => {
      if (add.length > 0) await this.addMembers(auth, groupId, add);
      if (remove.length > 0) await this.removeMembers(auth, groupId, remove);
      if (addSubgroups.length > 0) await this.addSubgroups(auth, groupId, addSubgroups);
      if (deleteSubgroups.length > 0) await this.removeSubgroups(auth, groupId, deleteSubgroups);
    });
  }

  /** POST /user_groups/{id}/subgroups. */
  async updateSubgroups(
    auth: AuthContext,
    groupId: number,
    changes: { add?: number[]; delete?: number[] },
  ): Promise<void> {
    const { add = [], delete: remove = [] } = changes;
    if (add.length === 0 && remove.length === 0) {
      throw ParamErrors.nothingToDo();
    }
    await runInTransaction(this.dataSource, async () => {
      if (add.length > 0) await this.addSubgroups(auth, groupId, add);
      if (remove.length > 0) await this.removeSubgroups(auth, groupId, remove);
    });
  }

  private async accessForMembership(
    auth: AuthContext,
    groupId: number,
    userIds: number[],
    self: UserGroupSettingName,
    other: UserGroupSettingName,
  ): Promise<UserGroup> {
    if (userIds.length === 1 && userIds[0] === auth.user.id) {
      try {
        return await this.accessGroupForUpdate(auth, groupId, self, { allowDeactivated: true });
      } catch (err) {
        if (!(err instanceof ZulipError)) throw err;
        // Joining or leaving is also allowed to whoever may add or remove anyone.
      }
    }
    return this.accessGroupForUpdate(auth, groupId, other, { allowDeactivated: true });
  }

  private async addMembers(auth: AuthContext, groupId: number, userIds: number[]): Promise<void> {
    const realmId = auth.realm.id;
    const group = await this.accessForMembership(auth, groupId, userIds, 'can_join_group', 'can_add_members_group');
    const users = await this.activeUsersOrThrow(realmId, userIds);
    const existing = new Set(await this.membership.directActiveMemberIds(group.id));
    for (const id of users) if (existing.has(id)) throw UserGroupErrors.alreadyMember(id);
    await this.membership.addMembers(group.id, users);
    await this.sendToRealm(realmId, userGroupMembersEvent('add_members', group.id, users));
  }

  private async removeMembers(auth: AuthContext, groupId: number, userIds: number[]): Promise<void> {
    const realmId = auth.realm.id;
    const users = await this.activeUsersOrThrow(realmId, userIds);
    const group = await this.accessForMembership(auth, groupId, userIds, 'can_leave_group', 'can_remove_members_group');
    const existing = new Set(await this.membership.directActiveMemberIds(group.id));
    for (const id of userIds) {
      if (!existing.has(id)) throw UserGroupErrors.notAMember(id);
    }
    await this.membership.removeMembers(group.id, users);
    await this.sendToRealm(realmId, userGroupMembersEvent('remove_members', group.id, users));
  }

  private async addSubgroups(auth: AuthContext, groupId: number, subgroupIds: number[]): Promise<void> {
    const realmId = auth.realm.id;
    const recursive = await this.membership.namedGroupsWithRecursiveSubgroups(realmId, subgroupIds);
    const group = await this.accessGroupForUpdate(auth, groupId, 'can_add_members_group', { allowDeactivated: true });
    const direct = await this.accessSubgroups(realmId, subgroupIds);
    const existing = new Set(await this.membership.directSubgroupIds(group.id));
    for (const id of direct) {
      if (existing.has(id)) throw UserGroupErrors.alreadySubgroup(id);
    }
    if (recursive.some((g) => g.id === group.id)) {
      throw UserGroupErrors.alreadySubgroupOfSubgroup(group.id);
    }
    await this.membership.addSubgroups(group.id, direct);
    await this.sendToRealm(realmId, userGroupSubgroupsEvent('add_subgroups', group.id, direct));
  }

  private async removeSubgroups(auth: AuthContext, groupId: number, subgroupIds: number[]): Promise<void> {
    const realmId = auth.realm.id;
    const group = await this.accessGroupForUpdate(auth, groupId, 'can_manage_group', { allowDeactivated: true });
    const direct = await this.accessSubgroups(realmId, subgroupIds);
    const existing = new Set(await this.membership.directSubgroupIds(group.id));
    for (const id of direct) {
      if (!existing.has(id)) throw UserGroupErrors.notASubgroup(id);
    }
    await this.membership.removeSubgroups(group.id, direct);
    await this.sendToRealm(realmId, userGroupSubgroupsEvent('remove_subgroups', group.id, direct));
  }

  /** PATCH /user_groups/{id} (edit_user_group). */
  async updateGroup(auth: AuthContext, groupId: number, input: UpdateGroupInput): Promise<void> {
    const realmId = auth.realm.id;
    const nothing =
      input.name === undefined &&
      input.description === undefined &&
      input.deactivated === undefined &&
      USER_GROUP_SETTING_NAMES.every((s) => input.settings[s] === undefined);
    if (nothing) throw UserGroupErrors.noNewData();
    await runInTransaction(this.dataSource, async () => {
      const group = await this.accessGroupForUpdate(auth, groupId, 'can_manage_group', { allowDeactivated: true });
      if (input.name !== undefined && input.name !== group.name) {
        const name = checkUserGroupName(input.name);
        const clash = await this.membership.findNamedGroupByName(realmId, name);
        if (clash && clash.id !== group.id) throw UserGroupErrors.alreadyExists(name);
        await this.membership.updateGroup(group.id, { name });
        group.name = name;
        await this.sendToRealm(realmId, userGroupUpdateEvent(group.id, { name }));
      }
      const description = input.description === undefined ? undefined : replaceNul(input.description);
      if (description !== undefined && description !== group.description) {
        await this.membership.updateGroup(group.id, { description });
        await this.sendToRealm(realmId, userGroupUpdateEvent(group.id, { description }));
      }
      if (input.deactivated === false && group.deactivated) {
        await this.membership.updateGroup(group.id, { deactivated: false });
        group.deactivated = false;
        const fresh = (await this.membership.findGroupInRealm(realmId, group.id))!;
        const dict = (await this.query.groupDicts(realmId, [fresh]))[0];
        const update = userGroupUpdateEvent(group.id, { deactivated: false });
        // Clients that keep deactivated groups update their copy; the others learn the group anew.
        this.events.sendOnCommit(realmId, update, await this.membership.allActiveUserIdsInRealm(realmId), (queue) =>
          queue.options.clientCapabilities.include_deactivated_groups === true
            ? update
            : { type: 'user_group', op: 'add', group: dict },
        );
      }
      for (const setting of USER_GROUP_SETTING_NAMES) {
        const change = input.settings[setting];
        if (change === undefined) continue;
        const property = USER_GROUP_SETTING_PROPERTY[setting];
        const currentId = group[property] as number;
        const diff = await this.groupSettings.changeFor(realmId, change, currentId);
        if (!diff) continue;
        const newId = await this.groupSettings.parseForSetting(
          realmId,
          setting,
          diff.next,
          USER_GROUP_SETTINGS[setting],
          {
            currentGroupId: currentId,
          },
        );
        await this.membership.updateGroup(group.id, { [property]: newId });
        (group as unknown as Record<string, number>)[property] = newId;
        await this.groupSettings.dropIfAnonymous(realmId, currentId, newId);
        await this.sendToRealm(
          realmId,
          userGroupUpdateEvent(group.id, { [setting]: await this.groupSettings.valueForApi(realmId, newId) }),
        );
      }
    });
  }

  /** POST /user_groups/{id}/deactivate. */
  async deactivateGroup(auth: AuthContext, groupId: number): Promise<void> {
    const realmId = auth.realm.id;
    await runInTransaction(this.dataSource, async () => {
      const group = await this.accessGroupForUpdate(auth, groupId, 'can_manage_group', { allowDeactivated: false });
      const objections = await this.objectionsToDeactivation(auth.realm, group.id);
      if (objections.length > 0) {
        throw UserGroupErrors.inUse(objections);
      }
      await this.membership.updateGroup(group.id, { deactivated: true });
      const recipients = await this.membership.allActiveUserIdsInRealm(realmId);
      // Clients that can show deactivated groups learn the new state; the others forget the group.
      const update = userGroupUpdateEvent(group.id, { deactivated: true });
      this.events.sendOnCommit(realmId, update, recipients, (queue) =>
        queue.options.clientCapabilities.include_deactivated_groups === true
          ? update
          : { type: 'user_group', op: 'remove', group_id: group.id },
      );
    });
  }

  /** Where the group is still used (Zulip's access_user_group_for_deactivation). */
  private async objectionsToDeactivation(realm: Realm, groupId: number): Promise<Objection[]> {
    const objections: Objection[] = [];
    const supergroups = await this.membership.directSupergroups(groupId);
    if (supergroups.activeNamed.length > 0) {
      objections.push({ type: 'subgroup', supergroup_ids: supergroups.activeNamed });
    }
    const using = [groupId, ...supergroups.anonymous];
    for (const channel of await this.groupUsage.activeChannelsUsing(realm.id, using)) {
      objections.push({ type: 'channel', channel_id: channel.channelId, settings: channel.settings });
    }
    for (const g of await this.membership.activeNamedGroupsUsingSettingValues(realm.id, using)) {
      const settings = USER_GROUP_SETTING_NAMES.filter((s) =>
        using.includes(g[USER_GROUP_SETTING_PROPERTY[s]] as number),
      );
      if (settings.length > 0) objections.push({ type: 'user_group', group_id: g.id, settings });
    }
    const realmSettings = REALM_GROUP_SETTING_NAMES.filter((s) => using.includes(realm[s]));
    if (realmSettings.length > 0) objections.push({ type: 'realm', settings: realmSettings });
    return objections;
  }

  /** GET /user_groups/{id}/members. */
  async memberIds(realmId: number, groupId: number, directOnly: boolean): Promise<number[]> {
    const group = await this.accessGroupToRead(realmId, groupId);
    return directOnly
      ? this.membership.directActiveMemberIds(group.id)
      : this.groupSettings.recursiveMemberIds(group.id);
  }

  /** GET /user_groups/{id}/subgroups. */
  async subgroupIds(realmId: number, groupId: number, directOnly: boolean): Promise<number[]> {
    const group = await this.accessGroupToRead(realmId, groupId);
    return directOnly
      ? this.membership.directSubgroupIds(group.id)
      : this.membership.recursiveStrictSubgroupIds(group.id);
  }

  /** GET /user_groups/{id}/members/{user_id}, after the target user was accessed. */
  async isMember(realmId: number, groupId: number, userId: number, directOnly: boolean): Promise<boolean> {
    const group = await this.accessGroupToRead(realmId, groupId);
    const ids = directOnly
      ? await this.membership.directActiveMemberIds(group.id)
      : await this.groupSettings.recursiveMemberIds(group.id);
    return ids.includes(userId);
  }

  private async sendToRealm(realmId: number, event: ClientEvent): Promise<void> {
    const recipients = await this.membership.allActiveUserIdsInRealm(realmId);
    this.events.sendOnCommit(realmId, event, recipients);
  }
}
