import { Query } from 'pg';
import type { EntityManager } from 'typeorm';

/** The slice of node-postgres' client (and pool) that named statements need: a submitted query. */
interface PgClient {
  query(query: Query, callback: (err: Error | undefined, result: { rows: unknown[] }) => void): unknown;
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
  return await submitNamed<T>(client, name, text, values);
}

/**
 * Submits the statement as a node-postgres Query built from its text, named afterwards. Given a
 * config object ({name, text, values}), node-postgres copies it through
 * Object.getOwnPropertyDescriptors before every execution (about 3 µs each, measured: the hot
 * statements run thousands of times a second); a Query given to `query` is submitted as it is.
 * The callback form works on a client and on the pool alike (the pool releases its client first).
 */
function submitNamed<T>(client: PgClient, name: string, text: string, values: unknown[]): Promise<T[]> {
  return new Promise<T[]>((resolve, reject) => {
    const query = new Query(text, values);
    (query as Query & { name: string }).name = name;
    client.query(query, (err, result) => (err ? reject(err) : resolve(result.rows as T[])));
  });
}

/** The pg pool of TypeORM's postgres driver (undefined for any other driver). */
function poolOf(manager: EntityManager): PgClient | undefined {
  return (manager.connection.driver as unknown as { master?: PgClient }).master;
}
