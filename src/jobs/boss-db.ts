import type { Pool } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';

/** pg-boss's database adapter: it only ever calls executeSql. */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** The pg pool behind TypeORM's DataSource: jobs share the app's DB_POOL_SIZE connections. */
export function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}

/**
 * Runs pg-boss's statements on the app's pool. Its maintenance and schema scripts are one string
 * with BEGIN … COMMIT inside; when one fails half-way, pool.query discards that connection (it
 * releases a client with the error), so none goes back to the pool in an aborted transaction.
 */
export function poolDb(pool: Pool): BossDb {
  return { executeSql: (text, values) => pool.query(text, values) };
}

/** Runs pg-boss's statements in a caller's TypeORM transaction (enqueue, cancel, complete). */
export function transactionDb(manager: EntityManager): BossDb {
  const runner = manager.queryRunner;
  if (!runner) throw new Error('transactionDb needs a transaction manager');
  return {
    async executeSql(text, values) {
      const result = await runner.query(text, values ?? [], true);
      return { rows: (result.records ?? []) as Record<string, unknown>[] };
    },
  };
}
