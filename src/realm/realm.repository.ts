import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import { Realm, RealmUserDefault } from './realm.entity';
import { GroupGroupMembership, UserGroup } from './user-group.entity';
import { SYSTEM_GROUP_CHAIN, SYSTEM_GROUP_DESCRIPTIONS, SystemGroupName, SystemGroups } from './system-groups';
import { USER_SETTING_DEFS, UserSettingName, UserSettingsValues } from './user-settings';

@Injectable()
export class RealmRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  findByStringId(stringId: string): Promise<Realm | null> {
    return this.em.findOne(Realm, { where: { stringId } });
  }

  findById(id: number): Promise<Realm | null> {
    return this.em.findOne(Realm, { where: { id } });
  }

  async insertRealm(values: Partial<Realm>): Promise<Realm> {
    const result = await this.em.insert(Realm, values);
    const id = (result.identifiers[0] as { id: number }).id;
    return (await this.findById(id))!;
  }

  async updateRealm(id: number, values: Partial<Realm>): Promise<void> {
    await this.em.update(Realm, { id }, values);
  }

  async bumpAlertWordsVersion(id: number): Promise<void> {
    await this.em.query(`UPDATE realm SET alert_words_version = alert_words_version + 1 WHERE id = $1`, [id]);
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

  async insertUserDefaults(realmId: number, settings: UserSettingsValues): Promise<void> {
    await this.em.insert(RealmUserDefault, { realmId, settings });
  }

  async findUserDefaults(realmId: number): Promise<RealmUserDefault | null> {
    return this.em.findOne(RealmUserDefault, { where: { realmId } });
  }

  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /** Sets one default of new users' settings (the name comes from the settings table). */
  async updateUserDefault(realmId: number, name: UserSettingName, value: unknown): Promise<void> {
    if (!(name in USER_SETTING_DEFS)) throw new Error(`unknown user setting ${name}`);
    await this.em.query(`UPDATE realm_user_default SET "${name}" = $1 WHERE realm_id = $2`, [value, realmId]);
  }

  /** Recipients of realm-wide events: the realm's active users. */
  async activeUserIds(realmId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE realm_id = $1 AND is_active ORDER BY id`,
      [realmId],
    );
    return rows.map((r) => r.id);
  }
}
