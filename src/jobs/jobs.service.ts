import { AsyncResource } from 'node:async_hooks';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import PgBoss from 'pg-boss';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { currentManager, onCommit, runInTransaction } from '../database/transaction';
import { BossDb, poolDb, poolOf, transactionDb } from './boss-db';
import {
  EnqueueOptions,
  JobContext,
  JobHandler,
  JobKind,
  JobKindDepth,
  JobPolicy,
  PermanentJobError,
} from './job-kind';
import { JOB_SCHEMA, newBoss } from './job-schema';
import { KindWorker } from './kind-worker';

type FetchedJob = PgBoss.JobWithMetadata<object>;

/** pg-boss's settle calls as they really are (its typings drop `data` and the counts). */
interface Settle {
  complete(name: string, id: string, data: null, options?: { db?: BossDb }): Promise<{ affected: number }>;
  fail(name: string, id: string | string[], data: object, options?: { db?: BossDb }): Promise<{ affected: number }>;
  cancel(name: string, id: string, options?: { db?: BossDb }): Promise<{ affected: number }>;
}

interface Registration {
  kind: JobKind<object>;
  handler: JobHandler<object>;
  /** Queue created (and its worker started, when workers are on). */
  ready?: Promise<void>;
  worker?: KindWorker<FetchedJob>;
}

