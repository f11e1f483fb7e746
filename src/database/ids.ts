/** PostgreSQL `integer` range: an id outside it cannot exist, and must not reach a query. */
export const MAX_DB_ID = 2_147_483_647;

export function isDbId(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_DB_ID;
}

/** The ids of `ids` that could exist in the database. */
export function dbIds(ids: readonly number[]): number[] {
  return ids.filter(isDbId);
}
