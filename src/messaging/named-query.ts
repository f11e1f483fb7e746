import type { EntityManager } from 'typeorm';

/** The slice of node-postgres' client that named statements need. */
interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface RunnerWithConnection {
  connect(): Promise<unknown>;
}

/**
 * Runs a hot statement as a named prepared statement on the connection of `manager`'s query
 * runner (the current transaction's connection), so PostgreSQL parses and plans it once per
 * connection (performance-notes §7.3). Without a query runner (no transaction), it falls back to
 * an unnamed query. `name` must always be used with the same `text`.
 */
export async function namedQuery<T>(
  manager: EntityManager,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const runner = manager.queryRunner as unknown as RunnerWithConnection | undefined;
  if (!runner) return await manager.query<T[]>(text, values);
  const client = (await runner.connect()) as PgClient;
  const result = await client.query({ name, text, values });
  return result.rows as T[];
}
