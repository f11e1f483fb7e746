const PG_UNIQUE_VIOLATION = '23505';

/** Was `err` a unique-index violation (optionally of one of the named indexes)? */
export function isUniqueViolation(err: unknown, constraint?: string | string[]): boolean {
  const e = err as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = e?.driverError?.code ?? e?.code;
  const name = e?.driverError?.constraint ?? e?.constraint;
  if (code !== PG_UNIQUE_VIOLATION) return false;
  if (constraint === undefined) return true;
  return (Array.isArray(constraint) ? constraint : [constraint]).includes(name ?? '');
}

/**
 * Runs `work` (usually a whole transaction) and turns a violation of one of `constraints` into
 * `toError()`: the loser of a race between "does it exist?" and INSERT gets the same answer as
 * a request that found the row, never a 500.
 */
export async function onUniqueViolation<T>(
  work: () => Promise<T>,
  constraints: string | string[],
  toError: () => Error,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err, constraints)) throw toError();
    throw err;
  }
}
