import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { UserGroup } from '../realm/user-group.entity';
import { GroupMembershipRepository, MentionGroupRow } from './group-membership.repository';
import { GroupSettingsService } from './group-settings.service';
import { RealmUserRowsCache } from './realm-user-rows-cache';
import type { UserDictSource } from './user-format';

/** Read side of user groups: the API dicts of GET /user_groups and POST /register. */
@Injectable()
export class UserGroupsQueryService {
  private readonly activeIds = new WeakMap<readonly UserDictSource[], Set<number>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly membership: GroupMembershipRepository,
    private readonly groupSettings: GroupSettingsService,
    private readonly realmUserRows: RealmUserRowsCache,
  ) {}

  async listGroupsForApi(realmId: number, opts: { includeDeactivated: boolean }): Promise<Record<string, unknown>[]> {
    const qb = this.dataSource.manager
      .createQueryBuilder(UserGroup, 'g')
      .where('g.realm_id = :realmId AND g.name IS NOT NULL', { realmId })
      .orderBy('g.id');
    if (!opts.includeDeactivated) qb.andWhere('NOT g.deactivated');
    const groups = await qb.getMany();
    return this.groupDicts(realmId, groups, await this.activeUsers(realmId));
  }

  /** Whether a user of the realm is active, from the realm's cached user rows (one Set per copy). */
  private async activeUsers(realmId: number): Promise<(userId: number) => boolean> {
    const rows = await this.realmUserRows.rowsInRealm(realmId);
    let active = this.activeIds.get(rows);
    if (!active) {
      active = new Set(rows.filter((r) => r.isActive).map((r) => r.id));
      this.activeIds.set(rows, active);
    }
    const ids = active;
    return (userId) => ids.has(userId);
  }

  async groupDicts(
    realmId: number,
    groups: UserGroup[],
    isActive?: (userId: number) => boolean,
  ): Promise<Record<string, unknown>[]> {
    const membership = await this.membership.directMembership(
      groups.map((g) => g.id),
      isActive,
    );
    const settingIds = groups.flatMap((g) => [
      g.canAddMembersGroup,
      g.canJoinGroup,
      g.canLeaveGroup,
      g.canManageGroup,
      g.canMentionGroup,
      g.canRemoveMembersGroup,
    ]);
    const values = await this.groupSettings.valuesForApi(
      realmId,
      settingIds.filter((x): x is number => x !== null),
    );
    const v = (id: number | null) => (id === null ? null : (values.get(id) ?? id));
    return groups.map((g) => ({
      id: g.id,
      name: g.name,
      description: g.description,
      members: membership.get(g.id)!.members,
      direct_subgroup_ids: membership.get(g.id)!.subgroups,
      creator_id: g.creatorId,
      date_created: g.dateCreated ? Math.floor(g.dateCreated.getTime() / 1000) : null,
      is_system_group: g.isSystemGroup,
      deactivated: g.deactivated,
      can_add_members_group: v(g.canAddMembersGroup),
      can_join_group: v(g.canJoinGroup),
      can_leave_group: v(g.canLeaveGroup),
      can_manage_group: v(g.canManageGroup),
      can_mention_group: v(g.canMentionGroup),
      can_remove_members_group: v(g.canRemoveMembersGroup),
    }));
  }

  /** A group's name and whether it is a system group (notices that describe a group setting). */
  groupLabel(realmId: number, groupId: number): Promise<{ name: string | null; isSystemGroup: boolean } | null> {
    return this.membership.groupLabel(realmId, groupId);
  }

  /** Named, non-system groups of the realm by name, case-insensitive (mentions in messages). */
  mentionableGroups(realmId: number, names: string[]): Promise<MentionGroupRow[]> {
    return this.membership.mentionableGroups(realmId, names);
  }

  /** Active users in any of `groupIds`, directly or through subgroups. */
  recursiveMemberIdsOfGroups(groupIds: number[]): Promise<number[]> {
    return this.membership.recursiveMemberIdsOfGroups(groupIds);
  }

  /** Active members (recursive) of each group. */
  groupMembersByGroup(groupIds: number[]): Promise<Map<number, number[]>> {
    return this.membership.groupMembersByGroup(groupIds);
  }
}
