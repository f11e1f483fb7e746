/**
 * Job kinds: a name, the payload type its handler takes, and how its jobs are retried. Define one
 * per kind of deferred work next to the feature that owns it, register its handler at start-up
 * (JobsService.register) and enqueue with JobsService.enqueue.
 */

/**
 * pg-boss queue policies, i.e. what a `singletonKey` means for the kind:
 * - `standard`: no deduplication (enqueue refuses a singletonKey);
 * - `short`: at most one *queued* (not yet started) job per key — a second enqueue returns null;
 *   a running job does not count (new work after it started gets its own job);
 * - `singleton`: any number queued, at most one *running* per key;
 * - `stately`: at most one queued, one waiting for a retry and one running per key.
 * With a policy other than `standard`, jobs enqueued without a key share the key "".
 */
export type JobPolicy = 'standard' | 'short' | 'singleton' | 'stately';

export interface JobKindOptions {
  /** Retries after the first attempt (so attempts = retryLimit + 1). */
  retryLimit: number;
  /** Delay before a retry, seconds. With backoff: delay·2^(n-1), randomized up to twice that. */
  retryDelaySeconds: number;
  retryBackoff: boolean;
  /**
   * How long a worker may hold a job. Past it, maintenance presumes the worker dead (kill -9, lost
   * host) and hands the job back for a retry — so a handler must finish well within it. Under 24 h.
   */
  expireInSeconds: number;
  /** Jobs of this kind running at once per process (default JOBS_CONCURRENCY). */
  concurrency: number | undefined;
  policy: JobPolicy;
  /**
   * Run the handler inside one database transaction that also marks the job completed: the
   * handler's writes and the completion commit together, and a job cancelled or expired while it
   * ran rolls them back. For handlers that only touch the database (no network I/O inside).
   */
  transactional: boolean;
}

/** A job kind; `P` is its payload (JSON: plain objects, arrays, strings, numbers, booleans, null). */
export interface JobKind<P extends object> {
  readonly name: string;
  readonly options: Readonly<JobKindOptions>;
  /** Carries the payload type only; never set. */
  readonly payloadType?: P;
}

export const DEFAULT_JOB_KIND_OPTIONS: JobKindOptions = {
  retryLimit: 5,
  retryDelaySeconds: 10,
  retryBackoff: true,
  expireInSeconds: 300,
  concurrency: undefined,
  policy: 'standard',
  transactional: false,
};

const KIND_NAME = /^[a-z][a-z0-9_-]{0,49}$/;

export function defineJobKind<P extends object>(name: string, options: Partial<JobKindOptions> = {}): JobKind<P> {
  if (!KIND_NAME.test(name)) throw new Error(`invalid job kind name '${name}'`);
  const merged = { ...DEFAULT_JOB_KIND_OPTIONS, ...options };
  if (!(merged.expireInSeconds >= 1 && merged.expireInSeconds < 86_400)) {
    throw new Error(`job kind ${name}: expireInSeconds must be between 1 and 86399`);
  }
  return { name, options: Object.freeze(merged) };
}

/** What a handler learns about the job it runs. */
export interface JobContext {
  id: string;
  kind: string;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  singletonKey: string | null;
}

/** Resolves when the work is done; throwing makes the job retry (or fail for good, see below). */
export type JobHandler<P extends object> = (payload: P, job: JobContext) => Promise<void>;

/** Thrown by a handler when retrying cannot help (bad payload, permanent refusal): the job fails now. */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}

export interface EnqueueOptions {
  /** Run no earlier than this (default: now). Delivery follows within about JOBS_POLL_INTERVAL_MS. */
  runAt?: Date;
  /** Deduplication key; its meaning depends on the kind's policy (see JobPolicy). */
  singletonKey?: string;
  /** Overrides the kind's retry settings for this job. */
  retry?: { limit?: number; delaySeconds?: number; backoff?: boolean };
}

/** Jobs of one kind by state, for metrics (JobsService.depth). */
export interface JobKindDepth {
  kind: string;
  /** Due and waiting for a worker (new or waiting to retry). */
  ready: number;
  /** Waiting for their run time (scheduled, or backing off before a retry). */
  scheduled: number;
  active: number;
  /** Failed for good and not yet archived (kept 12 hours). */
  failed: number;
  /** How long the oldest ready job has been due, seconds (0 when none): the queue's lag. */
  oldestReadySeconds: number;
}
