import { Module } from '@nestjs/common';
import { DomainEventBus } from './domain-event-bus';
import { EventsController } from './events.controller';
import { EventsMetrics } from './events.metrics';
import { EventsService } from './events.service';

/**
 * A leaf: client event queues (sendOnCommit) and the domain-event bus. Every context may import
 * it; it imports none of them.
 */
@Module({
  providers: [EventsService, EventsMetrics, DomainEventBus],
  controllers: [EventsController],
  exports: [EventsService, DomainEventBus],
})
export class EventsModule {}
