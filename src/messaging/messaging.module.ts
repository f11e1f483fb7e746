import { MessageAttachments } from './message-attachments';
import { ConversationPeersHandler } from './conversation-peers.handler';
import { Module } from '@nestjs/common';
import { AlertWordsModule } from '../alert-words/alert-words.module';
import { ChannelsModule } from '../channels/channels.module';
import { EventsModule } from '../events/events.module';
import { RealmModule } from '../realm/realm.module';
import { RealmEmojiModule } from '../realm-emoji/realm-emoji.module';
import { LinkifierModule } from '../linkifiers/linkifier.module';
import { UsersModule } from '../users/users.module';
import { ChannelMessagesHandler } from './channel-messages.handler';
import { Clock } from './clock';
import { MessageAccessService } from './message-access.service';
import { MessageDeleteRepository } from './message-delete.repository';
import { MessageDeleteService } from './message-delete.service';
import { MessageDeletion } from './message-deletion';
import { MessageEditRepository } from './message-edit.repository';
import { MessageEditActions } from './message-edit.actions';
import { MessageEditNotices } from './message-edit.notices';
import { MessageEditPermissions } from './message-edit.permissions';
import { MessageEditRequestBuilder } from './message-edit.request';
import { MessageEditService } from './message-edit.service';
import { MessageEvents } from './message-events';
import { MessageReportService } from './message-report.service';
import { MessageFetchRepository } from './message-fetch.repository';
import { MessageFetchService } from './message-fetch.service';
import { MessageFlagsRepository } from './message-flags.repository';
import { MessageFlagsService } from './message-flags.service';
import { MessageRenderService } from './message-render.service';
import { MessageSendService } from './message-send.service';
import { ChannelSendCache } from './channel-send-cache';
import { MessagesController } from './messages.controller';
import { MessagesRepository } from './messages.repository';
import { MessagingStateService } from './messaging-state.service';
import { ReactionsRepository } from './reactions.repository';
import { ReactionsService } from './reactions.service';
import { SubmessageRepository } from './submessage.repository';
import { SubmessageService } from './submessage.service';
import { TypingService } from './typing.service';
import { ReadReceiptsService } from './read-receipts.service';
import { MessageHistoryService } from './message-history.service';
import { TopicDeleteService } from './topic-delete.service';

/**
 * Messages, UserMessage rows and flags, reactions, rendering, typing notifications and message
 * fetch (narrows). Exports the access helper and the send/render services that the edit,
 * delete, report and upload features build on.
 */
@Module({
  imports: [
    EventsModule,
    RealmModule,
    UsersModule,
    ChannelsModule,
    RealmEmojiModule,
    AlertWordsModule,
    LinkifierModule,
  ],
  providers: [
    ConversationPeersHandler,
    MessagesRepository,
    ChannelSendCache,
    MessageFetchRepository,
    MessageFlagsRepository,
    ReactionsRepository,
    MessageAccessService,
    MessageRenderService,
    MessageSendService,
    MessageFetchService,
    MessageFlagsService,
    ReactionsService,
    SubmessageRepository,
    SubmessageService,
    TypingService,
    ChannelMessagesHandler,
    MessagingStateService,
    Clock,
    MessageEvents,
    MessageEditRepository,
    MessageEditPermissions,
    MessageEditRequestBuilder,
    MessageEditNotices,
    MessageEditActions,
    MessageEditService,
    MessageDeleteRepository,
    MessageDeletion,
    MessageDeleteService,
    TopicDeleteService,
    MessageReportService,
    ReadReceiptsService,
    MessageHistoryService,
    MessageAttachments,
  ],
  controllers: [MessagesController],
  exports: [
    MessageAttachments,
    MessageAccessService,
    MessageRenderService,
    MessageSendService,
    MessageFlagsService,
    MessagingStateService,
    Clock,
  ],
})
export class MessagingModule {}
