import { performance } from 'node:perf_hooks';
import { EventQueue, PollAnswer, QueuedEvent, QueueOptions } from './event-queue';
import type { QueueCustomizer, EventQueueBackend, EventQueueStats, ZulipEvent } from './event-queue-backend';
import { queueAcceptsEvent } from './event-filter';
import { EventQueueRegistry } from './event-queue.registry';
import { EventQueueErrors } from './event.errors';
import { PollWaker } from './poll-waker';

/**
 * Recipients a delivery always reaches before it returns, whatever the time it takes (past
 * {@link SYNC_DELIVERY_MS}, the rest of a larger delivery waits for the next turns of the loop).
 */
export const SYNC_RECIPIENTS = 256;

/** Most time a delivery spends in the turn that makes it (and each later turn, per slice). */
export const SYNC_DELIVERY_MS = 4;

/** A delivery not finished in the turn that made it (see {@link InMemoryEventQueues.deliverNow}). */
interface PendingDelivery {
  realmId: number;
  event: ZulipEvent;
  users: number[];
  customize: QueueCustomizer | undefined;
  /** Users before this index have their events. */
  next: number;
  /** User → index in `users`, made when a user is served out of turn (see flushUser). */
  index: Map<number, number> | null;
  /** Users at or after `next` served out of turn already. */
  served: Set<number> | null;
}

/** Event queues in this process (the default when REDIS_URL is not set). */
export class InMemoryEventQueues implements EventQueueBackend {
  readonly registry: EventQueueRegistry;
  private delivered = 0;
  private readonly waker = new PollWaker();
  /** Deliveries still under way, oldest first (events reach each queue in this order). */
  private pendingDeliveries: PendingDelivery[] = [];
  private drainScheduled = false;
  private drainedWaiters: Array<() => void> = [];

  private readonly syncRecipients: number;
  private readonly sliceMs: number;

  /** `syncRecipients`, `sliceMs`: {@link SYNC_RECIPIENTS}, {@link SYNC_DELIVERY_MS} (for tests). */
  constructor(opts: { maxQueuesPerUser?: number; syncRecipients?: number; sliceMs?: number } = {}) {
    this.registry = new EventQueueRegistry(opts.maxQueuesPerUser);
    this.syncRecipients = opts.syncRecipients ?? SYNC_RECIPIENTS;
    this.sliceMs = opts.sliceMs ?? SYNC_DELIVERY_MS;
  }

  async allocate(options: QueueOptions): Promise<{ id: string; lastEventId: number }> {
    // Events sent before the queue exists are not its own (as if delivered already).
    this.flushUser(options.userId);
    const queue = this.registry.allocate(options);
    return { id: queue.id, lastEventId: queue.lastEventId };
  }

  async deliver(realmId: number, event: ZulipEvent, userIds: number[], customize?: QueueCustomizer): Promise<void> {
    this.deliverNow(realmId, event, userIds, customize);
  }

  /**
   * Delivery, as good as synchronous: the events are in the queues of the first recipients (at
   * least {@link SYNC_RECIPIENTS}, then as many as {@link SYNC_DELIVERY_MS} allows) before this
   * returns; the rest follow in slices over the next turns of the loop (a message to 10,000 users
   * would block the loop for tens of ms), and whatever reads a user's queues (a poll, a new queue)
   * first completes the deliveries still owed to that user, so nobody can tell. Events keep their
   * order in every queue: a delivery waits behind the unfinished ones. The long-polls parked on
   * the queues are answered from the next turn of the loop on, a slice per turn (PollWaker).
   */
  deliverNow(realmId: number, event: ZulipEvent, userIds: Iterable<number>, customize?: QueueCustomizer): void {
    const delivery: PendingDelivery = {
      realmId,
      event,
      users: [...new Set(userIds)],
      customize,
      next: 0,
      index: null,
      served: null,
    };
    if (this.pendingDeliveries.length > 0) {
      this.pendingDeliveries.push(delivery);
      return;
    }
    const woken: EventQueue[] = [];
    this.deliverSlice(delivery, woken, this.syncRecipients);
    this.waker.wakeLater(woken);
    if (delivery.next < delivery.users.length) {
      this.pendingDeliveries.push(delivery);
      this.scheduleDrain();
    }
  }

  /** Delivers to `delivery`'s next users: at least `atLeast` (≥ 1), then until the time slice ends. */
  private deliverSlice(delivery: PendingDelivery, woken: EventQueue[], atLeast: number): void {
    const { users, served } = delivery;
    const end = performance.now() + this.sliceMs;
    let i = delivery.next;
    for (let n = 0; i < users.length; n++) {
      if (n >= atLeast && ((n - atLeast) & 15) === 0 && performance.now() >= end) break;
      const userId = users[i++];
      if (served !== null && served.has(userId)) continue;
      this.deliverToUser(delivery, userId, woken);
    }
    delivery.next = i;
  }

