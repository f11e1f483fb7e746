import { Controller, Delete, Get, Param, Patch, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthContext } from '../common/auth/auth.types';
import { AllowIncomingWebhooks, CurrentUser, RequireRole } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { Limits } from '../common/limits';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { clientNameFromUserAgent } from './client-name';
import {
  AddReactionArgs,
  DeleteTopicArgs,
  GetMessageArgs,
  GetMessagesArgs,
  GetTopicsArgs,
  MarkStreamAsReadArgs,
  MarkTopicAsReadArgs,
  MatchesNarrowArgs,
  MessageHistoryArgs,
  RemoveReactionArgs,
  RenderMessageArgs,
  SendMessageArgs,
  SubmessageArgs,
  EditTypingArgs,
  TypingArgs,
  UpdateFlagsArgs,
  UpdateFlagsForNarrowArgs,
} from './dto/messages.dto';
import { ReportMessageArgs, UpdateMessageArgs } from './dto/message-edit.dto';
import { MessageDeleteService } from './message-delete.service';
import { MessageEditService } from './message-edit.service';
import { MessageFetchService } from './message-fetch.service';
import { MessageReportService } from './message-report.service';
import { MessageFlagsService } from './message-flags.service';
import { MessageRenderService } from './message-render.service';
import { MessageSendService } from './message-send.service';
import { CONTENT_TRUNCATION_SUFFIX, truncateContent } from './message-text';
import { ReactionsService } from './reactions.service';
import { SubmessageService } from './submessage.service';
import { TypingService } from './typing.service';
import { ReadReceiptsService } from './read-receipts.service';
import { MessageHistoryService } from './message-history.service';
import { TopicDeleteService } from './topic-delete.service';

/** Sending, reading, rendering, flags, reactions, submessages and typing notifications. */
@Controller('api/v1')
export class MessagesController {
  constructor(
    private readonly sender: MessageSendService,
    private readonly fetcher: MessageFetchService,
    private readonly flags: MessageFlagsService,
    private readonly renderer: MessageRenderService,
    private readonly reactions: ReactionsService,
    private readonly typing: TypingService,
    private readonly editor: MessageEditService,
    private readonly deleter: MessageDeleteService,
    private readonly reporter: MessageReportService,
    private readonly receipts: ReadReceiptsService,
    private readonly histories: MessageHistoryService,
    private readonly topicDeleter: TopicDeleteService,
    private readonly submessages: SubmessageService,
  ) {}

  @Post('messages')
  @AllowIncomingWebhooks()
  send(@CurrentUser() auth: AuthContext, @Args(SendMessageArgs) args: SendMessageArgs, @Req() req: Request) {
    return this.sender.sendMessage(auth, {
      type: args.type,
      to: args.to,
      content: args.content,
      topic: args.topic,
      queueId: args.queue_id,
      localId: args.local_id,
      readBySender: args.read_by_sender,
      clientName: clientNameFromUserAgent(req.headers['user-agent']),
    });
  }

  @Get('messages')
  list(@CurrentUser() auth: AuthContext, @Args(GetMessagesArgs) args: GetMessagesArgs) {
    return this.fetcher.getMessages(auth, {
      anchor: args.anchor,
      includeAnchor: args.include_anchor,
      numBefore: args.num_before,
      numAfter: args.num_after,
      narrow: args.narrow,
      useFirstUnreadAnchor: args.use_first_unread_anchor,
      clientGravatar: args.client_gravatar,
      applyMarkdown: args.apply_markdown,
      messageIds: args.message_ids,
      allowEmptyTopicName: args.allow_empty_topic_name,
    });
  }

  @Post('messages/render')
  async render(@CurrentUser() auth: AuthContext, @Args(RenderMessageArgs) args: RenderMessageArgs) {
    // DECISIONS #10: over-long content is rendered as sending would store it (truncated).
    const content = truncateContent(args.content, Limits.MAX_MESSAGE_LENGTH, CONTENT_TRUNCATION_SUFFIX);
    const { rendered } = await this.renderer.render(auth, content);
    return { rendered: rendered.html };
  }

  @Post('messages/flags')
  updateFlags(@CurrentUser() auth: AuthContext, @Args(UpdateFlagsArgs) args: UpdateFlagsArgs) {
    return this.flags.updateFlags(auth, args.messages, args.op, args.flag);
  }

  @Post('messages/flags/narrow')
  updateFlagsForNarrow(
    @CurrentUser() auth: AuthContext,
    @Args(UpdateFlagsForNarrowArgs) args: UpdateFlagsForNarrowArgs,
  ) {
    return this.flags.updateFlagsForNarrow(auth, {
      anchor: args.anchor,
      includeAnchor: args.include_anchor,
      numBefore: args.num_before,
      numAfter: args.num_after,
      narrow: args.narrow,
      op: args.op,
      flag: args.flag,
    });
  }

  // Declared before messages/:message_id, which would otherwise take the path.
  @Get('messages/matches_narrow')
  matchesNarrow(@CurrentUser() auth: AuthContext, @Args(MatchesNarrowArgs) args: MatchesNarrowArgs) {
    return this.fetcher.messagesMatchingNarrow(auth, args.msg_ids, args.narrow);
  }

