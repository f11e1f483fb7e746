import { Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, NoGuests, RequireRole } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { ChannelAdminService } from './channel-admin.service';
import {
  parseGroupSettingChange,
  parseNullableFolderId,
  parseRetentionParam,
  parseTopicsPolicy,
  pickGroupSettings,
} from './channel-params';
import { ChannelQueriesService } from './channel-queries.service';
import {
  CreateChannelArgs,
  DefaultStreamArgs,
  GetStreamIdArgs,
  GetStreamsArgs,
  StreamEmailAddressArgs,
  UpdateStreamArgs,
} from './dto/channels.dto';
import { ChannelEmailService } from './channel-email.service';
import { SubscriptionsService } from './subscriptions.service';

@Controller('api/v1')
export class ChannelsController {
  constructor(
    private readonly queries: ChannelQueriesService,
    private readonly admin: ChannelAdminService,
    private readonly subscriptions: SubscriptionsService,
    private readonly emails: ChannelEmailService,
  ) {}

  @Post('channels/create')
  @NoGuests()
  create(@CurrentUser() auth: AuthContext, @Args(CreateChannelArgs) args: CreateChannelArgs) {
    return this.subscriptions.createChannel(auth, {
      name: args.name,
      description: args.description,
      subscribers: args.subscribers,
      announce: args.announce,
      inviteOnly: args.invite_only,
      isWebPublic: args.is_web_public,
      isDefaultStream: args.is_default_stream,
      folderId: args.folder_id,
      topicsPolicy: parseTopicsPolicy(args.topics_policy),
      historyPublicToSubscribers: args.history_public_to_subscribers,
      messageRetentionDays: parseRetentionParam(args.message_retention_days),
      groupSettings: pickGroupSettings(args as unknown as Record<string, unknown>, (_name, value) => value),
    });
  }

  @Get('streams')
  async list(@CurrentUser() auth: AuthContext, @Args(GetStreamsArgs) args: GetStreamsArgs) {
    const streams = await this.queries.getStreamsJson(auth, {
      includePublic: args.include_public,
      includeWebPublic: args.include_web_public,
      includeSubscribed: args.include_subscribed,
      excludeArchived: args.exclude_archived,
      includeAll: args.include_all,
      includeAllActive: args.include_all_active,
      includeDefault: args.include_default,
      includeOwnerSubscribed: args.include_owner_subscribed,
      includeCanAccessContent: args.include_can_access_content,
    });
    return { streams };
  }

  @Get('streams/:stream_id/members')
  async members(@CurrentUser() auth: AuthContext, @Param('stream_id', PathIntPipe) streamId: number) {
    return { subscribers: await this.queries.members(auth, streamId) };
  }

  @Get('users/:user_id/subscriptions/:stream_id')
  async subscriptionStatus(
    @CurrentUser() auth: AuthContext,
    @Param('user_id', PathIntPipe) userId: number,
    @Param('stream_id', PathIntPipe) streamId: number,
  ) {
    return { is_subscribed: await this.queries.subscriptionStatus(auth, userId, streamId) };
  }

  @Get('streams/:stream_id/email_address')
  async emailAddress(
    @CurrentUser() auth: AuthContext,
    @Param('stream_id', PathIntPipe) streamId: number,
    @Args(StreamEmailAddressArgs) args: StreamEmailAddressArgs,
  ) {
    return { email: await this.emails.emailAddress(auth, streamId, args.sender_id) };
  }

  @Get('streams/:stream_id')
  async get(@CurrentUser() auth: AuthContext, @Param('stream_id', PathIntPipe) streamId: number) {
    return { stream: await this.queries.getStream(auth, streamId) };
  }

  @Patch('streams/:stream_id')
  async update(
    @CurrentUser() auth: AuthContext,
    @Param('stream_id', PathIntPipe) streamId: number,
    @Args(UpdateStreamArgs) args: UpdateStreamArgs,
  ) {
    const groupSettings = pickGroupSettings(args as unknown as Record<string, unknown>, parseGroupSettingChange);
    const folderId = parseNullableFolderId(args.folder_id);
    await this.admin.update(auth, streamId, {
      description: args.description,
      isPrivate: args.is_private,
      isDefaultStream: args.is_default_stream,
      historyPublicToSubscribers: args.history_public_to_subscribers,
      isWebPublic: args.is_web_public,
      newName: args.new_name,
      messageRetentionDays:
        args.message_retention_days === undefined ? undefined : parseRetentionParam(args.message_retention_days),
      isArchived: args.is_archived,
      topicsPolicy: parseTopicsPolicy(args.topics_policy),
      groupSettings,
      folderId,
    });
    return {};
  }

  @Delete('streams/:stream_id')
  async archive(@CurrentUser() auth: AuthContext, @Param('stream_id', PathIntPipe) streamId: number) {
    await this.admin.archive(auth, streamId);
    return {};
  }

  @Post('default_streams')
  @RequireRole('admin')
  async addDefault(@CurrentUser() auth: AuthContext, @Args(DefaultStreamArgs) args: DefaultStreamArgs) {
    await this.admin.addDefaultChannel(auth, args.stream_id);
    return {};
  }

  @Delete('default_streams')
  @RequireRole('admin')
  async removeDefault(@CurrentUser() auth: AuthContext, @Args(DefaultStreamArgs) args: DefaultStreamArgs) {
    await this.admin.removeDefaultChannel(auth, args.stream_id);
    return {};
  }

  @Get('get_stream_id')
  async getStreamId(@CurrentUser() auth: AuthContext, @Args(GetStreamIdArgs) args: GetStreamIdArgs) {
    return { stream_id: await this.queries.getStreamId(auth, args.stream) };
  }
}
