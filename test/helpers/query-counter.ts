import { Client } from 'pg';
import { inDetachedHandler } from '../../src/events/domain-event-bus';

/**
 * Counts the SQL statements the app sends to PostgreSQL while `fn` runs, by wrapping
 * `pg.Client.prototype.query` (TypeORM's postgres driver talks through it). Only use it around
 * requests of a single test app in a test file: every pg client in the process is counted.
 * BEGIN/COMMIT/ROLLBACK and savepoints are excluded, so transactions do not skew comparisons;
 * so is the work of after-commit domain-event handlers (off the request, and racing with it).
 */
export async function countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; count: number; queries: string[] }> {
  const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const queries: string[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
    if (inDetachedHandler()) return original.apply(this, args);
    if (!/^\s*(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT)\b/i.test(text)) queries.push(text);
    return original.apply(this, args);
  };
  try {
    const result = await fn();
    return { result, count: queries.length, queries };
  } finally {
    proto.query = original;
  }
}
