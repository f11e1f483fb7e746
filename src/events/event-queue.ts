/** One event as stored in a queue: a JSON object with a `type`, plus the queue-assigned `id`. */
export interface QueuedEvent {
  id: number;
  type: string;
  [key: string]: unknown;
}

/** What a client asked for at registration time. */
export interface QueueOptions {
  userId: number;
  realmId: number;
  /** null = every event type. */
  eventTypes: string[] | null;
  allPublicStreams: boolean;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  narrow: Array<[string, string]>;
  clientCapabilities: Record<string, boolean>;
  /** Client name (User-Agent's first token), used for local echo bookkeeping. */
  clientName: string;
}

export interface PollResult {
  events: QueuedEvent[];
}

/** How a parked long-poll is answered: with events, or with nothing when it is replaced. */
export type PollAnswer = (events: QueuedEvent[]) => void;

/** A pending long-poll. */
interface Waiter {
  answer: PollAnswer;
  timer: NodeJS.Timeout;
}

/** Most events a queue holds before the oldest unacknowledged ones are dropped. */
export const MAX_QUEUE_EVENTS = 10_000;

/**
 * Most event queues one user may have (Zulip has no such cap; see DECISIONS.md). Registering
 * one more removes the user's oldest queue, whose next poll gets BAD_EVENT_QUEUE_ID, as a
 * garbage-collected queue's does, so a client that lost its queue registers again.
 */
export const MAX_QUEUES_PER_USER = 50;

/** The events of every empty queue (never written: push replaces it with an array of its own). */
const NO_EVENTS: QueuedEvent[] = Object.freeze([]) as unknown as QueuedEvent[];

/**
 * Times are kept relative to this process's start, as small integers: a number field holding
 * Date.now() (or any number V8 does not store as an integer) points at a separate heap number in
 * every queue.
 */
const ACTIVITY_EPOCH = Date.now();

/** `ms` relative to ACTIVITY_EPOCH; `| 0` makes it a V8 small integer (for the first 12 days). */
function toActivity(ms: number): number {
  const relative = ms - ACTIVITY_EPOCH;
  return relative >= -0x3fffffff && relative <= 0x3fffffff ? relative | 0 : relative;
}

/**
 * A client's event queue (zerver/tornado/event_queue.py EventQueue + ClientDescriptor):
 * events get increasing ids; the client acknowledges with last_event_id, which prunes; one
 * long-poll may wait on it at a time.
 */
export class EventQueue {
  /** NO_EVENTS while empty: an idle queue holds no array of its own. */
  private events: QueuedEvent[] = NO_EVENTS;
  private nextEventId = 0;
  /** Highest id pruned (acknowledged or dropped); null until something is pruned. */
  newestPrunedId: number | null = null;
  private waiter: Waiter | undefined;
  /** lastActivity − ACTIVITY_EPOCH (see {@link toActivity}). */
  private activity = toActivity(Date.now());

  constructor(
    readonly id: string,
    readonly options: QueueOptions,
  ) {}

  /** When the queue was last polled or a poll on it ended (ms since the Unix epoch). */
  get lastActivity(): number {
    return this.activity + ACTIVITY_EPOCH;
  }

  set lastActivity(ms: number) {
    this.activity = toActivity(ms);
  }

  wants(type: string): boolean {
    if (type === 'heartbeat') return true;
    return this.options.eventTypes === null || this.options.eventTypes.includes(type);
  }

  get connected(): boolean {
    return this.waiter !== undefined;
  }

  get lastEventId(): number {
    return this.nextEventId - 1;
  }

  /**
   * Adds an event. `wake` false leaves a parked poll parked: the caller answers it later through
   * {@link wake} (delivery to many queues answers their polls over several turns of the loop).
   */
  push(event: Omit<QueuedEvent, 'id'>, wake = true): void {
    const queued = { ...event, id: this.nextEventId++ } as QueuedEvent;
    if (this.events === NO_EVENTS) this.events = [];
    this.events.push(queued);
    if (this.events.length > MAX_QUEUE_EVENTS) {
      const dropped = this.events.splice(0, this.events.length - MAX_QUEUE_EVENTS);
      this.newestPrunedId = dropped[dropped.length - 1].id;
    }
    if (wake) this.wake();
  }

  /** Drops events the client has acknowledged (id ≤ lastEventId). */
  prune(lastEventId: number): void {
    let n = 0;
    while (n < this.events.length && this.events[n].id <= lastEventId) n++;
    if (n > 0) {
      this.newestPrunedId = this.events[n - 1].id;
      // Everything acknowledged (the usual case): drop the array, an idle queue holds none.
      if (n === this.events.length) this.events = NO_EVENTS;
      else this.events.splice(0, n);
    }
  }

  pending(): QueuedEvent[] {
    return this.events.slice();
  }

  /**
   * Parks a long-poll; `heartbeatMs` later a heartbeat event ends it. A newer poll replaces an
   * older one (which then answers with no events). `cancel` ends this poll only, if still parked.
   */
  wait(heartbeatMs: number): { promise: Promise<QueuedEvent[]>; cancel: () => void } {
    let cancel!: () => void;
    const promise = new Promise<QueuedEvent[]>((resolve) => {
      cancel = this.park(heartbeatMs, resolve);
    });
    return { promise, cancel };
  }

  /** {@link wait} with a callback instead of a promise: `answer` is called once; returns `cancel`. */
  park(heartbeatMs: number, answer: PollAnswer): () => void {
    this.finishWaiter([]);
    this.lastActivity = Date.now();
    const timer = setTimeout(() => this.push({ type: 'heartbeat' }), heartbeatMs);
    timer.unref?.();
    const waiter: Waiter = { answer, timer };
    this.waiter = waiter;
    return () => {
      if (this.waiter === waiter) this.finishWaiter([]);
    };
  }

  /** Answers the parked poll, if any, with the pending events, if any. */
  wake(): void {
    if (this.waiter && this.events.length > 0) this.finishWaiter(this.pending());
  }

  private finishWaiter(events: QueuedEvent[]): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = undefined;
    clearTimeout(w.timer);
    this.lastActivity = Date.now();
    w.answer(events);
  }

  /** Answers a parked long-poll now, with no events (shutdown). */
  release(): void {
    this.finishWaiter([]);
  }

  close(): void {
    this.finishWaiter([]);
    this.events = NO_EVENTS;
  }
}
