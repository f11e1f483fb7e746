import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { EventsModule } from '../events/events.module';
import { MessagingModule } from '../messaging/messaging.module';
import { RealmModule } from '../realm/realm.module';
import { UsersModule } from '../users/users.module';
import { RealmAdminController } from './realm-admin.controller';
import { RealmAdminService } from './realm-admin.service';
import { WelcomeMessageService } from './welcome-message.service';

/**
 * Organization settings changed through PATCH /realm, and the Welcome Bot message preview. It
 * sits above users (group settings), channels (the channel settings) and messaging (Welcome Bot).
 */
@Module({
  imports: [EventsModule, RealmModule, UsersModule, ChannelsModule, MessagingModule],
  providers: [RealmAdminService, WelcomeMessageService],
  controllers: [RealmAdminController],
})
export class RealmAdminModule {}
