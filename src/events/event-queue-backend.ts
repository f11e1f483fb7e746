import type { PollAnswer, QueuedEvent, QueueOptions } from './event-queue';

/**
 * An event as the queues store it: any JSON object with a `type`. The queues do not care about
 * shapes; what the server sends is typed by ClientEvent (client-events.ts) at EventsService.
 */
export type ZulipEvent = { type: string } & Record<string, unknown>;

/** A queue as delivery sees it: its id and what the client asked for at registration. */
export interface QueueInfo {
  id: string;
  options: QueueOptions;
}

/**
 * Per-recipient adjustment of an event (e.g. `local_message_id` only in the sender's queue, or
 * per-user message flags). Returns the event to push into that queue. (EventsService's
 * EventCustomizer is the typed form contexts use.)
 */
export type QueueCustomizer = (queue: QueueInfo, userId: number) => ZulipEvent;

/**
 * Where event queues live: in this process (the default) or in Redis (REDIS_URL), so that any
 * instance can serve GET /events for any queue and queues survive an instance restart.
 */
export interface EventQueueBackend {
  allocate(options: QueueOptions): Promise<{ id: string; lastEventId: number }>;
  deliver(realmId: number, event: ZulipEvent, userIds: number[], customize?: QueueCustomizer): Promise<void>;
  /**
   * GET /events: acknowledge through `lastEventId` (Zulip's prune rules and errors), then return
   * pending events, or long-poll until one arrives (a heartbeat after `heartbeatMs`). `onClose`
   * is called exactly when the poll parks (callers rely on that to tell a parked poll from one
   * answered at once); its callback ends the parked poll. With `answer`, a parked poll is answered
   * by calling it (once, with the events or with none) and the promise resolves with null at once:
   * the caller writes the response without a promise chain per woken poll.
   */
  getEvents(
    userId: number,
    queueId: string,
    lastEventId: number,
    dontBlock: boolean,
    heartbeatMs: number,
    onClose: (cb: () => void) => void,
    answer?: PollAnswer,
  ): Promise<QueuedEvent[] | null>;
  deleteQueue(userId: number, queueId: string): Promise<void>;
  /** Removes queues with no connected poll and no activity for `idleMs`; returns how many. */
  collectGarbage(idleMs: number): Promise<number>;
  /** Has `userId` a queue that was polled within `withinMs` (or is being polled now)? */
  hasActiveClient(userId: number, withinMs: number): Promise<boolean>;
  close(): Promise<void>;
  /** Shutdown: answers every poll parked in this process now, with no events. */
  releasePolls(): void;
  /** For metrics. */
  stats(): Promise<EventQueueStats>;
}

export interface EventQueueStats {
  /** Event queues (every instance's, with Redis). */
  queues: number;
  /** Long-polls parked in this process. */
  parkedPolls: number;
  /** Events this process has added to queues since it started. */
  delivered: number;
}
