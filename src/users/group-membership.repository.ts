import { SYSTEM_GROUP_CHAIN, SYSTEM_GROUP_DESCRIPTIONS, SystemGroupName, SystemGroups } from '../realm/system-groups';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { dbIds, isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';
import { forgetPrincipals } from './principal-memo';
import { GroupGroupMembership, UserGroup, UserGroupMembership } from '../realm/user-group.entity';
import { Role } from '../common/roles';

export interface MentionGroupRow {
  id: number;
  name: string;
  deactivated: boolean;
  canMentionGroup: number;
}

/** What `principalRows` loads for one user. */
export interface PrincipalRow {
  id: number;
  realmId: number;
  role: number;
  isActive: boolean;
  isBot: boolean;
  botOwnerId: number | null;
  groupIds: number[];
}

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
    forgetPrincipals();
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
    forgetPrincipals();
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

  /**
   * Direct members (active users only) and direct subgroups of each group, for API output.
   * `isActive`, when the caller knows every user's activity (RealmUserRowsCache), filters the
   * members here instead: the realm-wide groups (role:members, role:everyone) hold every user, and
   * an activity probe per membership costs 25 ms at 10,000 users where reading the memberships
   * alone (index only, in order) costs 3.5.
   */
  async directMembership(
    groupIds: number[],
    isActive?: (userId: number) => boolean,
  ): Promise<Map<number, { members: number[]; subgroups: number[] }>> {
    const out = new Map<number, { members: number[]; subgroups: number[] }>();
    for (const id of groupIds) out.set(id, { members: [], subgroups: [] });
    if (groupIds.length === 0) return out;
    // One row per group with its lists as JSON (parsed by the driver in one go): the realm-wide
    // groups (role:members) hold every user, and a row per membership costs an object each.
    // Without `isActive`, each member's activity is a primary-key probe: a join was planned for
    // the average group (hash of every user of the realm, ~4 ms per group at 10,000 users), while
    // the groups asked for here (anonymous setting values) mostly hold a few members.
    const activity = isActive ? '' : 'AND (SELECT p.is_active FROM user_profile p WHERE p.id = m.user_profile_id)';
    const rows = await this.em.query<Array<{ g: number; u: number[] | null; s: number[] | null }>>(
      `SELECT g.id AS g,
              (SELECT json_agg(m.user_profile_id ORDER BY m.user_profile_id)
                 FROM user_group_membership m WHERE m.user_group_id = g.id ${activity}) AS u,
              (SELECT json_agg(gg.subgroup_id ORDER BY gg.subgroup_id)
                 FROM group_group_membership gg WHERE gg.supergroup_id = g.id) AS s
         FROM unnest($1::int[]) AS g(id)`,
      [groupIds],
    );
    for (const r of rows) {
      const entry = out.get(r.g)!;
      if (r.u) entry.members = isActive ? r.u.filter(isActive) : r.u;
      if (r.s) entry.subgroups = r.s;
    }
    return out;
  }

  /** Is `userId` an active, direct member of `groupId` or of any group nested in it? */
  async isRecursiveMember(groupId: number, userId: number): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
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
    );
    return rows.length > 0;
  }

  /** All active users in `groupId`, directly or through nested subgroups. */
  async recursiveMemberIds(groupId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `WITH RECURSIVE groups(id) AS (
           SELECT $1::int
         UNION
           SELECT ggm.subgroup_id FROM group_group_membership ggm JOIN groups ON ggm.supergroup_id = groups.id
       )
       SELECT DISTINCT m.user_profile_id AS id FROM user_group_membership m JOIN groups ON m.user_group_id = groups.id
         JOIN user_profile p ON p.id = m.user_profile_id
        WHERE p.is_active ORDER BY 1`,
      [groupId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * The authorization kernel's one query: each user's role, activity, bot status and every group
   * they belong to, directly or through nested subgroups (Zulip's get_recursive_membership_groups).
   * System groups are taken from the role, not from membership rows (as hasSystemGroupPermission
   * answers them); the walk goes up from a system group, and counts it, only when the role holds it.
   */
  async principalRows(userIds: number[]): Promise<PrincipalRow[]> {
    const ids = [...new Set(dbIds(userIds))];
    if (ids.length === 0) return [];
    const rows = await this.em.query<
      Array<{
        id: number;
        realm_id: number;
        role: number;
        is_active: boolean;
        is_bot: boolean;
        bot_owner_id: number | null;
        group_ids: number[];
      }>
    >(
      `WITH RECURSIVE u AS (
           SELECT id, realm_id, role, is_active, is_bot, bot_owner_id FROM user_profile WHERE id = ANY($1::int[])
       ), walk(uid, gid, climbs) AS (
           SELECT m.user_profile_id, m.user_group_id, true
             FROM user_group_membership m JOIN user_group g ON g.id = m.user_group_id AND NOT g.is_system_group
            WHERE m.user_profile_id = ANY($1::int[])
         UNION
           SELECT u.id, g.id, true
             FROM u JOIN user_group g ON g.realm_id = u.realm_id AND g.is_system_group
            WHERE CASE g.name
                    WHEN 'role:internet' THEN true
                    WHEN 'role:everyone' THEN true
                    WHEN 'role:members' THEN u.role <> ${Role.GUEST}
                    WHEN 'role:fullmembers' THEN u.role <> ${Role.GUEST}
                    WHEN 'role:moderators' THEN u.role <= ${Role.MODERATOR}
                    WHEN 'role:administrators' THEN u.role <= ${Role.ADMINISTRATOR}
                    WHEN 'role:owners' THEN u.role = ${Role.OWNER}
                    ELSE false
                  END
         UNION
           SELECT walk.uid, ggm.supergroup_id, NOT sup.is_system_group
             FROM walk JOIN group_group_membership ggm ON ggm.subgroup_id = walk.gid
             JOIN user_group sup ON sup.id = ggm.supergroup_id
            WHERE walk.climbs
       )
       SELECT u.id, u.realm_id, u.role, u.is_active, u.is_bot, u.bot_owner_id,
              coalesce((SELECT array_agg(DISTINCT walk.gid) FILTER (WHERE walk.climbs) FROM walk WHERE walk.uid = u.id), '{}')
                AS group_ids
         FROM u ORDER BY u.id`,
      [ids],
    );
    return rows.map((r) => ({
      id: r.id,
      realmId: r.realm_id,
      role: r.role,
      isActive: r.is_active,
      isBot: r.is_bot,
      botOwnerId: r.bot_owner_id,
      groupIds: r.group_ids,
    }));
  }

  async activeUserIdsInRealm(realmId: number, ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE realm_id = $1 AND id = ANY($2) AND is_active`,
      [realmId, dbIds(ids)],
    );
    return rows.map((r) => r.id);
  }

  async lockNamedGroup(realmId: number, id: number): Promise<UserGroup | null> {
    if (!isDbId(id)) return null;
    return this.em
      .createQueryBuilder(UserGroup, 'g')
      .setLock('pessimistic_write')
      .where('g.realm_id = :realmId AND g.id = :id AND g.name IS NOT NULL', { realmId, id })
      .getOne();
  }

  findNamedGroupByName(realmId: number, name: string): Promise<UserGroup | null> {
    return this.em.findOne(UserGroup, { where: { realmId, name } });
  }

  async updateGroup(id: number, values: Partial<UserGroup>): Promise<void> {
    await this.em.update(UserGroup, { id }, values);
  }

  /** Active direct members of a group, sorted. */
  async directActiveMemberIds(groupId: number): Promise<number[]> {
    return (await this.directMembership([groupId])).get(groupId)!.members;
  }

  async directSubgroupIds(groupId: number): Promise<number[]> {
    return (await this.directMembership([groupId])).get(groupId)!.subgroups;
  }

  async addMembers(groupId: number, userIds: number[]): Promise<void> {
    forgetPrincipals();
    if (userIds.length === 0) return;
    await this.em.query(
      `INSERT INTO user_group_membership (user_group_id, user_profile_id)
       SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING`,
      [groupId, userIds],
    );
  }

  async removeMembers(groupId: number, userIds: number[]): Promise<void> {
    forgetPrincipals();
    if (userIds.length === 0) return;
    await this.em.query(`DELETE FROM user_group_membership WHERE user_group_id = $1 AND user_profile_id = ANY($2)`, [
      groupId,
      userIds,
    ]);
  }

  async addSubgroups(groupId: number, subgroupIds: number[]): Promise<void> {
    forgetPrincipals();
    if (subgroupIds.length === 0) return;
    await this.em.query(
      `INSERT INTO group_group_membership (supergroup_id, subgroup_id)
       SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING`,
      [groupId, subgroupIds],
    );
  }

  async removeSubgroups(groupId: number, subgroupIds: number[]): Promise<void> {
    forgetPrincipals();
    if (subgroupIds.length === 0) return;
    await this.em.query(`DELETE FROM group_group_membership WHERE supergroup_id = $1 AND subgroup_id = ANY($2)`, [
      groupId,
      subgroupIds,
    ]);
  }

  /** Replaces the direct members and subgroups of an (anonymous) group. */
  async setGroupMembership(groupId: number, memberIds: number[], subgroupIds: number[]): Promise<void> {
    forgetPrincipals();
    await this.em.query(`DELETE FROM user_group_membership WHERE user_group_id = $1`, [groupId]);
    await this.em.query(`DELETE FROM group_group_membership WHERE supergroup_id = $1`, [groupId]);
    await this.addMembers(groupId, memberIds);
    await this.addSubgroups(groupId, subgroupIds);
  }

  /** Deletes an anonymous group (named groups are never deleted). */
  async deleteAnonymousGroup(id: number): Promise<void> {
    forgetPrincipals();
    await this.em.query(`DELETE FROM user_group WHERE id = $1 AND name IS NULL`, [id]);
  }

  /**
   * Named groups among `ids` in the realm, with every named group nested under them
   * (Zulip's get_recursive_subgroups_for_groups: the given groups included).
   */
  async namedGroupsWithRecursiveSubgroups(realmId: number, ids: number[]): Promise<UserGroup[]> {
    const roots = dbIds(ids);
    if (roots.length === 0) return [];
    const rows = await this.em.query<Array<{ id: number }>>(
      `WITH RECURSIVE walk(id) AS (
           SELECT id FROM user_group WHERE realm_id = $1 AND id = ANY($2::int[]) AND name IS NOT NULL
         UNION
           SELECT ggm.subgroup_id FROM group_group_membership ggm
             JOIN walk ON ggm.supergroup_id = walk.id
             JOIN user_group sub ON sub.id = ggm.subgroup_id AND sub.name IS NOT NULL
       )
       SELECT id FROM walk`,
      [realmId, roots],
    );
    return this.findGroupsInRealm(
      realmId,
      rows.map((r) => r.id),
    );
  }

  /** Every named group nested in `groupId` (not the group itself), sorted. */
  async recursiveStrictSubgroupIds(groupId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `WITH RECURSIVE walk(id) AS (
           SELECT subgroup_id FROM group_group_membership WHERE supergroup_id = $1
         UNION
           SELECT ggm.subgroup_id FROM group_group_membership ggm JOIN walk ON ggm.supergroup_id = walk.id
       )
       SELECT id FROM walk ORDER BY id`,
      [groupId],
    );
    return rows.map((r) => r.id);
  }

  /** Direct supergroups of a group: named ones that are not deactivated, and anonymous ones. */
  async directSupergroups(groupId: number): Promise<{ activeNamed: number[]; anonymous: number[] }> {
    const rows = await this.em.query<Array<{ id: number; anonymous: boolean; deactivated: boolean }>>(
      `SELECT g.id, g.name IS NULL AS anonymous, g.deactivated
         FROM group_group_membership ggm JOIN user_group g ON g.id = ggm.supergroup_id
        WHERE ggm.subgroup_id = $1 ORDER BY g.id`,
      [groupId],
    );
    return {
      activeNamed: rows.filter((r) => !r.anonymous && !r.deactivated).map((r) => r.id),
      anonymous: rows.filter((r) => r.anonymous).map((r) => r.id),
    };
  }

  /** Named, non-deactivated groups of the realm whose settings point at one of `groupIds`. */
  async activeNamedGroupsUsingSettingValues(realmId: number, groupIds: number[]): Promise<UserGroup[]> {
    if (groupIds.length === 0) return [];
    return this.em
      .createQueryBuilder(UserGroup, 'g')
      .where('g.realm_id = :realmId AND g.name IS NOT NULL AND NOT g.deactivated', { realmId })
      .andWhere(
        `(g.can_add_members_group = ANY(:ids) OR g.can_join_group = ANY(:ids) OR g.can_leave_group = ANY(:ids)
          OR g.can_manage_group = ANY(:ids) OR g.can_mention_group = ANY(:ids) OR g.can_remove_members_group = ANY(:ids))`,
        { ids: groupIds },
      )
      .orderBy('g.id')
      .getMany();
  }

  /** Creates the eight system groups of a realm, nested owners ⊂ administrators ⊂ … ⊂ internet. */
  async createSystemGroups(realmId: number): Promise<Map<SystemGroupName, number>> {
    const ids = new Map<SystemGroupName, number>();
    const names = [SystemGroups.NOBODY, ...SYSTEM_GROUP_CHAIN];
    for (const name of names) {
      const result = await this.em.insert(UserGroup, {
        realmId,
        name,
        description: SYSTEM_GROUP_DESCRIPTIONS[name],
        isSystemGroup: true,
        dateCreated: new Date(),
      });
      ids.set(name, (result.identifiers[0] as { id: number }).id);
    }
    const nobody = ids.get(SystemGroups.NOBODY)!;
    // System groups' own permission settings all point at role:nobody.
    await this.em.update(
      UserGroup,
      { realmId, isSystemGroup: true },
      {
        canAddMembersGroup: nobody,
        canJoinGroup: nobody,
        canLeaveGroup: nobody,
        canManageGroup: nobody,
        canMentionGroup: nobody,
        canRemoveMembersGroup: nobody,
      },
    );
    const links: Partial<GroupGroupMembership>[] = [];
    for (let i = 0; i + 1 < SYSTEM_GROUP_CHAIN.length; i++) {
      links.push({ subgroupId: ids.get(SYSTEM_GROUP_CHAIN[i])!, supergroupId: ids.get(SYSTEM_GROUP_CHAIN[i + 1])! });
    }
    await this.em.insert(GroupGroupMembership, links);
    return ids;
  }

  async systemGroupIds(realmId: number): Promise<Map<SystemGroupName, number>> {
    const rows = await this.em.find(UserGroup, { where: { realmId, isSystemGroup: true } });
    return new Map(rows.map((g) => [g.name as SystemGroupName, g.id]));
  }

  /** A group's name and whether it is a system group (null name: a setting's anonymous group). */
  async groupLabel(realmId: number, groupId: number): Promise<{ name: string | null; isSystemGroup: boolean } | null> {
    const rows = await this.em.query<Array<{ name: string | null; is_system_group: boolean }>>(
      `SELECT name, is_system_group FROM user_group WHERE id = $1 AND realm_id = $2`,
      [groupId, realmId],
    );
    return rows[0] ? { name: rows[0].name, isSystemGroup: rows[0].is_system_group } : null;
  }

  async allActiveUserIdsInRealm(realmId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE realm_id = $1 AND is_active ORDER BY id`,
      [realmId],
    );
    return rows.map((r) => r.id);
  }

  /** Named groups (system groups included) a user is a direct member of. */
  async namedGroupIdsWithDirectMember(userId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT g.id FROM user_group_membership m JOIN user_group g ON g.id = m.user_group_id
        WHERE m.user_profile_id = $1 AND g.name IS NOT NULL ORDER BY g.id`,
      [userId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Active, non-guest members of each group, through nested subgroups (the members who can hold
   * settings that refuse role:everyone, such as the metadata-granting channel settings).
   */
  async nonGuestMembersOfGroups(groupIds: number[]): Promise<Map<number, Set<number>>> {
    const out = new Map<number, Set<number>>();
    const unique = [...new Set(groupIds)];
    for (const id of unique) out.set(id, new Set());
    if (unique.length === 0) return out;
    const rows = await this.em.query<Array<{ root: number; user_profile_id: number }>>(
      `WITH RECURSIVE g(root, id) AS (
           SELECT gid, gid FROM unnest($1::int[]) AS gid
         UNION
           SELECT g.root, ggm.subgroup_id FROM group_group_membership ggm JOIN g ON ggm.supergroup_id = g.id
       )
       SELECT DISTINCT g.root, m.user_profile_id
         FROM g JOIN user_group_membership m ON m.user_group_id = g.id
         JOIN user_profile u ON u.id = m.user_profile_id
        WHERE u.is_active AND u.role <> 600`,
      [unique],
    );
    for (const r of rows) out.get(r.root)?.add(r.user_profile_id);
    return out;
  }

  /** Deletes an anonymous group of the realm (a setting value that nothing references any more). */
  async deleteAnonymousGroupInRealm(realmId: number, groupId: number): Promise<void> {
    forgetPrincipals();
    await this.em.query(`DELETE FROM user_group WHERE id = $1 AND realm_id = $2 AND name IS NULL`, [groupId, realmId]);
  }

  /** Is the group anonymous (no name)? */
  async isAnonymousGroup(groupId: number): Promise<boolean> {
    const rows = await this.em.query<
      Array<{
        anonymous: boolean;
      }>
    >(`SELECT name IS NULL AS anonymous FROM user_group WHERE id = $1`, [groupId]);
    return rows[0]?.anonymous === true;
  }

  /** Named, non-system groups of the realm by name (case-insensitive). */
  async mentionableGroups(realmId: number, names: string[]): Promise<MentionGroupRow[]> {
    if (names.length === 0) return [];
    const rows = await this.em.query<
      Array<{ id: number; name: string; deactivated: boolean; can_mention_group: number }>
    >(
      `SELECT id, name, deactivated, can_mention_group FROM user_group
        WHERE realm_id = $1 AND name IS NOT NULL AND NOT is_system_group AND lower(name) = ANY($2::text[])`,
      [realmId, names.map((n) => n.toLowerCase())],
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      deactivated: r.deactivated,
      canMentionGroup: r.can_mention_group,
    }));
  }

  /** Active users in any of `groupIds`, directly or through subgroups. */
  async recursiveMemberIdsOfGroups(groupIds: number[]): Promise<number[]> {
    if (groupIds.length === 0) return [];
    const rows = await this.em.query<Array<{ id: number }>>(
      `WITH RECURSIVE groups(id) AS (
           SELECT unnest($1::int[])
         UNION
           SELECT ggm.subgroup_id FROM group_group_membership ggm JOIN groups ON ggm.supergroup_id = groups.id
       )
       SELECT DISTINCT m.user_profile_id AS id FROM user_group_membership m
         JOIN groups ON m.user_group_id = groups.id
         JOIN user_profile p ON p.id = m.user_profile_id
        WHERE p.is_active`,
      [groupIds],
    );
    return rows.map((r) => r.id);
  }

  /** Active members (recursive) of each group. */
  async groupMembersByGroup(groupIds: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    if (groupIds.length === 0) return out;
    const rows = await this.em.query<Array<{ root: number; id: number }>>(
      `WITH RECURSIVE groups(root, id) AS (
           SELECT g, g FROM unnest($1::int[]) AS g
         UNION
           SELECT groups.root, ggm.subgroup_id FROM group_group_membership ggm JOIN groups ON ggm.supergroup_id = groups.id
       )
       SELECT DISTINCT groups.root, m.user_profile_id AS id FROM user_group_membership m
         JOIN groups ON m.user_group_id = groups.id
         JOIN user_profile p ON p.id = m.user_profile_id
        WHERE p.is_active`,
      [groupIds],
    );
    for (const r of rows) {
      const list = out.get(r.root) ?? [];
      list.push(r.id);
      out.set(r.root, list);
    }
    return out;
  }
}
