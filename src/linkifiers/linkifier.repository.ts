import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import type { LinkifierDict } from '../events/client-events';

/** SQL on realm_filter (owned by the linkifiers module). */
@Injectable()
export class LinkifierRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** The realm's linkifiers in their order (order, then id: Zulip's tie-break for equal orders). */
  list(realmId: number): Promise<LinkifierDict[]> {
    return this.em.query<LinkifierDict[]>(
      `SELECT id, pattern, url_template FROM realm_filter WHERE realm_id = $1 ORDER BY "order", id`,
      [realmId],
    );
  }

  /** Serializes changes to one realm's linkifiers (the realm row is never locked for this). */
  async lockRealm(realmId: number): Promise<void> {
    await this.em.query(`SELECT pg_advisory_xact_lock(hashtext('realm_filter'), $1)`, [realmId]);
  }

  async patternTaken(realmId: number, pattern: string, exceptId: number | null): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `SELECT 1 FROM realm_filter WHERE realm_id = $1 AND pattern = $2 AND ($3::int IS NULL OR id <> $3)`,
      [realmId, pattern, exceptId],
    );
    return rows.length > 0;
  }

  async exists(realmId: number, id: number): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(`SELECT 1 FROM realm_filter WHERE realm_id = $1 AND id = $2`, [
      realmId,
      id,
    ]);
    return rows.length > 0;
  }

  /** Inserts after the realm's last linkifier; returns the id. */
  async insert(realmId: number, pattern: string, urlTemplate: string): Promise<number> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `INSERT INTO realm_filter (realm_id, pattern, url_template, "order")
       VALUES ($1, $2, $3, (SELECT COALESCE(MAX("order") + 1, 0) FROM realm_filter WHERE realm_id = $1))
       RETURNING id`,
      [realmId, pattern, urlTemplate],
    );
    return rows[0].id;
  }

  async update(realmId: number, id: number, pattern: string, urlTemplate: string): Promise<void> {
    await this.em.query(`UPDATE realm_filter SET pattern = $3, url_template = $4 WHERE realm_id = $1 AND id = $2`, [
      realmId,
      id,
      pattern,
      urlTemplate,
    ]);
  }

  async remove(realmId: number, id: number): Promise<void> {
    await this.em.query(`DELETE FROM realm_filter WHERE realm_id = $1 AND id = $2`, [realmId, id]);
  }

  /** Gives each id its position in `ordered` as its order. */
  async setOrder(realmId: number, ordered: readonly number[]): Promise<void> {
    await this.em.query(
      `UPDATE realm_filter f SET "order" = o.position - 1
         FROM unnest($2::int[]) WITH ORDINALITY AS o(id, position)
        WHERE f.realm_id = $1 AND f.id = o.id`,
      [realmId, ordered],
    );
  }
}
