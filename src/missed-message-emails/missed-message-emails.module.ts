import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { EmailModule } from '../email/email.module';
import { EventsModule } from '../events/events.module';
import { MessagingModule } from '../messaging/messaging.module';
import { PresenceModule } from '../presence/presence.module';
import { RealmModule } from '../realm/realm.module';
import { UsersModule } from '../users/users.module';
import { MissedMessageEmailsHandler } from './missed-message-emails.handler';
import { MissedMessageEmailsRepository } from './missed-message-emails.repository';
import { MissedMessageEmailsService } from './missed-message-emails.service';
import { UnsubscribeController } from './unsubscribe.controller';

/**
 * Missed-message emails (table missed_message_email): messages for users who are away, batched
 * per user and emailed once per batching period; the one-click unsubscribe link. Above messaging
 * (MessageSentEvent), presence and email.
 */
@Module({
  imports: [EventsModule, RealmModule, UsersModule, ChannelsModule, MessagingModule, PresenceModule, EmailModule],
  providers: [MissedMessageEmailsRepository, MissedMessageEmailsHandler, MissedMessageEmailsService],
  controllers: [UnsubscribeController],
  exports: [MissedMessageEmailsService],
})
export class MissedMessageEmailsModule {}
