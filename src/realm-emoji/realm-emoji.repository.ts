import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import { RealmEmoji } from './realm-emoji.entity';

@Injectable()
export class RealmEmojiRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** Every stored emoji of the realm, deactivated ones included (not those still being stored). */
  listInRealm(realmId: number): Promise<RealmEmoji[]> {
    return this.em.query<RealmEmoji[]>(
      `SELECT id, realm_id AS "realmId", author_id AS "authorId", name, date_created AS "dateCreated",
              file_name AS "fileName", is_animated AS "isAnimated", deactivated
         FROM realm_emoji WHERE realm_id = $1 AND file_name IS NOT NULL ORDER BY id`,
      [realmId],
    );
  }

  /** Every active emoji of the realm (what Markdown renders), by name. */
  activeInRealm(realmId: number): Promise<Array<{ id: number; name: string; fileName: string }>> {
    return this.em.query(
      `SELECT id, name, file_name AS "fileName" FROM realm_emoji
        WHERE realm_id = $1 AND NOT deactivated AND file_name IS NOT NULL`,
      [realmId],
    );
  }

  /** The active emoji named `name` and the emoji (active or not) with id `id`. */
  reactionCandidates(
    realmId: number,
    name: string | null,
    id: number | null,
  ): Promise<Array<{ id: number; name: string; fileName: string; deactivated: boolean }>> {
    return this.em.query(
      `SELECT id, name, file_name AS "fileName", deactivated FROM realm_emoji
        WHERE realm_id = $1 AND file_name IS NOT NULL
          AND ((name = $2 AND NOT deactivated) OR id = $3)`,
      [realmId, name, id],
    );
  }

  /** The active emoji of this name (the one Zulip's views look up), or null. */
  findActive(realmId: number, name: string): Promise<RealmEmoji | null> {
    return this.em.findOne(RealmEmoji, { where: { realmId, name, deactivated: false } });
  }

  /** Locks and returns the active emoji of this name, or null. */
  lockActive(realmId: number, name: string): Promise<RealmEmoji | null> {
    return this.em.findOne(RealmEmoji, {
      where: { realmId, name, deactivated: false },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Inserts the row (file name still unset), or returns null when the active name is taken. */
  async insertIfNameFree(realmId: number, name: string, authorId: number): Promise<number | null> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `INSERT INTO realm_emoji (realm_id, name, author_id) VALUES ($1, $2, $3)
       ON CONFLICT (realm_id, name) WHERE NOT deactivated DO NOTHING
       RETURNING id`,
      [realmId, name, authorId],
    );
    return rows.length === 0 ? null : rows[0].id;
  }

  async setFile(id: number, fileName: string, isAnimated: boolean): Promise<void> {
    await this.em.update(RealmEmoji, { id }, { fileName, isAnimated });
  }

  async deactivate(id: number): Promise<void> {
    await this.em.update(RealmEmoji, { id }, { deactivated: true });
  }
}
