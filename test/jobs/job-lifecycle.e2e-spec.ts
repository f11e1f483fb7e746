/**
 * Jobs across app restarts on one database: queued and scheduled jobs survive a restart, a
 * graceful shutdown lets short jobs finish and hands long ones back for a retry, and a job
 * enqueued in this process starts at once, without waiting for the next poll.
 */
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/bootstrap';
import { loadConfig } from '../../src/common/config/config';
import { EventsService } from '../../src/events/events.service';
import { JobsService } from '../../src/jobs/jobs.service';
import { createRunsTable, jobState, RECORD_JOB, registerTestKinds, runs, waitFor } from '../helpers/jobs';
import { cloneTemplateDatabase, TEST_SECRET } from '../helpers/test-db';

interface RunningApp {
  app: INestApplication;
  jobs: JobsService;
  ds: DataSource;
}

async function startApp(url: string, env: Record<string, string>): Promise<RunningApp> {
  const config = loadConfig({
    SERVER_MODE: 'development',
    SECRET_KEY: TEST_SECRET,
    LOG_LEVEL: 'error',
    JOBS_POLL_INTERVAL_MS: '100',
    ...env,
  });
  const app = await createApp(config, url);
  const jobs = app.get(JobsService);
  const ds = app.get(DataSource);
  registerTestKinds(jobs, ds);
  return { app, jobs, ds };
}

describe('jobs across restarts', () => {
  jest.setTimeout(90_000);
  let db: { url: string; drop: () => Promise<void> };
  let current: RunningApp | undefined;

  beforeAll(async () => {
    db = await cloneTemplateDatabase();
  });

  afterEach(async () => {
    await current?.app.close();
    current = undefined;
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('runs jobs queued before a restart, scheduled ones at their time', async () => {
    current = await startApp(db.url, { JOBS_WORKERS: 'off' });
    await createRunsTable(current.ds);
    const now = await current.jobs.enqueue(RECORD_JOB, { n: 1 });
    const runAt = new Date(Date.now() + 4000);
    const later = await current.jobs.enqueue(RECORD_JOB, { n: 2 }, { runAt });
    await current.app.close();

    current = await startApp(db.url, { JOBS_WORKERS: 'on' });
    const { ds } = current;
    await waitFor(async () => (await jobState(ds, now!)) === 'completed');
    await waitFor(async () => (await jobState(ds, later!)) === 'completed');
    // Under load the new app may start after `runAt`, and the two then run in either order.
    const rows = (await runs(ds)).sort((a, b) => a.n - b.n);
    expect(rows.map((r) => [r.n, r.attempt, r.outcome])).toEqual([
      [1, 1, 'done'],
      [2, 1, 'done'],
    ]);
    expect(rows[1].at.getTime()).toBeGreaterThanOrEqual(runAt.getTime() - 50);
  });

  it('lets running jobs finish at shutdown and hands back those that outlast the timeout', async () => {
    current = await startApp(db.url, { JOBS_WORKERS: 'on', JOBS_SHUTDOWN_TIMEOUT_MS: '1500' });
    const { jobs, ds } = current;
    const short = await jobs.enqueue(RECORD_JOB, { n: 3, sleepMs: 500 });
    const long = await jobs.enqueue(RECORD_JOB, { n: 4, sleepMs: 4000 });
    await waitFor(async () => (await jobState(ds, short!)) === 'active' && (await jobState(ds, long!)) === 'active');
    // Jobs drain before the modules their handlers use go down (events here).
    const order: string[] = [];
    const stop = jobs.stop.bind(jobs);
    jest.spyOn(jobs, 'stop').mockImplementation(() => stop().then(() => void order.push('jobs stopped')));
    const events = current.app.get(EventsService);
    const destroyEvents = events.onModuleDestroy.bind(events);
    jest.spyOn(events, 'onModuleDestroy').mockImplementation(() => {
      order.push('events destroyed');
      return destroyEvents();
    });
    const closing = Date.now();
    await current.app.close();
    current = undefined;
    const took = Date.now() - closing;
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(4000);
    expect([...new Set(order)]).toEqual(['jobs stopped', 'events destroyed']);

    current = await startApp(db.url, { JOBS_WORKERS: 'on' });
    const ds2 = current.ds;
    expect(await jobState(ds2, short!)).toBe('completed');
    await waitFor(async () => (await jobState(ds2, long!)) === 'completed');
    const rows = (await runs(ds2)).filter((r) => r.n === 3 || r.n === 4);
    // The long job's first run was abandoned at shutdown (its late finish is not recorded).
    expect(rows.map((r) => [r.n, r.attempt, r.outcome])).toEqual([
      [3, 1, 'done'],
      [4, 2, 'done'],
    ]);
  });

  it('starts a job enqueued in this process at once, not at the next poll', async () => {
    current = await startApp(db.url, { JOBS_WORKERS: 'on', JOBS_POLL_INTERVAL_MS: '30000' });
    const { jobs, ds } = current;
    // Let the first poll pass, so that only a wake-up can start the job.
    await new Promise((r) => setTimeout(r, 500));
    const enqueued = Date.now();
    const id = await jobs.enqueue(RECORD_JOB, { n: 5 });
    await waitFor(async () => (await jobState(ds, id!)) === 'completed', 5000, 20);
    expect(Date.now() - enqueued).toBeLessThan(3000);
  });
});
