import { Injectable, OnModuleInit } from '@nestjs/common';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { JobsService } from './jobs.service';

/**
 * The job queue at each scrape, from one query (`JobsService.depth`): jobs by kind and state, and
 * how long the oldest due job has waited (the queue's lag; alert when it grows).
 */
@Injectable()
export class JobsMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly jobs: JobsService,
  ) {}

  onModuleInit(): void {
    const jobs = this.jobs;
    let pending: Promise<Awaited<ReturnType<JobsService['depth']>>> | undefined;
    // Both gauges are collected in one scrape: share the query between them.
    const depth = () => {
      pending ??= jobs.depth().finally(() => setTimeout(() => (pending = undefined), 1000).unref());
      return pending;
    };
    this.metrics.gauge({
      name: 'zulip_jobs',
      help: 'Durable jobs by kind and state (ready = due and waiting for a worker).',
      labelNames: ['kind', 'state'],
      async collect() {
        this.reset();
        for (const d of await depth()) {
          this.set({ kind: d.kind, state: 'ready' }, d.ready);
          this.set({ kind: d.kind, state: 'scheduled' }, d.scheduled);
          this.set({ kind: d.kind, state: 'active' }, d.active);
          this.set({ kind: d.kind, state: 'failed' }, d.failed);
        }
      },
    });
    this.metrics.gauge({
      name: 'zulip_job_oldest_ready_seconds',
      help: 'How long the oldest due job of each kind has been waiting for a worker.',
      labelNames: ['kind'],
      async collect() {
        this.reset();
        for (const d of await depth()) this.set({ kind: d.kind }, d.oldestReadySeconds);
      },
    });
  }
}
