import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';

/** SQL on bot_storage_data (owned by this module). Sizes are counted in characters, as Zulip's len(). */
@Injectable()
export class BotStorageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** Serializes writers of one bot's store until the transaction ends (the size check must hold). */
  async lockBot(botId: number): Promise<void> {
    await this.em.query(`SELECT pg_advisory_xact_lock(hashtext('bot_storage'), $1)`, [botId]);
  }

  /** The store's total size and the sizes of `keys` that exist. */
  async sizes(botId: number, keys: string[]): Promise<{ total: number; byKey: Map<string, number> }> {
    const rows = await this.em.query<Array<{ key: string | null; size: string }>>(
      `SELECT NULL AS key, COALESCE(SUM(char_length(key) + char_length(value)), 0) AS size
         FROM bot_storage_data WHERE bot_profile_id = $1
       UNION ALL
       SELECT key, char_length(key) + char_length(value) FROM bot_storage_data
        WHERE bot_profile_id = $1 AND key = ANY($2::text[])`,
      [botId, keys],
    );
    const byKey = new Map<string, number>();
    let total = 0;
    for (const row of rows) {
      if (row.key === null) total = Number(row.size);
      else byKey.set(row.key, Number(row.size));
    }
    return { total, byKey };
  }

  async upsert(botId: number, entries: Array<[string, string]>): Promise<void> {
    if (entries.length === 0) return;
    await this.em.query(
      `INSERT INTO bot_storage_data (bot_profile_id, key, value)
       SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS e(k, v)
       ON CONFLICT (bot_profile_id, md5(key)) DO UPDATE SET value = EXCLUDED.value`,
      [botId, entries.map(([k]) => k), entries.map(([, v]) => v)],
    );
  }

  /** The values of `keys` (all keys when undefined), in key order. */
  async read(botId: number, keys: string[] | undefined): Promise<Array<{ key: string; value: string }>> {
    return keys === undefined
      ? this.em.query(`SELECT key, value FROM bot_storage_data WHERE bot_profile_id = $1 ORDER BY key`, [botId])
      : this.em.query(
          `SELECT key, value FROM bot_storage_data WHERE bot_profile_id = $1 AND key = ANY($2::text[]) ORDER BY key`,
          [botId, keys],
        );
  }

  /** Deletes `keys` (all when undefined); returns how many rows went. */
  async remove(botId: number, keys: string[] | undefined): Promise<number> {
    const result =
      keys === undefined
        ? await this.em
            .createQueryBuilder()
            .delete()
            .from('bot_storage_data')
            .where('bot_profile_id = :botId', { botId })
            .execute()
        : await this.em
            .createQueryBuilder()
            .delete()
            .from('bot_storage_data')
            .where('bot_profile_id = :botId AND key = ANY(:keys)', { botId, keys })
            .execute();
    return result.affected ?? 0;
  }
}
