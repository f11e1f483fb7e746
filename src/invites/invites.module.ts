import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { EmailModule } from '../email/email.module';
import { EventsModule } from '../events/events.module';
import { MessagingModule } from '../messaging/messaging.module';
import { RealmModule } from '../realm/realm.module';
import { UsersModule } from '../users/users.module';
import { InvitesController } from './invites.controller';
import { InvitesRepository } from './invites.repository';
import { InvitesService } from './invites.service';
import { JoinController } from './join.controller';

/**
 * Invitations: /invites (email invitations and multiuse links) and the registration page their
 * links lead to (/join/{key}). Owns table `invitation`; above users, channels and messaging
 * (Notification Bot tells the referrer who joined).
 */
@Module({
  imports: [EventsModule, EmailModule, RealmModule, UsersModule, ChannelsModule, MessagingModule],
  providers: [InvitesRepository, InvitesService],
  controllers: [InvitesController, JoinController],
})
export class InvitesModule {}
