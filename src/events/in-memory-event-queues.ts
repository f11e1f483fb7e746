import { EventQueue, PollAnswer, QueuedEvent, QueueOptions } from './event-queue';
import type { QueueCustomizer, EventQueueBackend, EventQueueStats, ZulipEvent } from './event-queue-backend';
import { queueAcceptsEvent } from './event-filter';
import { EventQueueRegistry } from './event-queue.registry';
import { EventQueueErrors } from './event.errors';
import { PollWaker } from './poll-waker';

/** Event queues in this process (the default when REDIS_URL is not set). */
export class InMemoryEventQueues implements EventQueueBackend {
  readonly registry: EventQueueRegistry;
  private delivered = 0;
  private readonly waker = new PollWaker();

  constructor(opts: { maxQueuesPerUser?: number } = {}) {
    this.registry = new EventQueueRegistry(opts.maxQueuesPerUser);
  }

  async allocate(options: QueueOptions): Promise<{ id: string; lastEventId: number }> {
    const queue = this.registry.allocate(options);
    return { id: queue.id, lastEventId: queue.lastEventId };
  }

  async deliver(realmId: number, event: ZulipEvent, userIds: number[], customize?: QueueCustomizer): Promise<void> {
    this.deliverNow(realmId, event, userIds, customize);
  }

  /**
   * Synchronous delivery: events reach queues before this returns (a poll arriving next reads
   * them). The long-polls parked on those queues are answered from the next turn of the loop on,
   * a slice of them per turn (PollWaker).
   */
  deliverNow(realmId: number, event: ZulipEvent, userIds: Iterable<number>, customize?: QueueCustomizer): void {
    const woken: EventQueue[] = [];
    for (const userId of new Set(userIds)) {
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
    this.waker.wakeLater(woken);
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
    this.registry.closeAll();
  }

  releasePolls(): void {
    for (const queue of this.registry.parked()) queue.release();
  }

  async stats(): Promise<EventQueueStats> {
    return { queues: this.registry.size, parkedPolls: this.registry.parked().length, delivered: this.delivered };
  }
}