  private deliverToUser(delivery: PendingDelivery, userId: number, woken: EventQueue[]): void {
    const { realmId, event, customize } = delivery;
    for (const queue of this.registry.queuesOfUser(userId)) {
      if (queue.options.realmId !== realmId || !queue.wants(event.type)) continue;
      const queued = customize ? customize(queue, userId) : event;
      if (queueAcceptsEvent(queue.options, queued)) {
        queue.push(queued, false);
        if (queue.connected) woken.push(queue);
        this.delivered++;
      }
    }
  }

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(this.drain);
  }

  /** One slice of the unfinished deliveries, in order; again in the next turn while some are left. */
  private readonly drain = (): void => {
    this.drainScheduled = false;
    const end = performance.now() + this.sliceMs;
    const woken: EventQueue[] = [];
    while (this.pendingDeliveries.length > 0) {
      const delivery = this.pendingDeliveries[0];
      this.deliverSlice(delivery, woken, 1);
      if (delivery.next < delivery.users.length) break;
      this.pendingDeliveries.shift();
      if (performance.now() >= end) break;
    }
    this.waker.wakeLater(woken);
    if (this.pendingDeliveries.length > 0) this.scheduleDrain();
    else for (const resolve of this.drainedWaiters.splice(0)) resolve();
  };

  /** Completes, for `userId`'s queues, every delivery still under way (oldest first). */
  private flushUser(userId: number): void {
    if (this.pendingDeliveries.length === 0) return;
    const woken: EventQueue[] = [];
    for (const delivery of this.pendingDeliveries) {
      if (delivery.index === null) {
        delivery.index = new Map();
        delivery.users.forEach((u, i) => delivery.index!.set(u, i));
      }
      const at = delivery.index.get(userId);
      if (at === undefined || at < delivery.next) continue;
      delivery.served ??= new Set();
      if (delivery.served.has(userId)) continue;
      delivery.served.add(userId);
      this.deliverToUser(delivery, userId, woken);
    }
    this.waker.wakeLater(woken);
  }

  /** Resolves when every delivery made so far has reached its queues. */
  drained(): Promise<void> {
    if (this.pendingDeliveries.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainedWaiters.push(resolve));
  }

  private queueFor(userId: number, queueId: string): EventQueue {
    const queue = this.registry.get(queueId);
    if (!queue) throw EventQueueErrors.badQueueId(queueId);
    if (queue.options.userId !== userId) {
      throw EventQueueErrors.notYourQueue();
    }
    return queue;
  }

  async getEvents(
    userId: number,
    queueId: string,
    lastEventId: number,
    dontBlock: boolean,
    heartbeatMs: number,
    onClose: (cb: () => void) => void,
    answer?: PollAnswer,
  ): Promise<QueuedEvent[] | null> {
    const queue = this.queueFor(userId, queueId);
    this.flushUser(userId);
    if (queue.newestPrunedId !== null && lastEventId < queue.newestPrunedId) {
      throw EventQueueErrors.alreadyPruned(lastEventId);
    }
    queue.prune(lastEventId);
    if (queue.newestPrunedId !== null && lastEventId !== queue.newestPrunedId) {
      throw EventQueueErrors.notInQueue(lastEventId);
    }
    queue.lastActivity = Date.now();
    const pending = queue.pending();
    if (pending.length > 0 || dontBlock) return pending;
    if (answer) {
      onClose(queue.park(heartbeatMs, answer));
      return null;
    }
    const poll = queue.wait(heartbeatMs);
    onClose(poll.cancel);
    return poll.promise;
  }

  async deleteQueue(userId: number, queueId: string): Promise<void> {
    this.queueFor(userId, queueId);
    this.registry.delete(queueId);
  }

  async collectGarbage(idleMs: number): Promise<number> {
    return this.registry.collectGarbage(idleMs);
  }

  async hasActiveClient(userId: number, withinMs: number): Promise<boolean> {
    const since = Date.now() - withinMs;
    for (const q of this.registry.queuesOfUser(userId)) if (q.connected || q.lastActivity >= since) return true;
    return false;
  }

  async close(): Promise<void> {
    this.pendingDeliveries = [];
    for (const resolve of this.drainedWaiters.splice(0)) resolve();
    this.registry.closeAll();
  }

  releasePolls(): void {
    for (const queue of this.registry.parked()) queue.release();
  }

  async stats(): Promise<EventQueueStats> {
    return { queues: this.registry.size, parkedPolls: this.registry.parked().length, delivered: this.delivered };
  }
}
