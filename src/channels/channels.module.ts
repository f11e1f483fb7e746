import { ChannelGroupUsageProvider } from './channel-group-usage';
import { ChannelEmailRepository } from './channel-email.repository';
import { ChannelEmailService } from './channel-email.service';
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { RealmModule } from '../realm/realm.module';
import { UsersModule } from '../users/users.module';
import { ChannelAccessService } from './channel-access.service';
import { ChannelAdminService } from './channel-admin.service';
import { ChannelEvents } from './channel-events';
import { ChannelFoldersController } from './channel-folders.controller';
import { ChannelFoldersRepository } from './channel-folders.repository';
import { ChannelFoldersService } from './channel-folders.service';
import { ChannelListingCache } from './channel-listing-cache';
import { ChannelQueriesService } from './channel-queries.service';
import { ChannelsController } from './channels.controller';
import { ChannelsRepository } from './channels.repository';
import { ChannelsSeeder } from './channels.seed';
import { SubscriptionsController } from './subscriptions.controller';
import { SubscriptionsService } from './subscriptions.service';
import { UserTopicsRepository } from './user-topics.repository';
import { UserTopicsService } from './user-topics.service';

/**
 * Channels (Zulip streams), subscriptions and their properties, GET /streams, topic visibility
 * (user topics) and channel folders. Exports the access helpers and queries other modules need;
 * publishes the domain events of channels.domain-events.ts (messaging posts the notices).
 */
@Module({
  imports: [EventsModule, RealmModule, UsersModule],
  providers: [
    ChannelGroupUsageProvider,
    ChannelsRepository,
    UserTopicsRepository,
    ChannelFoldersRepository,
    ChannelEvents,
    ChannelAccessService,
    SubscriptionsService,
    ChannelAdminService,
    ChannelListingCache,
    ChannelQueriesService,
    UserTopicsService,
    ChannelFoldersService,
    ChannelsSeeder,
    ChannelEmailRepository,
    ChannelEmailService,
  ],
  controllers: [ChannelsController, SubscriptionsController, ChannelFoldersController],
  exports: [ChannelAccessService, ChannelQueriesService, SubscriptionsService, UserTopicsService, ChannelsSeeder],
})
export class ChannelsModule {}