  @Post('messages/:message_id/typing')
  async setEditTyping(
    @CurrentUser() auth: AuthContext,
    @Param('message_id', PathIntPipe) messageId: number,
    @Args(EditTypingArgs) args: EditTypingArgs,
  ) {
    await this.typing.setEditTyping(auth, messageId, args.op);
    return {};
  }

  @Get('messages/:message_id/read_receipts')
  readReceipts(@CurrentUser() auth: AuthContext, @Param('message_id', PathIntPipe) messageId: number) {
    return this.receipts.readReceipts(auth, messageId);
  }

  @Get('messages/:message_id/history')
  history(
    @CurrentUser() auth: AuthContext,
    @Param('message_id', PathIntPipe) messageId: number,
    @Args(MessageHistoryArgs) args: MessageHistoryArgs,
  ) {
    return this.histories.history(auth, messageId, args.allow_empty_topic_name);
  }

  @Get('messages/:message_id')
  get(
    @CurrentUser() auth: AuthContext,
    @Param('message_id', PathIntPipe) messageId: number,
    @Args(GetMessageArgs) args: GetMessageArgs,
  ) {
    return this.fetcher.getMessage(auth, messageId, {
      applyMarkdown: args.apply_markdown,
      allowEmptyTopicName: args.allow_empty_topic_name,
    });
  }

  @Patch('messages/:message_id')
  update(
    @CurrentUser() auth: AuthContext,
    @Param('message_id', PathIntPipe) messageId: number,
    @Args(UpdateMessageArgs) args: UpdateMessageArgs,
  ) {
    return this.editor.updateMessage(auth, messageId, {
      content: args.content,
      prevContentSha256: args.prev_content_sha256,
      propagateMode: args.propagate_mode,
      sendNotificationToNewThread: args.send_notification_to_new_thread,
      sendNotificationToOldThread: args.send_notification_to_old_thread,
      streamId: args.stream_id,
      topic: args.topic,
    });
  }

  @Delete('messages/:message_id')
  async deleteMessage(@CurrentUser() auth: AuthContext, @Param('message_id', PathIntPipe) messageId: number) {
    await this.deleter.deleteMessage(auth, messageId);
    return {};
  }

  @Post('messages/:message_id/report')
  async report(
    @CurrentUser() auth: AuthContext,
    @Param('message_id', PathIntPipe) messageId: number,
    @Args(ReportMessageArgs) args: ReportMessageArgs,
  ) {
    await this.reporter.reportMessage(auth, messageId, args.report_type, args.description);
    return {};
  }

  @Post('submessage')
  async addSubmessage(@CurrentUser() auth: AuthContext, @Args(SubmessageArgs) args: SubmessageArgs) {
    await this.submessages.addSubmessage(auth, args.message_id, args.msg_type, args.content);
    return {};
  }

  @Post('messages/:message_id/reactions')
  async addReaction(
    @CurrentUser() auth: AuthContext,
    @Param('message_id', PathIntPipe) messageId: number,
    @Args(AddReactionArgs) args: AddReactionArgs,
  ) {
    await this.reactions.addReaction(auth, messageId, args.emoji_name, args.emoji_code, args.reaction_type);
    return {};
  }

  @Delete('messages/:message_id/reactions')
  async removeReaction(
    @CurrentUser() auth: AuthContext,
    @Param('message_id', PathIntPipe) messageId: number,
    @Args(RemoveReactionArgs) args: RemoveReactionArgs,
  ) {
    await this.reactions.removeReaction(auth, messageId, args.emoji_name, args.emoji_code, args.reaction_type);
    return {};
  }

  @Post('mark_all_as_read')
  markAllAsRead(@CurrentUser() auth: AuthContext) {
    return this.flags.markAllAsRead(auth);
  }

  @Post('mark_stream_as_read')
  async markStreamAsRead(@CurrentUser() auth: AuthContext, @Args(MarkStreamAsReadArgs) args: MarkStreamAsReadArgs) {
    await this.flags.markChannelAsRead(auth, args.stream_id, null);
    return {};
  }

  @Post('mark_topic_as_read')
  async markTopicAsRead(@CurrentUser() auth: AuthContext, @Args(MarkTopicAsReadArgs) args: MarkTopicAsReadArgs) {
    await this.flags.markChannelAsRead(auth, args.stream_id, args.topic_name);
    return {};
  }

  @Post('streams/:stream_id/delete_topic')
  @RequireRole('admin')
  deleteTopic(
    @CurrentUser() auth: AuthContext,
    @Param('stream_id', PathIntPipe) streamId: number,
    @Args(DeleteTopicArgs) args: DeleteTopicArgs,
  ) {
    return this.topicDeleter.deleteTopic(auth, streamId, args.topic_name);
  }

  @Get('users/me/:stream_id/topics')
  async topics(
    @CurrentUser() auth: AuthContext,
    @Param('stream_id', PathIntPipe) streamId: number,
    @Args(GetTopicsArgs) args: GetTopicsArgs,
  ) {
    return { topics: await this.fetcher.getTopics(auth, streamId, args.allow_empty_topic_name) };
  }

  @Post('typing')
  async setTyping(@CurrentUser() auth: AuthContext, @Args(TypingArgs) args: TypingArgs) {
    await this.typing.setTyping(auth, {
      type: args.type,
      op: args.op,
      to: args.to,
      streamId: args.stream_id,
      topic: args.topic,
    });
    return {};
  }
}
