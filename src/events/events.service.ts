import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { onCommit } from '../database/transaction';
import { EventQueue, QueuedEvent, QueueOptions } from './event-queue';
import { EventQueueRegistry } from './event-queue.registry';

/** An event before delivery: any JSON object with a `type`. */
export type ZulipEvent = { type: string } & Record<string, unknown>;

/**
 * Per-recipient adjustment of an event (e.g. `local_message_id` only in the sender's queue, or
 * per-user message flags). Returns the event to push into that queue.
 */
export type EventCustomizer = (queue: EventQueue, userId: number) => ZulipEvent;

/**
 * Event delivery (the "events" leaf module). Services call {@link sendOnCommit} inside their
 * transaction; the event reaches the recipients' queues only if and after the transaction commits.
 */
@Injectable()
export class EventsService implements OnModuleInit, OnModuleDestroy {
  readonly registry = new EventQueueRegistry();
  private gcTimer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('Events');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onModuleInit(): void {
    this.gcTimer = setInterval(() => {
      const removed = this.registry.collectGarbage(this.config.queueIdleTimeoutMs);
      if (removed > 0) this.logger.log(`garbage-collected ${removed} idle event queue(s)`);
    }, this.config.queueGcIntervalMs);
    this.gcTimer.unref();
  }

  onModuleDestroy(): void {
    if (this.gcTimer) clearInterval(this.gcTimer);
    this.registry.closeAll();
  }

  /** Queue `event` for `userIds`, delivered after the current transaction commits. */
  sendOnCommit(realmId: number, event: ZulipEvent, userIds: Iterable<number>, customize?: EventCustomizer): void {
    const recipients = [...new Set(userIds)];
    onCommit(() => this.deliver(realmId, event, recipients, customize));
  }

  /** Delivers now (used after commit, and by callers that have no transaction). */
  deliver(realmId: number, event: ZulipEvent, userIds: Iterable<number>, customize?: EventCustomizer): void {
    for (const userId of new Set(userIds)) {
      for (const queue of this.registry.queuesOfUser(userId)) {
        if (queue.options.realmId !== realmId || !queue.wants(event.type)) continue;
        queue.push(customize ? customize(queue, userId) : event);
      }
    }
  }

  allocateQueue(options: QueueOptions): EventQueue {
    return this.registry.allocate(options);
  }

  private queueFor(userId: number, queueId: string): EventQueue {
    const queue = this.registry.get(queueId);
    if (!queue) throw new ZulipError(`Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: queueId });
    if (queue.options.userId !== userId) {
      throw Errors.badRequest('You are not authorized to get events from this queue');
    }
    return queue;
  }

  /** GET /events: acknowledge through lastEventId, then return pending events or long-poll. */
  async getEvents(
    userId: number,
    queueId: string,
    lastEventId: number,
    dontBlock: boolean,
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
    const heartbeat = this.config.heartbeatMinMs + Math.floor(Math.random() * (this.config.heartbeatJitterMs + 1));
    const poll = queue.wait(heartbeat);
    onClose(poll.cancel);
    return poll.promise;
  }

  deleteQueue(userId: number, queueId: string): void {
    this.queueFor(userId, queueId);
    this.registry.delete(queueId);
  }
}
