/**
 * The fetch loop of one job kind in one process: keeps up to `concurrency` jobs running, asks the
 * database for as many as there are free slots, fetches again at once while jobs keep coming and
 * sleeps `pollIntervalMs` when none are due (a local enqueue or a finished job wakes it early).
 * pg-boss's own work() loop waits a whole polling interval after every batch and settles a batch
 * as one, so we drive its fetch/complete/fail ourselves.
 */
export interface KindWorkerDeps<J extends { id: string }> {
  concurrency: number;
  pollIntervalMs: number;
  /** Claims up to `limit` due jobs (never throws: errors are reported and give []). */
  fetch(limit: number): Promise<J[]>;
  /** Runs one job and settles it in the database (never throws). */
  run(job: J): Promise<void>;
}

export class KindWorker<J extends { id: string }> {
  private readonly running = new Map<string, Promise<void>>();
  private stopped = false;
  /** The last fetch filled every free slot, so more jobs may be waiting. */
  private maybeMore = false;
  private wakeUp: (() => void) | undefined;
  /** A wake-up came while the loop was busy (fetching): do not sleep next time. */
  private woken = false;
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly deps: KindWorkerDeps<J>) {}

  get runningCount(): number {
    return this.running.size;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Look for due jobs now instead of at the next poll. */
  wake(): void {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (wake) wake();
    else this.woken = true;
  }

  /**
   * Stops fetching and waits for running jobs, at most `timeoutMs`. Returns the ids of jobs still
   * running then (their handlers go on in the background; the caller hands them back for retry).
   */
  async stop(timeoutMs: number): Promise<string[]> {
    this.stopped = true;
    this.wake();
    await this.loop;
    if (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.running.values()]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    return [...this.running.keys()];
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const free = this.deps.concurrency - this.running.size;
      if (free > 0) {
        const jobs = await this.deps.fetch(free);
        this.maybeMore = jobs.length === free;
        for (const job of jobs) this.launch(job);
      }
      // Fewer jobs than free slots: none left, wait for the next poll. Every slot taken: the first
      // job to finish wakes us (maybeMore).
      await this.sleep();
    }
  }

  private launch(job: J): void {
    const done = this.deps.run(job).finally(() => {
      this.running.delete(job.id);
      if (this.maybeMore) this.wake();
    });
    this.running.set(job.id, done);
  }

  private sleep(): Promise<void> {
    if (this.stopped || this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeUp = resolve;
      this.timer = setTimeout(() => this.wake(), this.deps.pollIntervalMs);
      this.timer.unref();
    });
  }
}
