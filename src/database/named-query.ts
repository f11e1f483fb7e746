import type { EntityManager } from 'typeorm';

/** The slice of node-postgres' client (and pool) that named statements need. */
interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface RunnerWithConnection {
  connect(): Promise<unknown>;
}

/**
 * Runs a hot statement as a named prepared statement, so PostgreSQL parses and plans it once per
 * connection (performance-notes §7.3): on the connection of `manager`'s query runner (the current
 * transaction's), or, without one (no transaction, e.g. a single-statement unit of work), on a
 * connection of the driver's pool, which node-postgres prepares the statement on at its first use
 * there. `name` must always be used with the same `text`.
 */
export async function namedQuery<T>(
  manager: EntityManager,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const runner = manager.queryRunner as unknown as RunnerWithConnection | undefined;
  const client = runner ? ((await runner.connect()) as PgClient) : poolOf(manager);
  if (!client) return await manager.query<T[]>(text, values);
  const result = await client.query({ name, text, values });
  return result.rows as T[];
}

/** The pg pool of TypeORM's postgres driver (undefined for any other driver). */
function poolOf(manager: EntityManager): PgClient | undefined {
  return (manager.connection.driver as unknown as { master?: PgClient }).master;
}
