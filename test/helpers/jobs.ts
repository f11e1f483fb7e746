import { DataSource } from 'typeorm';
import { currentManager } from '../../src/database/transaction';
import { defineJobKind, JobContext, PermanentJobError } from '../../src/jobs/job-kind';
import { JobsService } from '../../src/jobs/jobs.service';

/**
 * Job kinds for the queue's own tests. Every run is recorded in `test_job_runs` (created by
 * createRunsTable in the test's cloned database), so tests can count executions across processes.
 */
export interface TestJob {
  n: number;
  /** How long the handler works before recording success. */
  sleepMs?: number;
  /** Attempts that fail (throw) before one succeeds. */
  failTimes?: number;
  /** The first attempt fails with PermanentJobError. */
  permanent?: boolean;
}

export const RECORD_JOB = defineJobKind<TestJob>('test-record', {
  retryLimit: 3,
  retryDelaySeconds: 1,
  retryBackoff: false,
});

/** At most one queued job per singletonKey. */
export const SHORT_JOB = defineJobKind<TestJob>('test-short', { policy: 'short' });

/** The handler's writes commit with the job's completion. */
export const TX_JOB = defineJobKind<TestJob>('test-tx', { transactional: true, retryLimit: 0 });

/** First attempt hangs for ever (until its process is killed); later attempts succeed. */
export const HANG_JOB = defineJobKind<TestJob>('test-hang', {
  retryLimit: 3,
  retryDelaySeconds: 0,
  retryBackoff: false,
  expireInSeconds: 2,
});

export async function createRunsTable(ds: DataSource): Promise<void> {
  await ds.query(`CREATE TABLE IF NOT EXISTS test_job_runs (
    id serial PRIMARY KEY, job_id uuid NOT NULL, kind text NOT NULL, n int NOT NULL, pid int NOT NULL,
    attempt int NOT NULL, outcome text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
}

export interface RunRow {
  job_id: string;
  kind: string;
  n: number;
  pid: number;
  attempt: number;
  outcome: string;
  at: Date;
}

export async function runs(ds: DataSource, kind?: string): Promise<RunRow[]> {
  return ds.query(
    `SELECT job_id, kind, n, pid, attempt, outcome, at FROM test_job_runs ${kind ? 'WHERE kind = $1' : ''} ORDER BY id`,
    kind ? [kind] : [],
  );
}

// Unref: a handler abandoned at shutdown must not hold the test process open.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

export function registerTestKinds(jobs: JobsService, ds: DataSource): void {
  // In a transactional kind's handler, the row is part of the job's transaction.
  const record = (job: JobContext, n: number, outcome: string) =>
    (currentManager() ?? ds).query(
      `INSERT INTO test_job_runs (job_id, kind, n, pid, attempt, outcome) VALUES ($1, $2, $3, $4, $5, $6)`,
      [job.id, job.kind, n, process.pid, job.attempt, outcome],
    );
  const work = async (p: TestJob, job: JobContext) => {
    if (p.permanent) {
      await record(job, p.n, 'failed');
      throw new PermanentJobError('planned permanent failure');
    }
    if (p.sleepMs) await sleep(p.sleepMs);
    if (job.attempt <= (p.failTimes ?? 0)) {
      await record(job, p.n, 'failed');
      throw new Error(`planned failure ${job.attempt}`);
    }
    await record(job, p.n, 'done');
  };
  jobs.register(RECORD_JOB, work);
  jobs.register(SHORT_JOB, work);
  jobs.register(TX_JOB, async (p, job) => {
    await record(job, p.n, 'done');
    if (p.sleepMs) await sleep(p.sleepMs);
  });
  jobs.register(HANG_JOB, async (p, job) => {
    if (job.attempt === 1) {
      await record(job, p.n, 'started');
      await new Promise(() => undefined);
    }
    await record(job, p.n, 'done');
  });
}

/** Polls `check` until it returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** Moves every waiting job's run time `seconds` earlier: the queue's clock, advanced. */
export async function advanceJobClock(ds: DataSource, seconds: number): Promise<void> {
  await ds.query(`UPDATE pgboss.job SET start_after = start_after - make_interval(secs => $1) WHERE state < 'active'`, [
    seconds,
  ]);
}

/** A job's state in pg-boss (created, retry, active, completed, cancelled, failed). */
export async function jobState(ds: DataSource, id: string): Promise<string | undefined> {
  const rows: Array<{ state: string }> = await ds.query('SELECT state FROM pgboss.job WHERE id = $1', [id]);
  return rows[0]?.state;
}
