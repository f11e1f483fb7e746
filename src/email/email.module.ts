import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { EmailService } from './email.service';

/** Outgoing email (templates, SMTP or the development outbox), sent through the job queue. */
@Module({
  imports: [JobsModule],
  providers: [EmailService],
  exports: [EmailService],
})
export class EmailModule {}
