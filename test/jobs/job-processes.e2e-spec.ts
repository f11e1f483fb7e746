/**
 * Job workers in separate processes on one database (test/helpers/job-worker-process.ts): many
 * jobs shared between two processes each run exactly once, and a job whose process is killed with
 * SIGKILL mid-run is run again by the other process once its lock expires (the kind's
 * expireInSeconds, 2 s here, plus a maintenance pass, every second here).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInTransaction } from '../../src/database/transaction';
import { JobsService } from '../../src/jobs/jobs.service';
import { createRunsTable, HANG_JOB, jobState, RECORD_JOB, registerTestKinds, runs, waitFor } from '../helpers/jobs';
import { startTestApp, TEST_SECRET, TestApp } from '../helpers/test-app';

const root = join(__dirname, '..', '..');

describe('job workers in several processes', () => {
  jest.setTimeout(120_000);
  let t: TestApp;
  let jobs: JobsService;
  const workers: ChildProcess[] = [];

  function startWorker(url: string): Promise<ChildProcess> {
    const proc = spawn(
      process.execPath,
      ['-r', join(root, 'test', 'helpers', 'ts-register.js'), join(root, 'test', 'helpers', 'job-worker-process.ts')],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: url,
          SECRET_KEY: TEST_SECRET,
          SERVER_MODE: 'development',
          DATA_DIR: mkdtempSync(join(tmpdir(), 'zulip-jobs-')),
          DB_POOL_SIZE: '4',
          JOBS_WORKERS: 'on',
          JOBS_CONCURRENCY: '4',
          JOBS_POLL_INTERVAL_MS: '100',
          JOBS_MAINTENANCE_INTERVAL_SECONDS: '1',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    workers.push(proc);
    return new Promise((resolve, reject) => {
      proc.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) resolve(proc);
      });
      proc.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    });
  }

  beforeAll(async () => {
    // This app only enqueues; the two child processes do the work.
    t = await startTestApp({ JOBS_WORKERS: 'off' });
    jobs = t.app.get(JobsService);
    await createRunsTable(t.dataSource);
    registerTestKinds(jobs, t.dataSource);
    const url = (t.dataSource.options as { url: string }).url;
    await Promise.all([startWorker(url), startWorker(url)]);
  });

  afterAll(async () => {
    for (const proc of workers) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        await new Promise((r) => proc.once('exit', r));
      }
    }
    await t?.close();
  });

  it('runs each of 300 jobs exactly once between two processes', async () => {
    const ids = await runInTransaction(t.dataSource, async () => {
      const out: string[] = [];
      for (let n = 0; n < 300; n++) out.push((await jobs.enqueue(RECORD_JOB, { n, sleepMs: 5 }))!);
      return out;
    });
    expect(new Set(ids).size).toBe(300);
    await waitFor(async () => (await runs(t.dataSource, RECORD_JOB.name)).length >= 300, 60_000, 200);
    // Anything run twice would show up a little later.
    await new Promise((r) => setTimeout(r, 1000));
    const rows = await runs(t.dataSource, RECORD_JOB.name);
    expect(rows).toHaveLength(300);
    expect(new Set(rows.map((r) => r.job_id)).size).toBe(300);
    expect(rows.every((r) => r.attempt === 1 && r.outcome === 'done')).toBe(true);
    const byProcess = new Map<number, number>();
    for (const r of rows) byProcess.set(r.pid, (byProcess.get(r.pid) ?? 0) + 1);
    expect([...byProcess.keys()].sort()).toEqual(workers.map((w) => w.pid).sort());
  });

  it('runs a job again in another process after its worker was killed with SIGKILL', async () => {
    const id = (await jobs.enqueue(HANG_JOB, { n: 1000 }))!;
    const started = await waitFor(async () => (await runs(t.dataSource, HANG_JOB.name))[0]);
    expect(started).toMatchObject({ job_id: id, attempt: 1, outcome: 'started' });
    const victim = workers.find((w) => w.pid === started.pid)!;
    const survivor = workers.find((w) => w !== victim)!;
    const killedAt = Date.now();
    victim.kill('SIGKILL');
    await new Promise((r) => victim.once('exit', r));

    await waitFor(async () => (await jobState(t.dataSource, id)) === 'completed', 30_000, 100);
    const rows = await runs(t.dataSource, HANG_JOB.name);
    expect(rows.map((r) => [r.attempt, r.outcome, r.pid])).toEqual([
      [1, 'started', victim.pid],
      [2, 'done', survivor.pid],
    ]);
    // Expiry (2 s after the start) + a maintenance pass (1 s) + a poll.
    expect(rows[1].at.getTime() - killedAt).toBeLessThan(10_000);
  });
});
