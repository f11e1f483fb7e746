import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import type { RealmPlaygroundDict } from '../events/client-events';

/** SQL on realm_playground (owned by the playgrounds module). */
@Injectable()
export class PlaygroundRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  list(realmId: number): Promise<RealmPlaygroundDict[]> {
    return this.em.query<RealmPlaygroundDict[]>(
      `SELECT id, name, pygments_language, url_template FROM realm_playground WHERE realm_id = $1 ORDER BY id`,
      [realmId],
    );
  }

  async lockRealm(realmId: number): Promise<void> {
    await this.em.query(`SELECT pg_advisory_xact_lock(hashtext('realm_playground'), $1)`, [realmId]);
  }

  async taken(realmId: number, language: string, name: string): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `SELECT 1 FROM realm_playground WHERE realm_id = $1 AND pygments_language = $2 AND name = $3`,
      [realmId, language, name],
    );
    return rows.length > 0;
  }

  async insert(realmId: number, name: string, language: string, urlTemplate: string): Promise<number> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `INSERT INTO realm_playground (realm_id, name, pygments_language, url_template) VALUES ($1, $2, $3, $4)
       RETURNING id`,
      [realmId, name, language, urlTemplate],
    );
    return rows[0].id;
  }

  /** Deletes the playground; false when the realm has none with this id. */
  async remove(realmId: number, id: number): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `WITH gone AS (DELETE FROM realm_playground WHERE realm_id = $1 AND id = $2 RETURNING id) SELECT id FROM gone`,
      [realmId, id],
    );
    return rows.length > 0;
  }
}
