import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { MessagingModule } from '../messaging/messaging.module';
import { RealmModule } from '../realm/realm.module';
import { UsersModule } from '../users/users.module';
import { ScheduledDeliveryService } from './scheduled-delivery.service';
import { ScheduledMessagesController } from './scheduled-messages.controller';
import { ScheduledMessagesRepository } from './scheduled-messages.repository';
import { ScheduledMessagesService } from './scheduled-messages.service';

/**
 * Scheduled messages and reminders (table scheduled_message): above messaging, whose send path
 * checks and sends them; register reads its state from here.
 */
@Module({
  imports: [EventsModule, RealmModule, UsersModule, MessagingModule],
  providers: [ScheduledMessagesRepository, ScheduledMessagesService, ScheduledDeliveryService],
  controllers: [ScheduledMessagesController],
  exports: [ScheduledMessagesService, ScheduledDeliveryService],
})
export class ScheduledMessagesModule {}
