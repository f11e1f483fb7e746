import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';

/** Who muted whom (table muted_user). */
@Injectable()
export class MutedUsersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** The user's mutes, oldest first. */
  async listForUser(userId: number): Promise<Array<{ mutedUserId: number; dateMuted: Date }>> {
    const rows = await this.em.query<Array<{ muted_user_id: number; date_muted: Date }>>(
      `SELECT muted_user_id, date_muted FROM muted_user WHERE user_profile_id = $1 ORDER BY id`,
      [userId],
    );
    return rows.map((r) => ({ mutedUserId: r.muted_user_id, dateMuted: r.date_muted }));
  }

  /** Adds the mute; false when it already existed. */
  async add(userId: number, mutedUserId: number, at: Date): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `INSERT INTO muted_user (user_profile_id, muted_user_id, date_muted) VALUES ($1, $2, $3)
       ON CONFLICT (user_profile_id, muted_user_id) DO NOTHING RETURNING id`,
      [userId, mutedUserId, at],
    );
    return rows.length > 0;
  }

  /** Removes the mute; false when there was none. */
  async remove(userId: number, mutedUserId: number): Promise<boolean> {
    const result: unknown = await this.em.query(
      `DELETE FROM muted_user WHERE user_profile_id = $1 AND muted_user_id = $2 RETURNING id`,
      [userId, mutedUserId],
    );
    const rows = Array.isArray(result) && Array.isArray(result[0]) ? (result[0] as unknown[]) : (result as unknown[]);
    return rows.length > 0;
  }

  /** Every mute between users of the realm: muted user id → the ids of those who muted them. */
  async mutesInRealm(realmId: number): Promise<Map<number, number[]>> {
    const rows = await this.em.query<Array<{ muted_user_id: number; user_profile_id: number }>>(
      `SELECT m.muted_user_id, m.user_profile_id FROM muted_user m
         JOIN user_profile u ON u.id = m.user_profile_id WHERE u.realm_id = $1`,
      [realmId],
    );
    const out = new Map<number, number[]>();
    for (const r of rows) {
      const list = out.get(r.muted_user_id) ?? [];
      list.push(r.user_profile_id);
      out.set(r.muted_user_id, list);
    }
    return out;
  }
}
