import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';

/** Something holding a parked long-poll that can be answered now (if it still waits). */
export interface Wakeable {
  wake(): void;
}

/**
 * Most time one turn of the event loop spends answering woken long-polls. Each answer writes a
 * response (serialisation, headers, a socket write); answering the 10,000 polls of one message in
 * one go would block the loop for a second. In slices of this length (plus the ticks each answer
 * leaves: 'finish', 'close'), the loop keeps serving other requests (the send's own response
 * first) in between.
 */
export const WAKE_SLICE_MS = 5;

/**
 * Length of a turn of the loop aimed at while woken polls are answered. A slice's answers leave
 * work to the rest of the turn (their 'finish'/'close' ticks, run right after the slice; the
 * sockets' I/O): measured at 1–3× the slice itself, it made turns of 15–25 ms out of 5 ms slices.
 * Each slice is shortened by the share of the turn the previous one's aftermath took.
 */
export const WAKE_TURN_MS = 10;

/** Largest share of a turn assumed to be left to the rest of the loop (slices ≥ turn / (1 + this)). */
const MAX_AFTERMATH = 4;

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
  /** When the previous slice ended (-1: none, or nothing left then) and how long it ran. */
  private lastEnd = -1;
  private lastLength = 0;
  /** Smoothed ratio of the time between slices to the slice before (see WAKE_TURN_MS). */
  private aftermath = 1;

  /** `sliceMs`: the longest slice; `turnMs`: {@link WAKE_TURN_MS}. */
  constructor(
    private readonly sliceMs = WAKE_SLICE_MS,
    private readonly turnMs = WAKE_TURN_MS,
  ) {}

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
    const start = performance.now();
    if (this.lastEnd >= 0 && this.lastLength > 0) {
      const ratio = (start - this.lastEnd) / this.lastLength;
      this.aftermath = Math.min(MAX_AFTERMATH, (this.aftermath + ratio) / 2);
    }
    const end = start + Math.min(this.sliceMs, this.turnMs / (1 + this.aftermath));
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
      this.lastEnd = performance.now();
      this.lastLength = this.lastEnd - start;
    } else {
      this.pending = [];
      this.next = 0;
      this.lastEnd = -1;
    }
  };
}
