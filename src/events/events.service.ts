import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { onCommit } from '../database/transaction';
import { PollAnswer, QueuedEvent, QueueOptions } from './event-queue';
import type { ClientEvent, ClientEventType } from './client-events';
import type { EventQueueBackend, QueueInfo, ZulipEvent } from './event-queue-backend';
import { InMemoryEventQueues } from './in-memory-event-queues';
import { RedisEventQueues } from './redis-event-queues';

export type { QueueInfo, ZulipEvent } from './event-queue-backend';

/**
 * Per-recipient adjustment of an event, for what depends on the client (its capabilities and
 * register options: archived_channels, empty_topic_name, bulk_message_deletion, …) or on the user
 * (flags). Queues filter on the type of the event as sent; the customizer returns an event of
 * that type (or a heartbeat, which every queue accepts: a no-op for that queue).
 */
export type EventCustomizer = (queue: QueueInfo, userId: number) => ClientEvent;

/**
 * Event delivery (the "events" leaf module). Services call {@link sendOnCommit} inside their
 * transaction; the event reaches the recipients' queues only if and after the transaction commits.
 * Queues live in this process, or in Redis when REDIS_URL is set (several instances).
 */
@Injectable()
export class EventsService implements OnModuleInit, OnModuleDestroy {
  readonly backend: EventQueueBackend;
  private gcTimer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('Events');
  /** Deliveries to a shared backend are chained so that events keep their order. */
  private chain: Promise<void> = Promise.resolve();
  /** Set at shutdown: polls are answered at once instead of parking. */
  private draining = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const limits = { maxQueuesPerUser: config.maxQueuesPerUser };
    this.backend = config.redisUrl
      ? new RedisEventQueues(config.redisUrl, config.redisPrefix, limits)
      : new InMemoryEventQueues(limits);
  }

  onModuleInit(): void {
    this.gcTimer = setInterval(() => {
      this.backend
        .collectGarbage(this.config.queueIdleTimeoutMs)
        .then((removed) => {
          if (removed > 0) this.logger.log(`garbage-collected ${removed} idle event queue(s)`);
        })
        .catch((err: unknown) => this.logger.error(`event queue GC failed: ${String(err)}`));
    }, this.config.queueGcIntervalMs);
    this.gcTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.gcTimer) clearInterval(this.gcTimer);
    await this.chain;
    await this.backend.close();
  }

  /** Queue `event` for `userIds`, delivered after the current transaction commits. */
  sendOnCommit(realmId: number, event: ClientEvent, userIds: Iterable<number>, customize?: EventCustomizer): void {
    const recipients = [...new Set(userIds)];
    onCommit(() => this.deliver(realmId, event, recipients, customize));
  }

  /**
   * Like {@link sendOnCommit} for events built entirely per queue (a message dict per client
   * option set, each user's flags): `build` makes the event of type `type` for each queue.
   */
  sendOnCommitPerQueue(
    realmId: number,
    type: ClientEventType,
    userIds: Iterable<number>,
    build: EventCustomizer,
  ): void {
    const recipients = [...new Set(userIds)];
    onCommit(() => this.deliverTo(realmId, { type }, recipients, build));
  }

  /**
   * Delivers now (used after commit, and by callers that have no transaction). With in-process
   * queues the events are in the queues when this returns, as far as anyone can tell (a large
   * delivery finishes over a few turns of the loop, but reading a user's queues completes it for
   * that user first: InMemoryEventQueues.deliverNow).
   */
  deliver(realmId: number, event: ClientEvent, userIds: Iterable<number>, customize?: EventCustomizer): void {
    this.deliverTo(realmId, event, userIds, customize);
  }

  /** The queue backends store any JSON object with a `type`; contexts send {@link ClientEvent}s. */
  private deliverTo(
    realmId: number,
    event: ZulipEvent,
    userIds: Iterable<number>,
    customize: EventCustomizer | undefined,
  ): void {
    const recipients = [...new Set(userIds)];
    if (this.backend instanceof InMemoryEventQueues) {
      this.backend.deliverNow(realmId, event, recipients, customize);
      return;
    }
    const backend = this.backend;
    this.chain = this.chain
      .then(() => backend.deliver(realmId, event, recipients, customize))
      .catch((err: unknown) => this.logger.error(`event delivery failed: ${String(err)}`));
  }

  /** Resolves when every delivery started so far has reached the backend (and its queues). */
  flush(): Promise<void> {
    const backend = this.backend;
    return backend instanceof InMemoryEventQueues ? this.chain.then(() => backend.drained()) : this.chain;
  }

  allocateQueue(options: QueueOptions): Promise<{ id: string; lastEventId: number }> {
    return this.backend.allocate(options);
  }

  heartbeatMs(): number {
    return this.config.heartbeatMinMs + Math.floor(Math.random() * (this.config.heartbeatJitterMs + 1));
  }

  /**
   * GET /events: acknowledge through lastEventId, then return pending events or long-poll (with
   * `answer`: a parked poll resolves with null and is answered through `answer`).
   */
  getEvents(
    userId: number,
    queueId: string,
    lastEventId: number,
    dontBlock: boolean,
    onClose: (cb: () => void) => void,
    answer?: PollAnswer,
  ): Promise<QueuedEvent[] | null> {
    const noWait = dontBlock || this.draining;
    return this.backend.getEvents(userId, queueId, lastEventId, noWait, this.heartbeatMs(), onClose, answer);
  }

  /** Shutdown: answers the parked long-polls now (clients poll again elsewhere) and parks no more. */
  drain(): void {
    this.draining = true;
    this.backend.releasePolls();
  }

  deleteQueue(userId: number, queueId: string): Promise<void> {
    return this.backend.deleteQueue(userId, queueId);
  }

  /** Is the user at a client now (for push notifications: "idle" users get pushes)? */
  hasActiveClient(userId: number, withinMs = 140_000): Promise<boolean> {
    return this.backend.hasActiveClient(userId, withinMs);
  }
}
