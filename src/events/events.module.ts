import { Module } from '@nestjs/common';
import { EventsController } from './events.controller';
import { EventsMetrics } from './events.metrics';
import { EventsService } from './events.service';

/** A leaf: queues and sendOnCommit. Every context may import it; it imports none of them. */
@Module({
  providers: [EventsService, EventsMetrics],
  controllers: [EventsController],
  exports: [EventsService],
})
export class EventsModule {}
