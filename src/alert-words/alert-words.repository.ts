import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';

/** SQL on alert_word (owned by this module). */
@Injectable()
export class AlertWordsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** Serializes one user's changes until the transaction ends (the answer lists the result). */
  async lockUser(userId: number): Promise<void> {
    await this.em.query(`SELECT pg_advisory_xact_lock(hashtext('alert_word'), $1)`, [userId]);
  }

  async wordsOf(userId: number): Promise<string[]> {
    const rows = await this.em.query<Array<{ word: string }>>(
      `SELECT word FROM alert_word WHERE user_profile_id = $1`,
      [userId],
    );
    return rows.map((r) => r.word);
  }

  /** Every (user, word) of a realm: what the send path's matcher is built from. */
  async realmWords(realmId: number): Promise<Array<{ userId: number; word: string }>> {
    return this.em.query(`SELECT user_profile_id AS "userId", word FROM alert_word WHERE realm_id = $1`, [realmId]);
  }

  /** Adds words (case-insensitively new ones; others are left as they are). */
  async add(realmId: number, userId: number, words: string[]): Promise<void> {
    if (words.length === 0) return;
    await this.em.query(
      `INSERT INTO alert_word (realm_id, user_profile_id, word)
       SELECT $1, $2, w FROM unnest($3::text[]) AS w
       ON CONFLICT (user_profile_id, lower(word)) DO NOTHING`,
      [realmId, userId, words],
    );
  }

  /** Removes the words equal to any of `words`, ignoring case. */
  async remove(userId: number, words: string[]): Promise<void> {
    if (words.length === 0) return;
    await this.em.query(
      `DELETE FROM alert_word WHERE user_profile_id = $1
         AND lower(word) = ANY(SELECT lower(w) FROM unnest($2::text[]) AS w)`,
      [userId, words],
    );
  }
}
