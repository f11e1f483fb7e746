import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { runInTransaction } from '../database/transaction';
import { DomainEventBus } from './domain-event-bus';

class Happened {
  constructor(readonly n: number) {}
}
class Other {}

/** runInTransaction only asks the data source for a transaction; this one has no database. */
const noDatabase = { transaction: (work: (manager: unknown) => Promise<unknown>) => work({}) } as unknown as DataSource;

describe('DomainEventBus', () => {
  let bus: DomainEventBus;
  beforeEach(() => {
    bus = new DomainEventBus();
  });

  it('runs in-transaction handlers during publish, in subscription order, for the exact class only', async () => {
    const seen: string[] = [];
    bus.subscribeInTransaction(Happened, async (e) => {
      await Promise.resolve();
      seen.push(`first ${e.n}`);
    });
    bus.subscribeInTransaction(Happened, (e) => void seen.push(`second ${e.n}`));
    bus.subscribeInTransaction(Other, () => void seen.push('other'));
    await runInTransaction(noDatabase, async () => {
      await bus.publish(new Happened(1));
      seen.push('after publish');
    });
    expect(seen).toEqual(['first 1', 'second 1', 'after publish']);
  });

  it('an in-transaction failure reaches the publisher', async () => {
    bus.subscribeInTransaction(Happened, () => {
      throw new Error('refused');
    });
    await expect(bus.publish(new Happened(1))).rejects.toThrow('refused');
  });

  it('runs after-commit handlers only after COMMIT, off the publisher, and drops them on rollback', async () => {
    const seen: number[] = [];
    bus.subscribe(Happened, (e) => void seen.push(e.n));
    await runInTransaction(noDatabase, async () => {
      await bus.publish(new Happened(1));
      expect(seen).toEqual([]);
    });
    await bus.whenIdle();
    expect(seen).toEqual([1]);

    await expect(
      runInTransaction(noDatabase, async () => {
        await bus.publish(new Happened(2));
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    await bus.whenIdle();
    expect(seen).toEqual([1]);
  });

  it('logs after-commit failures and still runs the other handlers; whenIdle waits for slow ones', async () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const seen: string[] = [];
    bus.subscribe(Happened, () => Promise.reject(new Error('push provider down')));
    bus.subscribe(Happened, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen.push('slow');
    });
    await bus.publish(new Happened(1)); // outside a transaction: started at once
    await bus.whenIdle();
    expect(seen).toEqual(['slow']);
    expect(error).toHaveBeenCalledWith(expect.stringContaining('Happened: handler failed: Error: push provider down'));
    error.mockRestore();
  });

  it('unsubscribes', async () => {
    const seen: number[] = [];
    const off = bus.subscribeInTransaction(Happened, (e) => void seen.push(e.n));
    await bus.publish(new Happened(1));
    off();
    await bus.publish(new Happened(2));
    expect(seen).toEqual([1]);
  });
});
