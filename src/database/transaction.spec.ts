import type { DataSource, EntityManager } from 'typeorm';
import { currentManager, onCommit, runInTransaction, runSingleStatement } from './transaction';

/** runInTransaction only asks the data source for a transaction; this one has no database. */
const manager = {} as EntityManager;
const noDatabase = {
  transaction: (work: (m: EntityManager) => Promise<unknown>) => work(manager),
} as unknown as DataSource;

describe('runSingleStatement', () => {
  it('has no transaction manager and runs after-commit callbacks only once the work succeeded', async () => {
    const seen: string[] = [];
    const result = await runSingleStatement(async () => {
      expect(currentManager()).toBeUndefined();
      onCommit(() => seen.push('after commit'));
      await Promise.resolve();
      seen.push('statement');
      return 42;
    });
    expect(result).toBe(42);
    expect(seen).toEqual(['statement', 'after commit']);
  });

  it('drops the after-commit callbacks when the work fails', async () => {
    const seen: string[] = [];
    await expect(
      runSingleStatement(async () => {
        onCommit(() => seen.push('after commit'));
        await Promise.resolve();
        throw new Error('statement failed');
      }),
    ).rejects.toThrow('statement failed');
    expect(seen).toEqual([]);
  });

  it('refuses a transaction inside it: the unit promised one write statement', async () => {
    await expect(runSingleStatement(() => runInTransaction(noDatabase, async () => 1))).rejects.toThrow(
      /inside runSingleStatement/,
    );
  });

  it('joins an outer transaction: its statements use the transaction, its callbacks wait for COMMIT', async () => {
    const seen: string[] = [];
    await runInTransaction(noDatabase, async () => {
      await runSingleStatement(async () => {
        expect(currentManager()).toBe(manager);
        onCommit(() => seen.push('after commit'));
      });
      seen.push('rest of the transaction');
    });
    expect(seen).toEqual(['rest of the transaction', 'after commit']);
  });

  it('a callback registered outside any unit of work runs at once', () => {
    const seen: string[] = [];
    onCommit(() => seen.push('now'));
    expect(seen).toEqual(['now']);
  });
});
