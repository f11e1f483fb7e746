import type { Logger } from '@nestjs/common';

/**
 * A pass over a table of due work (scheduled messages, missed-message emails), run every
 * `intervalMs` in this process: never two at once, errors logged (the next tick tries again), and
 * `stop()` waits for a pass under way. The pass itself checks {@link stopped} between items.
 */
export class PeriodicPass {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stoppedFlag = false;

  constructor(
    private readonly what: string,
    private readonly pass: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stoppedFlag = true;
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  private tick(): void {
    if (this.running || this.stoppedFlag) return;
    this.running = this.pass()
      .catch((err: unknown) => this.logger.error(`${this.what} failed: ${String(err)}`))
      .finally(() => (this.running = undefined));
  }
}
