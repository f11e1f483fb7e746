import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { RealmModule } from '../realm/realm.module';
import { UsersModule } from '../users/users.module';
import { PresenceController } from './presence.controller';
import { PresenceRepository } from './presence.repository';
import { PresenceService } from './presence.service';
import { UserStatusRepository } from './user-status.repository';
import { UserStatusService } from './user-status.service';

/**
 * Presence and user status: owns user_presence, presence_sequence and user_status. Sits above
 * users; push (idleness) and register (initial state) use its services.
 */
@Module({
  imports: [EventsModule, RealmModule, UsersModule],
  providers: [PresenceRepository, PresenceService, UserStatusRepository, UserStatusService],
  controllers: [PresenceController],
  exports: [PresenceService, UserStatusService],
})
export class PresenceModule {}
