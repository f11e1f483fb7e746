import { Injectable } from '@nestjs/common';

/** The current time, injectable so that tests can move it (time limits of edit and delete). */
@Injectable()
export class Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Tests only: shift the clock by `ms` (cumulative). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Tests only: back to real time. */
  reset(): void {
    this.offsetMs = 0;
  }
}
