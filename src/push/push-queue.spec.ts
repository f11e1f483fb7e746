import { JobOutcome, QueueLimits, RetryQueue, Timers } from './push-queue';

const limits: QueueLimits = {
  concurrency: 2,
  maxAttempts: 3,
  retryBaseMs: 100,
  retryMaxMs: 1000,
  maxQueued: 10,
  shutdownTimeoutMs: 50,
};

/** Timers we fire by hand: each scheduled retry is recorded with its delay. */
class ManualTimers implements Timers {
  scheduled: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  setTimeout(fn: () => void, ms: number) {
    const t = { fn, ms, cancelled: false };
    this.scheduled.push(t);
    return t;
  }
  clearTimeout(handle: unknown) {
    (handle as { cancelled: boolean }).cancelled = true;
  }
  fireAll() {
    const due = this.scheduled.filter((t) => !t.cancelled);
    this.scheduled = [];
    for (const t of due) t.fn();
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function deferred() {
  let resolve!: (o: JobOutcome) => void;
  const promise = new Promise<JobOutcome>((r) => (resolve = r));
  return { promise, resolve };
}

describe('RetryQueue', () => {
  it('runs at most `concurrency` jobs at once, in order', async () => {
    const running: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const q = new RetryQueue<string>(
      limits,
      (job) => {
        running.push(job);
        const d = deferred();
        gates.set(job, d);
        return d.promise;
      },
      { onGiveUp: () => {} },
    );
    for (const j of ['a', 'b', 'c', 'd']) q.push(j);
    await tick();
    expect(running).toEqual(['a', 'b']);
    expect(q.size).toBe(4);
    gates.get('a')!.resolve({ status: 'done' });
    await tick();
    expect(running).toEqual(['a', 'b', 'c']);
    for (const j of ['b', 'c']) gates.get(j)!.resolve({ status: 'done' });
    await tick();
    gates.get('d')!.resolve({ status: 'dropped', reason: 'x' });
    await q.whenIdle();
    expect(q.size).toBe(0);
  });

  it('retries with exponential backoff and jitter, then gives up after maxAttempts', async () => {
    const timers = new ManualTimers();
    const attempts: number[] = [];
    const retries: number[] = [];
    const gaveUp: Array<[string, number, string]> = [];
    let random = 0;
    const q = new RetryQueue<string>(
      limits,
      async (_job, attempt) => {
        attempts.push(attempt);
        return { status: 'retry', reason: `boom ${attempt}` };
      },
      {
        onGiveUp: (job, n, reason) => gaveUp.push([job, n, reason]),
        onRetry: (_job, _n, delay) => retries.push(delay),
      },
      () => random,
      timers,
    );
    q.push('job');
    await tick();
    expect(timers.scheduled.map((t) => t.ms)).toEqual([50]); // 100 ms · 2⁰, half fixed + random 0
    random = 1;
    timers.fireAll();
    await tick();
    expect(timers.scheduled.map((t) => t.ms)).toEqual([200]); // 100 ms · 2¹, random 1
    timers.fireAll();
    await tick();
    expect(attempts).toEqual([1, 2, 3]);
    expect(retries).toEqual([50, 200]);
    expect(gaveUp).toEqual([['job', 3, 'boom 3']]);
    await q.whenIdle();
  });

  it('caps the backoff and waits at least Retry-After, giving up when that is over the cap', async () => {
    const q = new RetryQueue<string>({ ...limits, maxAttempts: 20 }, async () => ({ status: 'done' }), {
      onGiveUp: () => {},
    });
    expect(q.retryDelay(10)).toBeLessThanOrEqual(1000);
    expect(q.retryDelay(10)).toBeGreaterThanOrEqual(500);
    expect(q.retryDelay(1, 700)).toBe(700);
    expect(q.retryDelay(1, 1001)).toBeUndefined();

    const timers = new ManualTimers();
    const gaveUp: string[] = [];
    let calls = 0;
    const q2 = new RetryQueue<string>(
      limits,
      async () =>
        ++calls === 1
          ? { status: 'retry', reason: '429', retryAfterMs: 600 }
          : { status: 'retry', reason: '503', retryAfterMs: 5000 },
      { onGiveUp: (_j, n, reason) => gaveUp.push(`${n}: ${reason}`) },
      () => 0,
      timers,
    );
    q2.push('x');
    await tick();
    expect(timers.scheduled.map((t) => t.ms)).toEqual([600]);
    timers.fireAll();
    await tick();
    expect(gaveUp).toEqual(['2: 503; Retry-After 5000 ms exceeds the 1000 ms limit']);
  });

  it('treats a throwing worker as a retry', async () => {
    const timers = new ManualTimers();
    const gaveUp: string[] = [];
    const q = new RetryQueue<string>(
      { ...limits, maxAttempts: 1 },
      () => Promise.reject(new Error('kaput')),
      { onGiveUp: (_j, _n, reason) => gaveUp.push(reason) },
      Math.random,
      timers,
    );
    q.push('x');
    await q.whenIdle();
    expect(gaveUp).toEqual(['kaput']);
  });

  it('refuses jobs beyond maxQueued', () => {
    const overflow: string[] = [];
    const q = new RetryQueue<string>({ ...limits, maxQueued: 2 }, () => new Promise<JobOutcome>(() => {}), {
      onGiveUp: () => {},
      onOverflow: (j) => overflow.push(j),
    });
    expect([q.push('a'), q.push('b'), q.push('c')]).toEqual([true, true, false]);
    expect(overflow).toEqual(['c']);
  });

  it('stops: cancels waiting retries, drops queued jobs, waits for running ones (bounded)', async () => {
    const timers = new ManualTimers();
    const gates: Array<ReturnType<typeof deferred>> = [];
    const gaveUp: string[] = [];
    const q = new RetryQueue<string>(
      { ...limits, concurrency: 1 },
      (job) => {
        if (job === 'retrying') return Promise.resolve({ status: 'retry', reason: 'later' });
        const d = deferred();
        gates.push(d);
        return d.promise;
      },
      { onGiveUp: (j, _n, reason) => gaveUp.push(`${j}: ${reason}`) },
      Math.random,
      timers,
    );
    q.push('retrying');
    await tick();
    expect(timers.scheduled).toHaveLength(1);
    q.push('running');
    q.push('queued');
    await tick();
    const stopping = q.stop();
    expect(timers.scheduled[0].cancelled).toBe(true);
    gates[0].resolve({ status: 'retry', reason: '503' });
    expect(await stopping).toEqual({ abandoned: 2, unfinished: 0 });
    expect(gaveUp).toEqual(['running: shutting down (503)']);
    expect(q.push('late')).toBe(false);

    // A send that never ends does not hold shutdown beyond shutdownTimeoutMs.
    const stuck = new RetryQueue<string>(limits, () => new Promise<JobOutcome>(() => {}), { onGiveUp: () => {} });
    stuck.push('forever');
    await tick();
    expect(await stuck.stop()).toEqual({ abandoned: 1, unfinished: 1 });
  });
});
