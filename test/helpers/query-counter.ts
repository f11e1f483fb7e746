import { Client } from 'pg';
import { inDetachedHandler } from '../../src/events/domain-event-bus';

/**
 * The one SQL-statement counter of the test suite (API and service tiers). It wraps
 * `pg.Client.prototype.query` (TypeORM's postgres driver talks through it) while a count is open,
 * so every pg client in the process is counted: use it around the work of a single app.
 *
 * By default BEGIN/COMMIT/ROLLBACK and savepoints are left out, so transactions do not skew
 * comparisons, and so is the work of after-commit domain-event handlers (off the request, and
 * racing with it); `CountOptions` keeps either.
 */
export interface CountOptions {
  /** Count BEGIN, COMMIT, ROLLBACK and savepoint statements too. */
  transactionControl?: boolean;
  /** Count what after-commit domain-event handlers send too. */
  detachedHandlers?: boolean;
}

interface Recorder {
  options: CountOptions;
  active: () => boolean;
  statements: string[];
}

const TRANSACTION_CONTROL = /^\s*(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT)\b/i;
type QueryFn = (...args: unknown[]) => unknown;
const proto = Client.prototype as unknown as { query: QueryFn };
const recorders = new Set<Recorder>();
let original: QueryFn | undefined;

function statementText(first: unknown): string {
  return typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
}

function open(recorder: Recorder): () => void {
  if (recorders.size === 0) {
    const query = proto.query;
    original = query;
    proto.query = function (this: unknown, ...args: unknown[]) {
      const text = statementText(args[0]);
      const detached = inDetachedHandler();
      for (const r of recorders) {
        if (!r.active()) continue;
        if (detached && !r.options.detachedHandlers) continue;
        if (!r.options.transactionControl && TRANSACTION_CONTROL.test(text)) continue;
        r.statements.push(text);
      }
      return query.apply(this, args);
    };
  }
  recorders.add(recorder);
  return () => {
    if (!recorders.delete(recorder) || recorders.size > 0 || !original) return;
    proto.query = original;
    original = undefined;
  };
}

/** The statements sent while `fn` runs. */
export async function countQueries<T>(
  fn: () => Promise<T>,
  options: CountOptions = {},
): Promise<{ result: T; count: number; queries: string[] }> {
  const recorder: Recorder = { options, active: () => true, statements: [] };
  const close = open(recorder);
  try {
    const result = await fn();
    return { result, count: recorder.statements.length, queries: recorder.statements };
  } finally {
    close();
  }
}

/**
 * Runs `fn` and fails unless it sent exactly `expected` statements (listed in the failure).
 * Returns what `fn` returned.
 */
export async function assertQueryCount<T>(
  expected: number,
  fn: () => Promise<T>,
  options: CountOptions = {},
): Promise<T> {
  const { result, queries } = await countQueries(fn, options);
  if (queries.length !== expected) {
    const listed = queries.map((q, i) => `  ${i + 1}. ${q.replace(/\s+/g, ' ').slice(0, 300)}`).join('\n');
    throw new Error(`expected ${expected} SQL statements, got ${queries.length}:\n${listed}`);
  }
  return result;
}

/** What {@link countQueriesDuring} returns: the statements so far, and how to start over or stop. */
export interface MethodQueryCounter {
  /** The statements sent inside the method since the start or the last `reset()`. */
  readonly statements: string[];
  reset(): void;
  restore(): void;
}

/**
 * Counts only the statements sent while `target[method]` runs (for instance a service method
 * behind an HTTP route: authentication and parameter parsing happen before it, and their caches
 * would make request-level counts depend on timing). `restore()` undoes the spy.
 */
export function countQueriesDuring<T extends object, K extends keyof T & string>(
  target: T,
  method: K,
  options: CountOptions = {},
): MethodQueryCounter {
  let running = 0;
  const recorder: Recorder = { options, active: () => running > 0, statements: [] };
  const fn = target[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  const bound = fn.bind(target);
  const spy = jest.spyOn(target as unknown as Record<string, QueryFn>, method).mockImplementation(async (...args) => {
    running++;
    try {
      return await bound(...args);
    } finally {
      running--;
    }
  });
  const close = open(recorder);
  return {
    get statements() {
      return recorder.statements;
    },
    reset() {
      recorder.statements = [];
    },
    restore() {
      close();
      spy.mockRestore();
    },
  };
}
