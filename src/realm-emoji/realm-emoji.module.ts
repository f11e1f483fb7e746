import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { UsersModule } from '../users/users.module';
import { EmojiStore } from './emoji-store';
import { RealmEmojiController } from './realm-emoji.controller';
import { RealmEmojiRepository } from './realm-emoji.repository';
import { RealmEmojiService } from './realm-emoji.service';

/**
 * Custom emoji: GET/POST/DELETE /realm/emoji, the images under /user_avatars/, and the lookups
 * rendering and reactions need. Sits above users (permissions) and below messaging.
 */
@Module({
  imports: [EventsModule, UsersModule],
  providers: [RealmEmojiRepository, RealmEmojiService, EmojiStore],
  controllers: [RealmEmojiController],
  exports: [RealmEmojiService],
})
export class RealmEmojiModule {}
