import { Injectable, OnModuleInit } from '@nestjs/common';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { PushNotificationsService } from './push-notifications.service';

/** Push deliveries by outcome and the delivery queue, read from the push service at each scrape. */
@Injectable()
export class PushMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly push: PushNotificationsService,
  ) {}

  onModuleInit(): void {
    const push = this.push;
    this.metrics.counter({
      name: 'zulip_push_notifications_total',
      help: 'Push notification attempts by outcome (queued, delivered, retried, invalid_token, failed, gave_up, overflowed).',
      labelNames: ['outcome'],
      collect() {
        const s = push.stats();
        this.reset();
        this.inc({ outcome: 'queued' }, s.queued);
        this.inc({ outcome: 'delivered' }, s.delivered);
        this.inc({ outcome: 'retried' }, s.retried);
        this.inc({ outcome: 'invalid_token' }, s.invalidTokens);
        this.inc({ outcome: 'failed' }, s.failed);
        this.inc({ outcome: 'gave_up' }, s.gaveUp);
        this.inc({ outcome: 'overflowed' }, s.overflowed);
      },
    });
    this.metrics.registerJobQueue('push', () => push.stats().pending);
  }
}
