import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { UsersModule } from '../users/users.module';
import { LinkifierController } from './linkifier.controller';
import { LinkifierRepository } from './linkifier.repository';
import { LinkifierService } from './linkifier.service';

/**
 * Realm linkifiers: GET /realm/linkifiers, POST/PATCH/DELETE /realm/filters, PATCH
 * /realm/linkifiers, and the compiled set messaging renders with. Above users, below messaging.
 */
@Module({
  imports: [EventsModule, UsersModule],
  providers: [LinkifierRepository, LinkifierService],
  controllers: [LinkifierController],
  exports: [LinkifierService],
})
export class LinkifierModule {}
