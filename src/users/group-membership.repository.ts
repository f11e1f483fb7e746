import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { dbIds, isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';
import { GroupGroupMembership, UserGroup, UserGroupMembership } from '../realm/user-group.entity';

/** Group rows and membership, including the recursive resolution of nested groups. */
@Injectable()
export class GroupMembershipRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  findGroupInRealm(realmId: number, id: number): Promise<UserGroup | null> {
    if (!isDbId(id)) return Promise.resolve(null);
    return this.em.findOne(UserGroup, { where: { realmId, id } });
  }

  async findGroupsInRealm(realmId: number, ids: number[]): Promise<UserGroup[]> {
    if (ids.length === 0) return [];
    return this.em
      .createQueryBuilder(UserGroup, 'g')
      .where('g.realm_id = :realmId AND g.id = ANY(:ids)', { realmId, ids: dbIds(ids) })
      .getMany();
  }

  systemGroups(realmId: number): Promise<UserGroup[]> {
    return this.em.find(UserGroup, { where: { realmId, isSystemGroup: true } });
  }

  async insertAnonymousGroup(realmId: number, memberIds: number[], subgroupIds: number[]): Promise<number> {
    const result = await this.em.insert(UserGroup, { realmId, name: null, description: '', isSystemGroup: false });
    const id = (result.identifiers[0] as { id: number }).id;
    if (memberIds.length > 0) {
      await this.em.insert(
        UserGroupMembership,
        memberIds.map((userProfileId) => ({ userGroupId: id, userProfileId })),
      );
    }
    if (subgroupIds.length > 0) {
      await this.em.insert(
        GroupGroupMembership,
        subgroupIds.map((subgroupId) => ({ supergroupId: id, subgroupId })),
      );
    }
    return id;
  }

  async insertNamedGroup(
    realmId: number,
    g: {
      name: string;
      description: string;
      creatorId: number | null;
      members: number[];
      subgroups: number[];
      settings: Pick<
        UserGroup,
        | 'canAddMembersGroup'
        | 'canJoinGroup'
        | 'canLeaveGroup'
        | 'canManageGroup'
        | 'canMentionGroup'
        | 'canRemoveMembersGroup'
      >;
    },
  ): Promise<number> {
    const result = await this.em.insert(UserGroup, {
      realmId,
      name: g.name,
      description: g.description,
      creatorId: g.creatorId,
      dateCreated: new Date(),
      isSystemGroup: false,
      ...g.settings,
    });
    const id = (result.identifiers[0] as { id: number }).id;
    if (g.members.length > 0) {
      await this.em.insert(
        UserGroupMembership,
        [...new Set(g.members)].map((userProfileId) => ({ userGroupId: id, userProfileId })),
      );
    }
    if (g.subgroups.length > 0) {
      await this.em.insert(
        GroupGroupMembership,
        [...new Set(g.subgroups)].map((subgroupId) => ({ supergroupId: id, subgroupId })),
      );
    }
    return id;
  }

  /** Direct members (active users only) and direct subgroups of each group, for API output. */
  async directMembership(
    groupIds: number[],
  ): Promise<Map<number, { members: number[]; subgroups: number[] }>> {
    const out = new Map<number, { members: number[]; subgroups: number[] }>();
    for (const id of groupIds) out.set(id, { members: [], subgroups: [] });
    if (groupIds.length === 0) return out;
    const members = (await this.em.query(
      `SELECT m.user_group_id AS g, m.user_profile_id AS u
         FROM user_group_membership m JOIN user_profile p ON p.id = m.user_profile_id
        WHERE m.user_group_id = ANY($1) AND p.is_active
        ORDER BY m.user_profile_id`,
      [groupIds],
    )) as Array<{ g: number; u: number }>;
    for (const r of members) out.get(r.g)!.members.push(r.u);
    const subs = (await this.em.query(
      `SELECT supergroup_id AS g, subgroup_id AS s FROM group_group_membership
        WHERE supergroup_id = ANY($1) ORDER BY subgroup_id`,
      [groupIds],
    )) as Array<{ g: number; s: number }>;
    for (const r of subs) out.get(r.g)!.subgroups.push(r.s);
    return out;
  }

  /** Is `userId` an active, direct member of `groupId` or of any group nested in it? */
  async isRecursiveMember(groupId: number, userId: number): Promise<boolean> {
    const rows = (await this.em.query(
      `WITH RECURSIVE groups(id) AS (
           SELECT $1::int
         UNION
           SELECT ggm.subgroup_id FROM group_group_membership ggm JOIN groups ON ggm.supergroup_id = groups.id
       )
       SELECT 1 FROM user_group_membership m JOIN groups ON m.user_group_id = groups.id
         JOIN user_profile p ON p.id = m.user_profile_id
        WHERE m.user_profile_id = $2 AND p.is_active
        LIMIT 1`,
      [groupId, userId],
    )) as unknown[];
    return rows.length > 0;
  }

  /** All active users in `groupId`, directly or through nested subgroups. */
  async recursiveMemberIds(groupId: number): Promise<number[]> {
    const rows = (await this.em.query(
      `WITH RECURSIVE groups(id) AS (
           SELECT $1::int
         UNION
           SELECT ggm.subgroup_id FROM group_group_membership ggm JOIN groups ON ggm.supergroup_id = groups.id
       )
       SELECT DISTINCT m.user_profile_id AS id FROM user_group_membership m JOIN groups ON m.user_group_id = groups.id
         JOIN user_profile p ON p.id = m.user_profile_id
        WHERE p.is_active ORDER BY 1`,
      [groupId],
    )) as Array<{ id: number }>;
    return rows.map((r) => r.id);
  }

  /** The ids of every group `userId` belongs to, directly or as a member of a subgroup. */
  async groupIdsOfUser(userId: number): Promise<number[]> {
    const rows = (await this.em.query(
      `WITH RECURSIVE groups(id) AS (
           SELECT user_group_id FROM user_group_membership WHERE user_profile_id = $1
         UNION
           SELECT ggm.supergroup_id FROM group_group_membership ggm JOIN groups ON ggm.subgroup_id = groups.id
       )
       SELECT id FROM groups ORDER BY id`,
      [userId],
    )) as Array<{ id: number }>;
    return rows.map((r) => r.id);
  }

  async activeUserIdsInRealm(realmId: number, ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = (await this.em.query(
      `SELECT id FROM user_profile WHERE realm_id = $1 AND id = ANY($2) AND is_active`,
      [realmId, dbIds(ids)],
    )) as Array<{ id: number }>;
    return rows.map((r) => r.id);
  }
}
