import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';
import { CustomProfileField } from './custom-profile-field.entity';

/** Custom profile field definitions of a realm. */
@Injectable()
export class CustomProfileFieldsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** The realm's fields in display order (custom_profile_fields_for_realm). */
  listForRealm(realmId: number): Promise<CustomProfileField[]> {
    return this.em.find(CustomProfileField, { where: { realmId }, order: { order: 'ASC', id: 'ASC' } });
  }

  findInRealm(realmId: number, id: number): Promise<CustomProfileField | null> {
    if (!isDbId(id)) return Promise.resolve(null);
    return this.em.findOne(CustomProfileField, { where: { realmId, id } });
  }

  findByName(realmId: number, name: string): Promise<CustomProfileField | null> {
    return this.em.findOne(CustomProfileField, { where: { realmId, name } });
  }

  async countSummaryFields(realmId: number, excludeId?: number): Promise<number> {
    const rows = await this.em.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM custom_profile_field
        WHERE realm_id = $1 AND display_in_profile_summary AND ($2::int IS NULL OR id <> $2)`,
      [realmId, excludeId ?? null],
    );
    return rows[0].n;
  }

  /** Inserts a field; its order is its id, so new fields come last (as Zulip). */
  async insert(values: Partial<CustomProfileField>): Promise<CustomProfileField> {
    const result = await this.em.insert(CustomProfileField, values);
    const id = (result.identifiers[0] as { id: number }).id;
    await this.em.update(CustomProfileField, { id }, { order: id });
    return (await this.em.findOne(CustomProfileField, { where: { id } }))!;
  }

  async update(id: number, values: Partial<CustomProfileField>): Promise<void> {
    await this.em.update(CustomProfileField, { id }, values);
  }

  async delete(id: number): Promise<void> {
    await this.em.delete(CustomProfileField, { id });
  }
}
