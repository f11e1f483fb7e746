import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { requestMemo } from '../common/request-scope';

interface TxContext {
  manager: EntityManager;
  afterCommit: Array<() => void>;
}

const storage = new AsyncLocalStorage<TxContext>();
const logger = new Logger('Transaction');

/**
 * Runs `work` in one database transaction. Callbacks registered with {@link onCommit} while it
 * runs are called only after COMMIT succeeds (and dropped on rollback) — this is how events are
 * published only for changes that really happened (Zulip's send_event_on_commit).
 * Nested calls join the outer transaction.
 */
export async function runInTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const outer = storage.getStore();
  if (outer) return work(outer.manager);
  const ctx: { value?: TxContext } = {};
  let result: T;
  try {
    result = await dataSource.transaction(async (manager) => {
      const tx: TxContext = { manager, afterCommit: [] };
      ctx.value = tx;
      return storage.run(tx, () => work(manager));
    });
  } catch (err) {
    // What the request remembered (principals) may describe rows that were rolled back.
    requestMemo()?.clear();
    throw err;
  }
  for (const cb of ctx.value?.afterCommit ?? []) {
    try {
      cb();
    } catch (err) {
      logger.error(`after-commit callback failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
  }
  return result;
}

/** Runs `cb` after the current transaction commits, or now when there is no transaction. */
export function onCommit(cb: () => void): void {
  const tx = storage.getStore();
  if (tx) tx.afterCommit.push(cb);
  else cb();
}

/** The entity manager of the current transaction, if any. */
export function currentManager(): EntityManager | undefined {
  return storage.getStore()?.manager;
}
