import { customProfileFieldsView } from '../realm/realm.sql';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { dbIds } from '../database/ids';
import { currentManager } from '../database/transaction';
import { CustomProfileFieldValue } from '../realm/custom-profile-field.entity';

export interface StoredProfileValue {
  userId: number;
  fieldId: number;
  fieldType: number;
  value: string;
  renderedValue: string | null;
}

/** Users' values of custom profile fields. */
@Injectable()
export class ProfileValuesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** Users' values of a list field that name options the field no longer has. */
  async deleteValuesIn(fieldId: number, values: string[]): Promise<void> {
    if (values.length === 0) return;
    await this.em.query(`DELETE FROM custom_profile_field_value WHERE field_id = $1 AND value = ANY($2)`, [
      fieldId,
      values,
    ]);
  }

  /** Values of the realm's users (all of them, or `userIds`), ordered by field order. */
  async valuesInRealm(realmId: number, userIds?: number[]): Promise<StoredProfileValue[]> {
    const rows = await this.em.query<StoredProfileValue[]>(
      `SELECT v.user_profile_id AS "userId", v.field_id AS "fieldId", f.field_type AS "fieldType",
              v.value, v.rendered_value AS "renderedValue"
         FROM custom_profile_field_value v JOIN ${customProfileFieldsView} f ON f.id = v.field_id
        WHERE f.realm_id = $1 AND ($2::int[] IS NULL OR v.user_profile_id = ANY($2::int[]))
        ORDER BY v.user_profile_id, f."order", f.id`,
      [realmId, userIds ? dbIds(userIds) : null],
    );
    return rows;
  }

  findValue(userId: number, fieldId: number): Promise<CustomProfileFieldValue | null> {
    return this.em.findOne(CustomProfileFieldValue, { where: { userProfileId: userId, fieldId } });
  }

  async upsertValue(userId: number, fieldId: number, value: string, renderedValue: string | null): Promise<void> {
    await this.em.query(
      `INSERT INTO custom_profile_field_value (user_profile_id, field_id, value, rendered_value)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_profile_id, field_id) DO UPDATE SET value = EXCLUDED.value, rendered_value = EXCLUDED.rendered_value`,
      [userId, fieldId, value, renderedValue],
    );
  }

  /** Deletes a user's value of a field; false when there was none. */
  async deleteValue(userId: number, fieldId: number): Promise<boolean> {
    const existing = await this.findValue(userId, fieldId);
    if (!existing) return false;
    await this.em.delete(CustomProfileFieldValue, { id: existing.id });
    return true;
  }

  /** Users of the realm among `ids`, with their state (person-picker validation). */
  async usersInRealm(
    realmId: number,
    ids: number[],
  ): Promise<Array<{ id: number; isActive: boolean; isBot: boolean }>> {
    if (ids.length === 0) return [];
    return await this.em.query<Array<{ id: number; isActive: boolean; isBot: boolean }>>(
      `SELECT id, is_active AS "isActive", is_bot AS "isBot" FROM user_profile WHERE realm_id = $1 AND id = ANY($2::int[])`,
      [realmId, dbIds(ids)],
    );
  }
}
