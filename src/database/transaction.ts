import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { ContextSlot } from '../common/async-context';
import { requestMemo } from '../common/request-scope';

/**
 * A unit of work: a transaction (`manager` set), or a single-statement unit (no manager: its
 * statements run in autocommit on pooled connections). Either way, callbacks registered with
 * {@link onCommit} wait for the unit to succeed.
 */
interface UnitContext {
  manager: EntityManager | undefined;
  afterCommit: Array<() => void>;
}

const storage = new ContextSlot<UnitContext>();
const logger = new Logger('Transaction');

/**
 * Runs `work` in one database transaction. Callbacks registered with {@link onCommit} while it
 * runs are called only after COMMIT succeeds (and dropped on rollback) — this is how events are
 * published only for changes that really happened (Zulip's send_event_on_commit).
 * Nested calls join the outer transaction. Opening one inside {@link runSingleStatement} is a
 * programming error (that unit promised a single write statement) and throws.
 */
export async function runInTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const outer = storage.getStore();
  if (outer?.manager) return work(outer.manager);
  if (outer) throw new Error('runInTransaction inside runSingleStatement: that unit may write only one statement');
  const ctx: { value?: UnitContext } = {};
  let result: T;
  try {
    result = await dataSource.transaction(async (manager) => {
      const tx: UnitContext = { manager, afterCommit: [] };
      ctx.value = tx;
      return storage.run(tx, () => work(manager));
    });
  } catch (err) {
    forgetRequestMemo();
    throw err;
  }
  runAfterCommit(ctx.value?.afterCommit ?? []);
  return result;
}

/**
 * Runs `work` as a single-statement unit of work: without BEGIN/COMMIT, its statements in
 * autocommit on pooled connections (repositories see no {@link currentManager}). PostgreSQL
 * makes one statement atomic by itself (a data-modifying CTE included), so when the only write
 * of an action is one statement, a transaction adds nothing but two round trips.
 *
 * After-commit semantics are those of {@link runInTransaction}: callbacks registered with
 * {@link onCommit} while `work` runs (client events, after-commit domain-event handlers, cache
 * invalidations) are called only once `work` has resolved, i.e. after its statement committed,
 * and are dropped when it throws.
 *
 * The caller's contract: `work` writes with at most one statement (it may read before it; such
 * reads see what a READ COMMITTED transaction would), and everything after that statement cannot
 * fail in a way that should undo it. Anything that would need a transaction must be decided before
 * choosing this helper (see MessageSendService); a nested runInTransaction throws. Inside an
 * outer transaction or unit, `work` simply joins it.
 */
export async function runSingleStatement<T>(work: () => Promise<T>): Promise<T> {
  if (storage.getStore()) return work();
  const unit: UnitContext = { manager: undefined, afterCommit: [] };
  let result: T;
  try {
    result = await storage.run(unit, work);
  } catch (err) {
    forgetRequestMemo();
    throw err;
  }
  runAfterCommit(unit.afterCommit);
  return result;
}

/** What the request remembered (principals) may describe rows that were rolled back. */
function forgetRequestMemo(): void {
  requestMemo()?.clear();
}

function runAfterCommit(callbacks: Array<() => void>): void {
  for (const cb of callbacks) {
    try {
      cb();
    } catch (err) {
      logger.error(`after-commit callback failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
  }
}

/**
 * Runs `cb` after the current unit of work (transaction or single-statement unit) succeeds, or
 * now when there is none.
 */
export function onCommit(cb: () => void): void {
  const unit = storage.getStore();
  if (unit) unit.afterCommit.push(cb);
  else cb();
}

/** The entity manager of the current transaction, if any (none in a single-statement unit). */
export function currentManager(): EntityManager | undefined {
  return storage.getStore()?.manager;
}
