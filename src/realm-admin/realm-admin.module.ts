import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { EventsModule } from '../events/events.module';
import { RealmModule } from '../realm/realm.module';
import { UsersModule } from '../users/users.module';
import { RealmAdminController } from './realm-admin.controller';
import { RealmAdminService } from './realm-admin.service';

/**
 * Organization settings changed through PATCH /realm. It sits above users (group settings) and
 * channels (the moderation request channel).
 */
@Module({
  imports: [EventsModule, RealmModule, UsersModule, ChannelsModule],
  providers: [RealmAdminService],
  controllers: [RealmAdminController],
})
export class RealmAdminModule {}
