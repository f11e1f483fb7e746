import { Errors, ZulipError } from '../common/errors/zulip-error';
import { EventQueue, QueuedEvent, QueueOptions } from './event-queue';
import type { QueueCustomizer, EventQueueBackend, ZulipEvent } from './event-queue-backend';
import { queueAcceptsEvent } from './event-filter';
import { EventQueueRegistry } from './event-queue.registry';

/** Event queues in this process (the default when REDIS_URL is not set). */
export class InMemoryEventQueues implements EventQueueBackend {
  readonly registry = new EventQueueRegistry();

  async allocate(options: QueueOptions): Promise<{ id: string; lastEventId: number }> {
    const queue = this.registry.allocate(options);
    return { id: queue.id, lastEventId: queue.lastEventId };
  }

  async deliver(realmId: number, event: ZulipEvent, userIds: number[], customize?: QueueCustomizer): Promise<void> {
    this.deliverNow(realmId, event, userIds, customize);
  }

  /** Synchronous delivery (events reach queues before this returns). */
  deliverNow(realmId: number, event: ZulipEvent, userIds: Iterable<number>, customize?: QueueCustomizer): void {
    for (const userId of new Set(userIds)) {
      for (const queue of this.registry.queuesOfUser(userId)) {
        if (queue.options.realmId !== realmId || !queue.wants(event.type)) continue;
        const queued = customize ? customize(queue, userId) : event;
        if (queueAcceptsEvent(queue.options, queued)) queue.push(queued);
      }
    }
  }

  private queueFor(userId: number, queueId: string): EventQueue {
    const queue = this.registry.get(queueId);
    if (!queue)
      throw new ZulipError(`Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: queueId });
    if (queue.options.userId !== userId) {
      throw Errors.badRequest('You are not authorized to get events from this queue');
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
  ): Promise<QueuedEvent[]> {
    const queue = this.queueFor(userId, queueId);
    if (queue.newestPrunedId !== null && lastEventId < queue.newestPrunedId) {
      throw Errors.badRequest(`An event newer than ${lastEventId} has already been pruned!`);
    }
    queue.prune(lastEventId);
    if (queue.newestPrunedId !== null && lastEventId !== queue.newestPrunedId) {
      throw Errors.badRequest(`Event ${lastEventId} was not in this queue`);
    }
    queue.lastActivity = Date.now();
    const pending = queue.pending();
    if (pending.length > 0 || dontBlock) return pending;
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
}
