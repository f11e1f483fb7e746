import { Module } from '@nestjs/common';
import { JobsMetrics } from './jobs.metrics';
import { JobsService } from './jobs.service';

/**
 * The durable job queue, a leaf like events: modules above register their job kinds' handlers
 * and enqueue; it imports none of them. Needs the app's DataSource and configuration (global).
 */
@Module({
  providers: [JobsService, JobsMetrics],
  exports: [JobsService],
})
export class JobsModule {}
