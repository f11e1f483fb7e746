import { Injectable } from '@nestjs/common';
import {
  collectDefaultMetrics,
  Counter,
  type CounterConfiguration,
  Gauge,
  type GaugeConfiguration,
  Histogram,
  type HistogramConfiguration,
  Registry,
} from 'prom-client';

/** Process metrics (CPU, memory, event-loop lag, GC, handles) are per process: collected once. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Request durations, seconds. Long-polls (GET /api/v1/events) end in the last buckets. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

type DepthReader = () => number | Promise<number>;

/**
 * The app's Prometheus registry (prom-client), one per app. Any module may inject it and add its
 * own metrics with {@link counter}, {@link gauge} and {@link histogram} (names start with
 * `zulip_`; asking twice for one name gives the same metric), or read a value at scrape time with
 * a gauge's `collect`. Job queues register their depth with {@link registerJobQueue}.
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Labelled children by "method route status": one Map lookup per request, no label hashing. */
  private readonly httpChildren = new Map<string, { observe(v: number): void }>();
  private readonly jobQueues = new Map<string, DepthReader>();

  constructor() {
    this.httpDuration = this.histogram({
      name: 'zulip_http_request_duration_seconds',
      help: 'HTTP requests by method, route template (or "unmatched") and status, with their duration.',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
    });
    const queues = this.jobQueues;
    this.gauge({
      name: 'zulip_job_queue_depth',
      help: 'Jobs waiting to run, by queue.',
      labelNames: ['queue'],
      async collect() {
        // Readers may query the database: let the other gauges of this scrape (the pool's among
        // them) read their values first, so they describe the app, not the scrape's own queries.
        await new Promise((resolve) => setImmediate(resolve));
        this.reset();
        for (const [queue, read] of queues) this.set({ queue }, await read());
      },
    });
  }

  counter<T extends string>(config: Omit<CounterConfiguration<T>, 'registers'>): Counter<T> {
    return (
      (this.registry.getSingleMetric(config.name) as Counter<T> | undefined) ??
      new Counter({ ...config, registers: [this.registry] })
    );
  }

  gauge<T extends string>(config: Omit<GaugeConfiguration<T>, 'registers'>): Gauge<T> {
    return (
      (this.registry.getSingleMetric(config.name) as Gauge<T> | undefined) ??
      new Gauge({ ...config, registers: [this.registry] })
    );
  }

  histogram<T extends string>(config: Omit<HistogramConfiguration<T>, 'registers'>): Histogram<T> {
    return (
      (this.registry.getSingleMetric(config.name) as Histogram<T> | undefined) ??
      new Histogram({ ...config, registers: [this.registry] })
    );
  }

  /** A job queue's depth, read at every scrape as `zulip_job_queue_depth{queue="<name>"}`. */
  registerJobQueue(name: string, depth: DepthReader): void {
    this.jobQueues.set(name, depth);
  }

  /** One finished HTTP request (called by the request-logging middleware). */
  observeRequest(method: string, route: string | null, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : 'OTHER';
    const key = `${m} ${route} ${status}`;
    let child = this.httpChildren.get(key);
    if (!child) {
      child = this.httpDuration.labels(m, route ?? 'unmatched', String(status));
      this.httpChildren.set(key, child);
    }
    child.observe(seconds);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition: this app's metrics, then the process's. */
  async render(): Promise<string> {
    const [app, proc] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${app}\n${proc}`;
  }
}
