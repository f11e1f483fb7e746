import { Injectable, OnModuleInit } from '@nestjs/common';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { EventsService } from './events.service';

/** Event queues, parked long-polls and events delivered, read from the backend at each scrape. */
@Injectable()
export class EventsMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly events: EventsService,
  ) {}

  onModuleInit(): void {
    const stats = () => this.events.backend.stats();
    this.metrics.gauge({
      name: 'zulip_event_queues',
      help: 'Event queues registered (all instances when they are kept in Redis).',
      async collect() {
        this.set((await stats()).queues);
      },
    });
    this.metrics.gauge({
      name: 'zulip_event_long_polls_parked',
      help: 'GET /api/v1/events long-polls waiting in this process.',
      async collect() {
        this.set((await stats()).parkedPolls);
      },
    });
    this.metrics.counter({
      name: 'zulip_events_delivered_total',
      help: 'Events added to client queues by this process.',
      async collect() {
        this.reset();
        this.inc((await stats()).delivered);
      },
    });
  }
}
