import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';

/** Something holding a parked long-poll that can be answered now (if it still waits). */
export interface Wakeable {
  wake(): void;
}

/**
 * Most time one turn of the event loop spends answering woken long-polls. Each answer writes a
 * response (serialisation, headers, a socket write); answering the 10,000 polls of one message in
 * one go would block the loop for a second. In slices of this length, the loop keeps serving
 * other requests (the send's own response first) in between. The turn itself lasts longer: the
 * ticks each answer leaves ('finish', 'close', stream callbacks) run right after the slice, as
 * does a slice of a large delivery (InMemoryEventQueues' drain, same check phase), and a
 * scavenge may fall in it; 5 ms slices let turns reach 35–40 ms at 10,000 polls, 2 ms ones
 * 25–35 ms with the same delivery time (issue 15's loop-delay target is 20 ms).
 */
export const WAKE_SLICE_MS = 2;

/**
 * Answers woken long-polls over several turns of the event loop, in the order they were woken,
 * a time slice per turn (setImmediate: after the I/O of the turn, so responses written meanwhile,
 * e.g. the send's, go first). Order of events within a queue does not depend on it: events are in
 * their queues before the polls are woken, and a poll is answered with everything pending then.
 * Turns are never one poll each: the per-turn cost would double the work.
 */
export class PollWaker {
  private pending: Wakeable[] = [];
  private next = 0;
  private scheduled = false;

  constructor(private readonly sliceMs = WAKE_SLICE_MS) {}

  /** Answers `woken` from the next turn of the loop on, after what was woken before. */
  wakeLater(woken: readonly Wakeable[]): void {
    if (woken.length === 0) return;
    for (const w of woken) this.pending.push(w);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.run);
    }
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const end = performance.now() + this.sliceMs;
    const pending = this.pending;
    while (this.next < pending.length) {
      const w = pending[this.next];
      pending[this.next++] = undefined as unknown as Wakeable;
      try {
        w.wake();
      } catch (err) {
        // One poll failing to answer must not stop the others.
        new Logger('Events').error(`answering a long-poll failed: ${String(err)}`);
      }
      if (performance.now() >= end) break;
    }
    if (this.next < pending.length) {
      this.scheduled = true;
      setImmediate(this.run);
    } else {
      this.pending = [];
      this.next = 0;
    }
  };
}
