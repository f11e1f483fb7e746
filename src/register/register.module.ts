import { Module } from '@nestjs/common';
import { AlertWordsModule } from '../alert-words/alert-words.module';
import { DraftsModule } from '../drafts/drafts.module';
import { ChannelsModule } from '../channels/channels.module';
import { EventsModule } from '../events/events.module';
import { MessagingModule } from '../messaging/messaging.module';
import { PresenceModule } from '../presence/presence.module';
import { RealmModule } from '../realm/realm.module';
import { RealmEmojiModule } from '../realm-emoji/realm-emoji.module';
import { LinkifierModule } from '../linkifiers/linkifier.module';
import { PlaygroundModule } from '../playgrounds/playground.module';
import { ScheduledMessagesModule } from '../scheduled-messages/scheduled-messages.module';
import { UsersModule } from '../users/users.module';
import { RegisterController } from './register.controller';
import { RegisterService } from './register.service';

@Module({
  imports: [
    EventsModule,
    RealmModule,
    UsersModule,
    ChannelsModule,
    MessagingModule,
    RealmEmojiModule,
    PresenceModule,
    AlertWordsModule,
    DraftsModule,
    LinkifierModule,
    PlaygroundModule,
    ScheduledMessagesModule,
  ],
  providers: [RegisterService],
  controllers: [RegisterController],
})
export class RegisterModule {}
