/**
 * The durable job queue (src/jobs) on the whole app and a real PostgreSQL: retries with backoff,
 * permanent failures, cancellation, enqueue inside a transaction, transactional handlers,
 * scheduling at a time (with the queue's clock advanced, and in real time), deduplication by key,
 * and the depth counts for metrics.
 */
import { DataSource } from 'typeorm';
import { runInTransaction } from '../../src/database/transaction';
import { poolDb, poolOf } from '../../src/jobs/boss-db';
import { defineJobKind } from '../../src/jobs/job-kind';
import { JobsService } from '../../src/jobs/jobs.service';
import {
  advanceJobClock,
  createRunsTable,
  jobState,
  RECORD_JOB,
  registerTestKinds,
  runs,
  SHORT_JOB,
  TX_JOB,
  waitFor,
} from '../helpers/jobs';
import { startTestApp, TestApp } from '../helpers/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('job queue', () => {
  jest.setTimeout(60_000);
  let t: TestApp;
  let jobs: JobsService;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startTestApp({
      JOBS_WORKERS: 'on',
      JOBS_POLL_INTERVAL_MS: '100',
      JOBS_MAINTENANCE_INTERVAL_SECONDS: '1',
    });
    jobs = t.app.get(JobsService);
    ds = t.dataSource;
    await createRunsTable(ds);
    registerTestKinds(jobs, ds);
  });

  afterAll(async () => {
    await t?.close();
  });

  const outcomes = async (n: number) => (await runs(ds)).filter((r) => r.n === n);

  it('runs a job once', async () => {
    const id = await jobs.enqueue(RECORD_JOB, { n: 1 });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(async () => (await jobState(ds, id!)) === 'completed');
    await sleep(300);
    const rows = await outcomes(1);
    expect(rows.map((r) => [r.job_id, r.attempt, r.outcome])).toEqual([[id, 1, 'done']]);
  });

  it('retries a failing job with exponential backoff until it succeeds', async () => {
    const id = await jobs.enqueue(RECORD_JOB, { n: 2, failTimes: 2 }, { retry: { delaySeconds: 1, backoff: true } });
    await waitFor(async () => (await jobState(ds, id!)) === 'completed');
    const rows = await outcomes(2);
    expect(rows.map((r) => [r.attempt, r.outcome])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'done'],
    ]);
    // Delay·2^(n-1), randomized up to twice that: 1–2 s, then 2–4 s.
    const gap1 = rows[1].at.getTime() - rows[0].at.getTime();
    const gap2 = rows[2].at.getTime() - rows[1].at.getTime();
    expect(gap1).toBeGreaterThanOrEqual(950);
    expect(gap1).toBeLessThan(2000 + 1500);
    expect(gap2).toBeGreaterThanOrEqual(1950);
    expect(gap2).toBeLessThan(4000 + 1500);
  });

  it('gives up after the retry limit, and at once on a permanent error', async () => {
    const exhausted = await jobs.enqueue(RECORD_JOB, { n: 3, failTimes: 99 }, { retry: { limit: 1, delaySeconds: 0 } });
    const permanent = await jobs.enqueue(RECORD_JOB, { n: 4, permanent: true });
    await waitFor(async () => (await jobState(ds, exhausted!)) === 'failed');
    await waitFor(async () => (await jobState(ds, permanent!)) === 'failed');
    expect((await outcomes(3)).map((r) => r.attempt)).toEqual([1, 2]);
    expect((await outcomes(4)).map((r) => r.attempt)).toEqual([1]);
    const depth = (await jobs.depth()).find((d) => d.kind === RECORD_JOB.name)!;
    expect(depth.failed).toBeGreaterThanOrEqual(2);
  });

  it('runs a job at its time: not before, and within a poll after (real time)', async () => {
    const runAt = new Date(Date.now() + 1500);
    const id = await jobs.enqueue(RECORD_JOB, { n: 5 }, { runAt });
    await sleep(700);
    expect(await outcomes(5)).toEqual([]);
    expect(await jobState(ds, id!)).toBe('created');
    const row = await waitFor(async () => (await outcomes(5))[0]);
    expect(row.at.getTime()).toBeGreaterThanOrEqual(runAt.getTime() - 50);
    expect(row.at.getTime() - runAt.getTime()).toBeLessThan(2000);
  });

  it('keeps a job scheduled an hour ahead until the queue clock gets there', async () => {
    const id = await jobs.enqueue(RECORD_JOB, { n: 6 }, { runAt: new Date(Date.now() + 3_600_000) });
    await sleep(500);
    expect(await jobState(ds, id!)).toBe('created');
    const depth = (await jobs.depth()).find((d) => d.kind === RECORD_JOB.name)!;
    expect(depth.scheduled).toBeGreaterThanOrEqual(1);
    await advanceJobClock(ds, 3_600);
    await waitFor(async () => (await jobState(ds, id!)) === 'completed');
    expect((await outcomes(6)).map((r) => r.outcome)).toEqual(['done']);
  });

  it('cancels a job before it runs', async () => {
    const id = (await jobs.enqueue(RECORD_JOB, { n: 7 }, { runAt: new Date(Date.now() + 3_600_000) }))!;
    expect(await jobs.cancel(RECORD_JOB, id)).toBe(true);
    expect(await jobs.cancel(RECORD_JOB, id)).toBe(false);
    expect(await jobs.cancel(RECORD_JOB, '00000000-0000-0000-0000-000000000000')).toBe(false);
    expect(await jobs.cancel(RECORD_JOB, 'not-a-uuid')).toBe(false);
    await advanceJobClock(ds, 3_600);
    await sleep(500);
    expect(await jobState(ds, id)).toBe('cancelled');
    expect(await outcomes(7)).toEqual([]);
  });

  it('creates a job only if the enqueuing transaction commits (and cancels only if it commits)', async () => {
    await expect(
      runInTransaction(ds, async () => {
        await jobs.enqueue(RECORD_JOB, { n: 8 });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const committed = await runInTransaction(ds, () => jobs.enqueue(RECORD_JOB, { n: 9 }));
    await waitFor(async () => (await jobState(ds, committed!)) === 'completed');
    await sleep(300);
    expect(await outcomes(8)).toEqual([]);
    expect((await ds.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'n' = '8'`))[0].n).toBe(0);

    const later = (await jobs.enqueue(RECORD_JOB, { n: 10 }, { runAt: new Date(Date.now() + 3_600_000) }))!;
    await expect(
      runInTransaction(ds, async () => {
        expect(await jobs.cancel(RECORD_JOB, later)).toBe(true);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await jobState(ds, later)).toBe('created');
    await jobs.cancel(RECORD_JOB, later);
  });

  it('commits a transactional handler with its completion, and rolls it back when cancelled meanwhile', async () => {
    const done = await jobs.enqueue(TX_JOB, { n: 11 });
    await waitFor(async () => (await jobState(ds, done!)) === 'completed');
    expect((await outcomes(11)).map((r) => r.outcome)).toEqual(['done']);

    const cancelled = (await jobs.enqueue(TX_JOB, { n: 12, sleepMs: 1500 }))!;
    await waitFor(async () => (await jobState(ds, cancelled)) === 'active');
    expect(await jobs.cancel(TX_JOB, cancelled)).toBe(true);
    await sleep(2000);
    expect(await jobState(ds, cancelled)).toBe('cancelled');
    expect(await outcomes(12)).toEqual([]);
  });

  it('deduplicates by singletonKey under the short policy', async () => {
    const later = new Date(Date.now() + 3_600_000);
    const first = await jobs.enqueue(SHORT_JOB, { n: 13 }, { singletonKey: 'user:1', runAt: later });
    const again = await jobs.enqueue(SHORT_JOB, { n: 14 }, { singletonKey: 'user:1', runAt: later });
    const other = await jobs.enqueue(SHORT_JOB, { n: 15 }, { singletonKey: 'user:2', runAt: later });
    expect(first).not.toBeNull();
    expect(again).toBeNull();
    expect(other).not.toBeNull();
    await expect(jobs.enqueue(RECORD_JOB, { n: 16 }, { singletonKey: 'x' })).rejects.toThrow(/standard policy/);
    expect(await jobs.cancelByKey(SHORT_JOB, 'user:1')).toBe(1);
    // Once the first is cancelled, the key is free again.
    expect(await jobs.enqueue(SHORT_JOB, { n: 17 }, { singletonKey: 'user:1' })).not.toBeNull();
    await waitFor(async () => (await outcomes(17)).length === 1);
    await jobs.cancelByKey(SHORT_JOB, 'user:2');
  });

  it('reports depth per kind for metrics', async () => {
    await jobs.enqueue(RECORD_JOB, { n: 18 }, { runAt: new Date(Date.now() + 3_600_000) });
    const depth = await jobs.depth();
    expect(depth.map((d) => d.kind)).toEqual(expect.arrayContaining(['email', 'test-record', 'test-short', 'test-tx']));
    const record = depth.find((d) => d.kind === RECORD_JOB.name)!;
    expect(record).toEqual({
      kind: 'test-record',
      ready: 0,
      scheduled: 1,
      active: 0,
      failed: expect.any(Number),
      oldestReadySeconds: 0,
    });
  });

  it('does not leave a pooled connection in an aborted transaction when a pg-boss script fails', async () => {
    const db = poolDb(poolOf(ds));
    await expect(db.executeSql('BEGIN; SELECT 1/0; COMMIT;')).rejects.toThrow(/division by zero/);
    // Every connection of the app's pool still answers (one of them ran the failed script).
    const results = await Promise.all(Array.from({ length: 10 }, () => ds.query('SELECT 1 AS one')));
    expect(results.every((r: Array<{ one: number }>) => r[0].one === 1)).toBe(true);
  });

  it('refuses unregistered kinds', async () => {
    await expect(jobs.enqueue(defineJobKind<{ a: 1 }>('nobody'), { a: 1 })).rejects.toThrow(/not registered/);
  });
});
