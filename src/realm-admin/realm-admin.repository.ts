import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';

/** What PATCH /realm reads beyond the realm row. */
@Injectable()
export class RealmAdminRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  async activeUserIds(realmId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE realm_id = $1 AND is_active ORDER BY id`,
      [realmId],
    );
    return rows.map((r) => r.id);
  }
}
