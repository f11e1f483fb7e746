import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import { Realm, RealmUserDefault } from './realm.entity';
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
}
