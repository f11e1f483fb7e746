import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';

/** What PATCH /realm reads beyond the realm row. */
@Injectable()
export class RealmAdminRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /**
   * A channel of the realm, for the moderation request channel. The channel table belongs to the
   * channels module, which is built concurrently and sits above this one only later; until
   * this module can use the channels service (TODO), the table is read directly and an absent
   * table means "no such channel".
   */
  async findChannel(realmId: number, id: number): Promise<{ id: number; inviteOnly: boolean } | null> {
    if (!isDbId(id)) return null;
    const table = (await this.em.query(`SELECT to_regclass('stream') IS NOT NULL AS present`)) as Array<{
      present: boolean;
    }>;
    if (!table[0]?.present) return null;
    const rows = (await this.em.query(`SELECT id, invite_only FROM stream WHERE realm_id = $1 AND id = $2`, [
      realmId,
      id,
    ])) as Array<{ id: number; invite_only: boolean }>;
    return rows[0] ? { id: Number(rows[0].id), inviteOnly: rows[0].invite_only === true } : null;
  }

  async activeUserIds(realmId: number): Promise<number[]> {
    const rows = (await this.em.query(`SELECT id FROM user_profile WHERE realm_id = $1 AND is_active ORDER BY id`, [
      realmId,
    ])) as Array<{ id: number }>;
    return rows.map((r) => r.id);
  }
}
