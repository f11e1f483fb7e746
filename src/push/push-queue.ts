/**
 * An in-process job queue for push deliveries: a bounded number of jobs run at once; a job asking
 * to be retried waits an exponentially growing, jittered delay (at least the provider's
 * Retry-After) and runs again, up to a maximum number of attempts. Nothing is persisted: jobs
 * waiting when the process stops are dropped (and counted), as notifications are perishable.
 */

export interface QueueLimits {
  concurrency: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxQueued: number;
  shutdownTimeoutMs: number;
}

export type JobOutcome =
  | { status: 'done' }
  | { status: 'retry'; reason: string; retryAfterMs?: number }
  /** Finished without success and not worth retrying (the worker has dealt with it). */
  | { status: 'dropped'; reason: string };

export interface QueueHooks<J> {
  /** The last attempt failed, or a retry could not be scheduled (too long a Retry-After, shutdown). */
  onGiveUp(job: J, attempts: number, reason: string): void;
  /** A retry was scheduled `delayMs` from now. */
  onRetry?(job: J, attempts: number, delayMs: number, reason: string): void;
  /** The queue was full and refused the job. */
  onOverflow?(job: J): void;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A waiting retry must not keep a process alive that is otherwise done.
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Entry<J> {
  job: J;
  /** Attempts made so far. */
  attempts: number;
}

export class RetryQueue<J> {
  private readonly ready: Entry<J>[] = [];
  private readonly waiting = new Map<unknown, Entry<J>>();
  private readonly inFlight = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];
  private stopped = false;

  constructor(
    private readonly limits: QueueLimits,
    private readonly worker: (job: J, attempt: number) => Promise<JobOutcome>,
    private readonly hooks: QueueHooks<J>,
    private readonly random: () => number = Math.random,
    private readonly timers: Timers = realTimers,
  ) {}

  /** Jobs queued, waiting for a retry, or running. */
  get size(): number {
    return this.ready.length + this.waiting.size + this.inFlight.size;
  }

  /** Queues a job; false when the queue is stopped or full (the job is dropped). */
  push(job: J): boolean {
    if (this.stopped) return false;
    if (this.size >= this.limits.maxQueued) {
      this.hooks.onOverflow?.(job);
      return false;
    }
    this.ready.push({ job, attempts: 0 });
    this.pump();
    return true;
  }

  /**
   * How long to wait after `attempts` failed attempts: base·2^(attempts-1) capped at retryMaxMs,
   * with "equal jitter" (half fixed, half random), and never less than the provider's
   * Retry-After. Undefined when the provider asks for more than retryMaxMs.
   */
  retryDelay(attempts: number, retryAfterMs?: number): number | undefined {
    if (retryAfterMs !== undefined && retryAfterMs > this.limits.retryMaxMs) return undefined;
    const exp = Math.min(this.limits.retryMaxMs, this.limits.retryBaseMs * 2 ** Math.min(attempts - 1, 40));
    const jittered = Math.round(exp / 2 + (this.random() * exp) / 2);
    return Math.max(jittered, retryAfterMs ?? 0);
  }

  /** Resolves when nothing is queued, waiting or running. */
  whenIdle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops taking jobs, cancels waiting retries and queued jobs, and waits for running sends (at
   * most shutdownTimeoutMs). Returns how many jobs were abandoned.
   */
  async stop(): Promise<{ abandoned: number; unfinished: number }> {
    this.stopped = true;
    let abandoned = this.ready.length + this.waiting.size;
    this.ready.length = 0;
    for (const handle of this.waiting.keys()) this.timers.clearTimeout(handle);
    this.waiting.clear();
    let unfinished = 0;
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        Promise.allSettled([...this.inFlight]).then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), this.limits.shutdownTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) unfinished = this.inFlight.size;
    }
    abandoned += unfinished;
    this.notifyIdle(true);
    return { abandoned, unfinished };
  }

  private pump(): void {
    while (!this.stopped && this.inFlight.size < this.limits.concurrency && this.ready.length > 0) {
      const entry = this.ready.shift()!;
      const run: Promise<void> = this.run(entry).finally(() => {
        this.inFlight.delete(run);
        this.pump();
        this.notifyIdle();
      });
      this.inFlight.add(run);
    }
  }

  private async run(entry: Entry<J>): Promise<void> {
    entry.attempts++;
    let outcome: JobOutcome;
    try {
      outcome = await this.worker(entry.job, entry.attempts);
    } catch (err) {
      outcome = { status: 'retry', reason: err instanceof Error ? err.message : String(err) };
    }
    if (outcome.status !== 'retry') return;
    if (this.stopped) {
      this.hooks.onGiveUp(entry.job, entry.attempts, `shutting down (${outcome.reason})`);
      return;
    }
    if (entry.attempts >= this.limits.maxAttempts) {
      this.hooks.onGiveUp(entry.job, entry.attempts, outcome.reason);
      return;
    }
    const delay = this.retryDelay(entry.attempts, outcome.retryAfterMs);
    if (delay === undefined) {
      this.hooks.onGiveUp(
        entry.job,
        entry.attempts,
        `${outcome.reason}; Retry-After ${outcome.retryAfterMs} ms exceeds the ${this.limits.retryMaxMs} ms limit`,
      );
      return;
    }
    this.hooks.onRetry?.(entry.job, entry.attempts, delay, outcome.reason);
    const handle = this.timers.setTimeout(() => {
      this.waiting.delete(handle);
      if (this.stopped) return;
      this.ready.push(entry);
      this.pump();
    }, delay);
    this.waiting.set(handle, entry);
  }

  private notifyIdle(force = false): void {
    if (!force && this.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