/** A transactional handler's job was cancelled or expired while it ran: its writes roll back. */
class JobLost extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The durable job queue: pg-boss on our PostgreSQL (schema `pgboss`), sharing the app's
 * connection pool. Kinds are registered by the modules that own them; enqueue joins the caller's
 * transaction, so a job exists only if that transaction commits. Each process with JOBS_WORKERS
 * on runs a fetch loop per kind; a job is claimed by one worker at a time (FOR UPDATE SKIP LOCKED),
 * retried with backoff when its handler throws, and handed back by maintenance when its worker
 * dies (after the kind's expireInSeconds). See docs/DEVELOPING.md "Jobs".
 */
@Injectable()
export class JobsService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Jobs');
  private readonly db: BossDb;
  private readonly boss: PgBoss;
  private readonly settle: Settle;
  private readonly kinds = new Map<string, Registration>();
  /** Workers run in the service's own async context, never in a caller's transaction context. */
  private readonly scope = new AsyncResource('Jobs');
  /** Jobs given up at shutdown: whatever their handlers do later is not written back. */
  private readonly abandoned = new Set<string>();
  private bootstrapped = false;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.db = poolDb(poolOf(dataSource));
    this.boss = newBoss(this.db, {
      migrate: config.runMigrations,
      supervise: config.jobs.workers,
      maintenanceIntervalSeconds: config.jobs.maintenanceIntervalSeconds,
    });
    this.settle = this.boss as unknown as Settle;
    this.boss.on('error', (err: Error) => this.logger.error(`queue: ${err.message}`));
  }

  /** Installs or upgrades the pgboss schema when migrations run at start-up; starts maintenance. */
  async onModuleInit(): Promise<void> {
    try {
      await this.boss.start();
    } catch (err) {
      // With RUN_MIGRATIONS=false, pg-boss only checks that its schema is there and current.
      throw new Error(`job queue (schema ${JOB_SCHEMA}): ${errorText(err)}; are migrations applied?`);
    }
  }

  /** Creates the registered kinds' queues and starts their workers. */
  async onApplicationBootstrap(): Promise<void> {
    this.bootstrapped = true;
    await Promise.all([...this.kinds.values()].map((r) => this.activate(r)));
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /**
   * Registers the handler of a kind (once per process, normally in the owning module's
   * onModuleInit). Every process registers every kind, workers on or off: enqueue needs it.
   */
  register<P extends object>(kind: JobKind<P>, handler: JobHandler<P>): void {
    if (this.kinds.has(kind.name)) throw new Error(`job kind ${kind.name} is registered twice`);
    const registration: Registration = { kind, handler: handler as JobHandler<object> };
    this.kinds.set(kind.name, registration);
    if (this.bootstrapped) {
      this.activate(registration).catch((err: unknown) =>
        this.logger.error(`could not set up job kind ${kind.name}: ${errorText(err)}`),
      );
    }
  }

  /**
   * Queues a job; inside runInTransaction it is part of that transaction (created only if it
   * commits). Returns the job's id, or null when the kind's policy deduplicated it by singletonKey.
   */
  async enqueue<P extends object>(kind: JobKind<P>, payload: P, options: EnqueueOptions = {}): Promise<string | null> {
    const registration = await this.ready(kind);
    const o = registration.kind.options;
    const { runAt, singletonKey, retry = {} } = options;
    if (runAt !== undefined && Number.isNaN(runAt.getTime())) throw new Error(`job ${kind.name}: invalid runAt`);
    if (singletonKey !== undefined && o.policy === 'standard') {
      throw new Error(`job kind ${kind.name} has the standard policy: a singletonKey would not deduplicate`);
    }
    const manager = currentManager();
    const id = await this.boss.send(kind.name, payload, {
      startAfter: runAt,
      singletonKey,
      retryLimit: retry.limit ?? o.retryLimit,
      retryDelay: retry.delaySeconds ?? o.retryDelaySeconds,
      retryBackoff: retry.backoff ?? o.retryBackoff,
      expireInSeconds: o.expireInSeconds,
      ...(manager ? { db: transactionDb(manager) } : {}),
    });
    if (id && (!runAt || runAt.getTime() <= Date.now())) {
      const worker = registration.worker;
      if (worker) onCommit(() => worker.wake());
    }
    return id;
  }

  /**
   * Cancels a job that has not finished (in the caller's transaction, if any). A running job's
   * handler is not interrupted, but its completion is not recorded (and a transactional handler's
   * writes roll back). Returns whether a job was cancelled.
   */
  async cancel(kind: JobKind<object>, id: string): Promise<boolean> {
    await this.ready(kind);
    if (!UUID.test(id)) return false;
    const manager = currentManager();
    const result = await this.settle.cancel(kind.name, id, manager ? { db: transactionDb(manager) } : {});
    return result.affected > 0;
  }

  /** Cancels the unfinished jobs of a kind with this singletonKey; returns how many. */
  async cancelByKey(kind: JobKind<object>, singletonKey: string): Promise<number> {
    await this.ready(kind);
    const manager = currentManager();
    const db = manager ? transactionDb(manager) : this.db;
    const { rows } = await db.executeSql(
      `WITH c AS (UPDATE ${JOB_SCHEMA}.job SET state = 'cancelled', completed_on = now()
         WHERE name = $1 AND singleton_key = $2 AND state < 'completed' RETURNING 1)
       SELECT count(*)::int AS n FROM c`,
      [kind.name, singletonKey],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Jobs per registered kind and state, for metrics. One query. */
  async depth(): Promise<JobKindDepth[]> {
    const { rows } = await this.db.executeSql(
      `SELECT name,
         count(*) FILTER (WHERE state < 'active' AND start_after <= now())::int AS ready,
         count(*) FILTER (WHERE state < 'active' AND start_after > now())::int AS scheduled,
         count(*) FILTER (WHERE state = 'active')::int AS active,
         count(*) FILTER (WHERE state = 'failed')::int AS failed,
         coalesce(extract(epoch FROM now() - min(start_after)
           FILTER (WHERE state < 'active' AND start_after <= now())), 0)::float8 AS oldest
       FROM ${JOB_SCHEMA}.job WHERE name = ANY($1) GROUP BY name`,
      [[...this.kinds.keys()]],
    );
    const byName = new Map(rows.map((r) => [r.name as string, r]));
    return [...this.kinds.keys()].sort().map((kind) => {
      const r = byName.get(kind);
      return {
        kind,
        ready: Number(r?.ready ?? 0),
        scheduled: Number(r?.scheduled ?? 0),
        active: Number(r?.active ?? 0),
        failed: Number(r?.failed ?? 0),
        oldestReadySeconds: Number(r?.oldest ?? 0),
      };
    });
  }

  /**
   * Stops taking jobs and waits for running ones (JOBS_SHUTDOWN_TIMEOUT_MS); jobs still running
   * then are handed back for a retry elsewhere. Idempotent; the app calls it on shutdown.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    const timeout = this.config.jobs.shutdownTimeoutMs;
    await Promise.all(
      [...this.kinds.values()].map(async (r) => {
        await r.ready?.catch(() => undefined);
        const unfinished = (await r.worker?.stop(timeout)) ?? [];
        if (unfinished.length === 0) return;
        for (const id of unfinished) this.abandoned.add(id);
        this.logger.warn(`${unfinished.length} ${r.kind.name} job(s) still running at shutdown: handed back for retry`);
        await this.settle
          .fail(r.kind.name, unfinished, { message: 'worker shut down while the job was running' })
          .catch((err: unknown) => this.logger.error(`could not hand back ${r.kind.name} jobs: ${errorText(err)}`));
      }),
    );
    await this.boss.stop({ graceful: false, close: false });
  }

  private async ready(kind: JobKind<object>): Promise<Registration> {
    const registration = this.kinds.get(kind.name);
    if (!registration) throw new Error(`job kind ${kind.name} is not registered`);
    if (!registration.ready) throw new Error(`the job queue is not started yet (enqueue of ${kind.name})`);
    await registration.ready;
    return registration;
  }

  private activate(registration: Registration): Promise<void> {
    registration.ready ??= this.scope.runInAsyncScope(async () => {
      const { name, options } = registration.kind;
      await this.ensureQueue(name, options.policy);
      if (!this.config.jobs.workers || this.stopping) return;
      const worker = new KindWorker<FetchedJob>({
        concurrency: options.concurrency ?? this.config.jobs.concurrency,
        pollIntervalMs: this.config.jobs.pollIntervalMs,
        fetch: (limit) => this.fetch(name, limit),
        run: (job) => this.run(registration, job),
      });
      registration.worker = worker;
      worker.start();
    });
    return registration.ready;
  }

  /**
   * pg-boss keeps each queue's jobs in a partition of its own; creating one attaches it to the
   * job table, and concurrent creations (kinds, or instances starting together) deadlock — so
   * they take turns under an advisory lock.
   */
  private async ensureQueue(name: string, policy: JobPolicy): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('${JOB_SCHEMA}.create_queue'))`);
      const rows: Array<{ policy: string }> = await m.query(`SELECT policy FROM ${JOB_SCHEMA}.queue WHERE name = $1`, [
        name,
      ]);
      if (rows.length === 0) {
        await m.query(`SELECT ${JOB_SCHEMA}.create_queue($1, $2::json)`, [name, JSON.stringify({ policy })]);
      } else if (rows[0].policy !== policy) {
        await m.query(`UPDATE ${JOB_SCHEMA}.queue SET policy = $2, updated_on = now() WHERE name = $1`, [name, policy]);
      }
    });
  }

  private async fetch(name: string, limit: number): Promise<FetchedJob[]> {
    try {
      return await this.boss.fetch<object>(name, { batchSize: limit, includeMetadata: true });
    } catch (err) {
      this.logger.error(`fetching ${name} jobs failed: ${errorText(err)}`);
      return [];
    }
  }

  private async run(registration: Registration, job: FetchedJob): Promise<void> {
    const { kind, handler } = registration;
    const ctx: JobContext = {
      id: job.id,
      kind: kind.name,
      attempt: job.retryCount + 1,
      maxAttempts: job.retryLimit + 1,
      singletonKey: job.singletonKey,
    };
    try {
      if (kind.options.transactional) {
        await runInTransaction(this.dataSource, async (manager) => {
          await handler(job.data, ctx);
          if (this.abandoned.has(job.id)) throw new JobLost();
          const done = await this.settle.complete(kind.name, job.id, null, { db: transactionDb(manager) });
          if (done.affected !== 1) throw new JobLost();
        });
      } else {
        await handler(job.data, ctx);
        if (!this.abandoned.has(job.id)) await this.settle.complete(kind.name, job.id, null);
      }
    } catch (err) {
      await this.failed(kind, job, ctx, err).catch((e: unknown) =>
        this.logger.error(`could not record the failure of ${kind.name} job ${job.id}: ${errorText(e)}`),
      );
    }
  }

  private async failed(kind: JobKind<object>, job: FetchedJob, ctx: JobContext, err: unknown): Promise<void> {
    if (err instanceof JobLost) {
      this.logger.warn(`${kind.name} job ${job.id} was cancelled or expired while running: its work was rolled back`);
      return;
    }
    if (this.abandoned.has(job.id)) return;
    const label = `${kind.name} job ${job.id} (attempt ${ctx.attempt}/${ctx.maxAttempts})`;
    const permanent = err instanceof PermanentJobError;
    if (permanent) {
      // No retry left: fail() then marks it failed for good.
      await this.db.executeSql(
        `UPDATE ${JOB_SCHEMA}.job SET retry_limit = retry_count WHERE name = $1 AND id = $2 AND state = 'active'`,
        [kind.name, job.id],
      );
    }
    await this.settle.fail(kind.name, job.id, { message: errorText(err) });
    if (permanent || ctx.attempt >= ctx.maxAttempts) {
      this.logger.error(`${label} failed for good: ${errorText(err)}`);
    } else {
      this.logger.warn(`${label} failed, will retry: ${errorText(err)}`);
    }
  }
}
