import { Injectable, Logger } from '@nestjs/common';
import { ContextSlot } from '../common/async-context';
import { onCommit } from '../database/transaction';

/**
 * A domain event's class. Events are plain classes defined in the module that publishes them
 * (`MessageSentEvent` in messaging, `UserReactivatedEvent` in users, …); subscribers name the
 * class, so searching for it finds the publisher and every listener.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DomainEventClass<E extends object> = abstract new (...args: any[]) => E;

export type DomainEventHandler<E> = (event: E) => void | Promise<void>;

/**
 * The data fields of a domain event class, for constructors that take them as one object:
 * `constructor(fields: DomainEventFields<MyEvent>) { Object.assign(this, fields); }`.
 */
/** An event's data fields (its methods left out). */
export type DomainEventFields<E> = {
  readonly [K in keyof E as E[K] extends (...args: never[]) => unknown ? never : K]: E[K];
};

const detached = new ContextSlot<true>();

/**
 * True inside an after-commit handler (`subscribe`), work done off any request: the test helper
 * that counts a request's statements leaves such work out, since it may run during a later
 * request's measurement.
 */
export function inDetachedHandler(): boolean {
  return detached.getStore() === true;
}

/** A handler as stored: the bus calls it only with events of the class it was registered for. */
type StoredHandler = (event: object) => void | Promise<void>;

/**
 * How modules react to what happens in other modules without importing them (the modules above
 * the publisher in the DAG subscribe; the publisher knows none of them). Modelled on Vendure's
 * EventBus (packages/core/src/event-bus): events are classes, subscriptions are by class, and
 * delivery waits for the publisher's transaction.
 *
 * Two kinds of subscription:
 * - {@link subscribe}: after COMMIT (dropped on rollback), off the request: the publisher does
 *   not wait, and a failure is logged, never surfaced to the caller. `whenIdle()` waits for them.
 * - {@link subscribeInTransaction}: inside the publisher's transaction, awaited by `publish` in
 *   subscription order, like Vendure's blocking handlers. For reactions that are part of the
 *   action itself (the Notification Bot's notices, `peer_add` events on reactivation): they see
 *   the uncommitted rows, queue their client events in the same order as the publisher's, roll
 *   back with it, and a failure fails the request.
 *
 * Subscribe at start-up (`onModuleInit`). Matching is by exact class, as Vendure's `ofType`.
 */
@Injectable()
export class DomainEventBus {
  private readonly afterCommit = new Map<DomainEventClass<object>, StoredHandler[]>();
  private readonly inTransaction = new Map<DomainEventClass<object>, StoredHandler[]>();
  private readonly running = new Set<Promise<void>>();
  private readonly logger = new Logger('DomainEvents');

  /** Runs `handler` after the publishing transaction commits; failures are logged. */
  subscribe<E extends object>(type: DomainEventClass<E>, handler: DomainEventHandler<E>): () => void {
    return this.add(this.afterCommit, type, handler);
  }

  /** Runs `handler` inside the publishing transaction, before `publish` resolves. */
  subscribeInTransaction<E extends object>(type: DomainEventClass<E>, handler: DomainEventHandler<E>): () => void {
    return this.add(this.inTransaction, type, handler);
  }

  /**
   * Whether `publish(event of type)` would run handlers inside the publisher's transaction. A
   * publisher that writes with one statement and no transaction (runSingleStatement) asks first:
   * such handlers may write, so it must open a transaction when there are any.
   */
  hasInTransactionSubscribers(type: DomainEventClass<object>): boolean {
    return (this.inTransaction.get(type)?.length ?? 0) > 0;
  }

  /**
   * Publishes `event`: in-transaction handlers run now, one after the other (their errors reach
   * the caller); after-commit handlers are queued for COMMIT (or run now outside a transaction).
   */
  async publish(event: object): Promise<void> {
    const type = event.constructor as DomainEventClass<object>;
    const later = this.afterCommit.get(type);
    if (later && later.length > 0) {
      const handlers = [...later];
      onCommit(() => {
        for (const handler of handlers) this.runDetached(event, handler);
      });
    }
    for (const handler of [...(this.inTransaction.get(type) ?? [])]) await handler(event);
  }

  /** Resolves when every after-commit handler started so far has finished (tests, shutdown). */
  async whenIdle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private add<E extends object>(
    registry: Map<DomainEventClass<object>, StoredHandler[]>,
    type: DomainEventClass<E>,
    handler: DomainEventHandler<E>,
  ): () => void {
    const stored = handler as StoredHandler;
    const list = registry.get(type) ?? [];
    list.push(stored);
    registry.set(type, list);
    return () => {
      const at = list.indexOf(stored);
      if (at >= 0) list.splice(at, 1);
    };
  }

  private runDetached(event: object, handler: StoredHandler): void {
    const run: Promise<void> = Promise.resolve()
      .then(() => detached.run(true, () => handler(event)))
      .catch((err: unknown) =>
        this.logger.error(
          `${event.constructor.name}: handler failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        ),
      )
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }
}
