import { KindWorker } from './kind-worker';

interface Job {
  id: string;
}

/** A fake queue: `due` jobs handed out by fetch; each run waits until the test finishes it. */
function harness(concurrency: number, pollIntervalMs = 60_000) {
  const due: Job[] = [];
  const fetches: number[] = [];
  const finishers = new Map<string, () => void>();
  let next = 0;
  const worker = new KindWorker<Job>({
    concurrency,
    pollIntervalMs,
    fetch: async (limit) => {
      fetches.push(limit);
      return due.splice(0, limit);
    },
    run: (job) => new Promise<void>((resolve) => finishers.set(job.id, resolve)),
  });
  const add = (n: number) => {
    for (let i = 0; i < n; i++) due.push({ id: `j${++next}` });
  };
  const finish = (id: string) => {
    finishers.get(id)!();
    finishers.delete(id);
  };
  return { worker, due, fetches, finishers, add, finish };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('KindWorker', () => {
  it('runs at most `concurrency` jobs and fetches again as soon as one finishes', async () => {
    const h = harness(2);
    h.add(5);
    h.worker.start();
    await tick();
    expect([...h.finishers.keys()]).toEqual(['j1', 'j2']);
    expect(h.fetches).toEqual([2]);
    h.finish('j1');
    await tick();
    await tick();
    expect([...h.finishers.keys()]).toEqual(['j2', 'j3']);
    expect(h.fetches).toEqual([2, 1]);
    h.finish('j2');
    h.finish('j3');
    await tick();
    await tick();
    expect([...h.finishers.keys()]).toEqual(['j4', 'j5']);
    for (const id of ['j4', 'j5']) h.finish(id);
    await h.worker.stop(1000);
  });

  it('sleeps when the queue is empty and wakes up on demand', async () => {
    const h = harness(4);
    h.worker.start();
    await tick();
    expect(h.fetches).toEqual([4]);
    h.add(1);
    await tick();
    expect(h.fetches).toEqual([4]); // asleep until the next poll (a minute away)
    h.worker.wake();
    await tick();
    await tick();
    expect(h.fetches).toEqual([4, 4]);
    expect([...h.finishers.keys()]).toEqual(['j1']);
    // A job finishing with slots to spare does not trigger a fetch.
    h.finish('j1');
    await tick();
    await tick();
    expect(h.fetches).toEqual([4, 4]);
    await h.worker.stop(1000);
  });

  it('does not lose a wake-up that comes during a fetch', async () => {
    const h = harness(1);
    let releaseFetch: (() => void) | undefined;
    const worker = new KindWorker<Job>({
      concurrency: 1,
      pollIntervalMs: 60_000,
      fetch: async (limit) => {
        h.fetches.push(limit);
        const batch = h.due.splice(0, limit);
        // The first fetch has read an empty queue and is still on its way back.
        if (h.fetches.length === 1) await new Promise<void>((r) => (releaseFetch = r));
        return batch;
      },
      run: async () => undefined,
    });
    worker.start();
    await tick();
    h.add(1);
    worker.wake();
    releaseFetch!();
    await tick();
    await tick();
    await tick();
    // Without the wake-up, the job would wait for the next poll, a minute away.
    expect(h.fetches.length).toBeGreaterThanOrEqual(2);
    expect(h.due).toEqual([]);
    await worker.stop(1000);
  });

  it('stops fetching at stop, waits for running jobs, and reports those that outlast the timeout', async () => {
    const h = harness(3);
    h.add(3);
    h.worker.start();
    await tick();
    const stopping = h.worker.stop(200);
    h.finish('j1');
    const unfinished = await stopping;
    expect(unfinished.sort()).toEqual(['j2', 'j3']);
    h.add(1);
    h.worker.wake();
    await tick();
    expect(h.fetches).toEqual([3]);
  });
});
