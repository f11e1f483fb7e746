import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { isDbId, dbIds } from '../database/ids';
import { currentManager } from '../database/transaction';
import { forgetPrincipals } from './principal-memo';
import { UserGroup, UserGroupMembership } from '../realm/user-group.entity';
import { UserProfile } from './user.entity';
import type { UserDictSource } from './user-format';

@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  findByApiKeyDigest(digest: string): Promise<UserProfile | null> {
    return this.em.findOne(UserProfile, { where: { apiKeyDigest: digest } });
  }

  findByIdInRealm(realmId: number, id: number): Promise<UserProfile | null> {
    if (!isDbId(id)) return Promise.resolve(null);
    return this.em.findOne(UserProfile, { where: { realmId, id } });
  }

  findById(id: number): Promise<UserProfile | null> {
    if (!isDbId(id)) return Promise.resolve(null);
    return this.em.findOne(UserProfile, { where: { id } });
  }

  /** Case-insensitive lookup of a delivery email within a realm. */
  findByEmailInRealm(realmId: number, email: string): Promise<UserProfile | null> {
    return this.em
      .createQueryBuilder(UserProfile, 'u')
      .where('u.realm_id = :realmId AND lower(u.delivery_email) = lower(:email)', { realmId, email })
      .getOne();
  }

  /** Every user with this delivery email, in any realm (for /fetch_api_key on the root domain). */
  findAllByEmail(email: string): Promise<UserProfile[]> {
    return this.em
      .createQueryBuilder(UserProfile, 'u')
      .where('lower(u.delivery_email) = lower(:email)', { email })
      .orderBy('u.id')
      .getMany();
  }

  listInRealm(realmId: number, ids?: number[]): Promise<UserProfile[]> {
    return this.em.find(UserProfile, {
      where: ids ? { realmId, id: In(dbIds(ids)) } : { realmId },
      order: { id: 'ASC' },
    });
  }

  /**
   * The fields of a user dict for every user of the realm (or `ids`), by id, as plain rows: a
   * realm of 10,000 users (POST /register, GET /users) would otherwise hydrate 10,000 entities of
   * ~90 columns. `dateJoined` comes formatted as isoFormat does (milliseconds, truncated, UTC).
   */
  async listDictRowsInRealm(realmId: number, ids?: number[]): Promise<UserDictSource[]> {
    const rows = await this.em.query<Array<UserDictSource & { emailVisibility: number }>>(
      `SELECT id, delivery_email AS "deliveryEmail", full_name AS "fullName", role, is_active AS "isActive",
              is_bot AS "isBot", bot_type AS "botType", bot_owner_id AS "botOwnerId", timezone,
              avatar_source AS "avatarSource", avatar_version AS "avatarVersion",
              email_address_visibility AS "emailVisibility",
              to_char(date_joined AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"000+00:00"') AS "dateJoined"
         FROM user_profile
        WHERE realm_id = $1 AND ($2::int[] IS NULL OR id = ANY($2::int[]))
        ORDER BY id`,
      [realmId, ids ? dbIds(ids) : null],
    );
    for (const r of rows) (r as UserDictSource).settings = { email_address_visibility: r.emailVisibility };
    return rows;
  }

  async insert(values: Partial<UserProfile>): Promise<number> {
    forgetPrincipals();
    const result = await this.em.insert(UserProfile, values);
    return (result.identifiers[0] as { id: number }).id;
  }

  async update(id: number, values: Partial<UserProfile>): Promise<void> {
    forgetPrincipals();
    await this.em.update(UserProfile, { id }, values);
  }

  /** Puts the user in exactly `groupIds` among the realm's system role groups. */
  async setRoleGroups(realmId: number, userId: number, groupIds: number[]): Promise<void> {
    forgetPrincipals();
    await this.em.query(
      `DELETE FROM user_group_membership m USING user_group g
        WHERE m.user_group_id = g.id AND g.realm_id = $1 AND g.is_system_group AND m.user_profile_id = $2`,
      [realmId, userId],
    );
    if (groupIds.length > 0) {
      await this.em.insert(
        UserGroupMembership,
        groupIds.map((userGroupId) => ({ userGroupId, userProfileId: userId })),
      );
    }
  }

  findGroups(realmId: number, ids: number[]): Promise<UserGroup[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.em.find(UserGroup, { where: { realmId, id: In(ids) } });
  }

  /** The realm's active users (recipients of realm-wide events), with their roles. */
  async activeUsersInRealm(realmId: number): Promise<Array<{ id: number; role: number }>> {
    return await this.em.query<Array<{ id: number; role: number }>>(
      `SELECT id, role FROM user_profile WHERE realm_id = $1 AND is_active ORDER BY id`,
      [realmId],
    );
  }

  /** Active human owners of the realm (Realm.get_human_owner_users). */
  async humanOwnerIds(realmId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE realm_id = $1 AND is_active AND NOT is_bot AND role = 100 ORDER BY id`,
      [realmId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Bots a user may administer (register's realm_bots): every bot of the realm for an
   * administrator (ownerId null), else the bots the user owns; deactivated ones included.
   */
  botsForAdministration(realmId: number, ownerId: number | null): Promise<UserProfile[]> {
    return this.em.find(UserProfile, {
      where: ownerId === null ? { realmId, isBot: true } : { realmId, isBot: true, botOwnerId: ownerId },
      order: { id: 'ASC' },
    });
  }

  /** The system bots of the `zulipinternal` realm with these emails (Zulip's cross-realm bots). */
  crossRealmBots(emails: readonly string[]): Promise<UserProfile[]> {
    return this.em
      .createQueryBuilder(UserProfile, 'u')
      .innerJoin('realm', 'r', 'r.id = u.realm_id')
      .where("r.string_id = 'zulipinternal' AND u.is_bot AND lower(u.delivery_email) IN (:...emails)", {
        emails: emails.map((e) => e.toLowerCase()),
      })
      .orderBy('u.full_name')
      .getMany();
  }

  async activeBotsOwnedBy(userId: number): Promise<UserProfile[]> {
    return this.em.find(UserProfile, {
      where: { botOwnerId: userId, isBot: true, isActive: true },
      order: { id: 'ASC' },
    });
  }

  async lockUser(realmId: number, id: number): Promise<UserProfile | null> {
    if (!isDbId(id)) return null;
    return this.em
      .createQueryBuilder(UserProfile, 'u')
      .setLock('pessimistic_write')
      .where('u.realm_id = :realmId AND u.id = :id', { realmId, id })
      .getOne();
  }
}
