import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { EventsModule } from '../events/events.module';
import { RealmModule } from '../realm/realm.module';
import { UsersModule } from '../users/users.module';
import { DraftsController, SavedSnippetsController } from './drafts.controller';
import { DraftsRepository } from './drafts.repository';
import { DraftsService } from './drafts.service';
import { SavedSnippetsService } from './saved-snippets.service';

/**
 * Drafts and saved snippets: a user's compose-box texts (tables draft and saved_snippet). Above
 * channels and messaging (drafts name a channel or users, with messaging's content rules);
 * register reads them.
 */
@Module({
  imports: [EventsModule, RealmModule, UsersModule, ChannelsModule],
  providers: [DraftsRepository, DraftsService, SavedSnippetsService],
  controllers: [DraftsController, SavedSnippetsController],
  exports: [DraftsService, SavedSnippetsService],
})
export class DraftsModule {}
