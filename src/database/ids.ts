/** PostgreSQL `integer` range: an id outside it cannot exist, and must not reach a query. */
export const MAX_DB_ID = 2_147_483_647;

export function isDbId(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_DB_ID;
}

/** The ids of `ids` that could exist in the database. */
export function dbIds(ids: readonly number[]): number[] {
  return ids.filter(isDbId);
}

/**
 * An array of integers as a PostgreSQL array literal (`{1,2,3}`), for an `int[]` or `bigint[]`
 * parameter: pg serialises an array element by element (each quoted and escaped, `{"1","2"}`),
 * ~0.1 µs per element, which a send to a channel of 10,000 paid twice in one task (~2.2 ms
 * against ~0.3 ms). Values that are not safe integers are passed as they are, for pg to refuse
 * or convert as it would.
 */
export function intArrayParam(values: readonly number[]): string | readonly number[] {
  for (let i = 0; i < values.length; i++) if (!Number.isSafeInteger(values[i])) return values;
  return `{${values.join(',')}}`;
}
