import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, NoGuests } from '../common/auth/decorators';
import { Errors } from '../common/errors/zulip-error';
import { Args } from '../common/http/params';
import { ChannelQueriesService } from './channel-queries.service';
import { topicCharacterError } from './channels.policy';
import {
  parseChannelNames,
  parsePrincipals,
  parsePropertyChanges,
  parseRetentionParam,
  parseSubscriptionItems,
  parseTopicsPolicy,
  pickGroupSettings,
} from './channel-params';
import {
  BulkSubscriptionArgs,
  ListSubscriptionsArgs,
  MutedTopicArgs,
  SubscribeArgs,
  SubscriptionPropertiesArgs,
  UnsubscribeArgs,
  UserTopicArgs,
} from './dto/subscriptions.dto';
import { SubscriptionsService } from './subscriptions.service';
import { UserTopicsService } from './user-topics.service';
import { ParamErrors } from '../common/errors/param.errors';

@Controller('api/v1')
export class SubscriptionsController {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly queries: ChannelQueriesService,
    private readonly userTopics: UserTopicsService,
  ) {}

  @Get('users/me/subscriptions')
  async list(@CurrentUser() auth: AuthContext, @Args(ListSubscriptionsArgs) args: ListSubscriptionsArgs) {
    return { subscriptions: await this.queries.listSubscriptions(auth, args.include_subscribers !== 'false') };
  }

  @Post('users/me/subscriptions')
  @HttpCode(200)
  @NoGuests()
  subscribe(@CurrentUser() auth: AuthContext, @Args(SubscribeArgs) args: SubscribeArgs) {
    const subscriptions = parseSubscriptionItems(args.subscriptions);
    const principals = parsePrincipals(args.principals);
    return this.subscriptions.subscribe(auth, {
      subscriptions,
      inviteOnly: args.invite_only,
      isWebPublic: args.is_web_public,
      isDefaultStream: args.is_default_stream,
      historyPublicToSubscribers: args.history_public_to_subscribers,
      messageRetentionDays: parseRetentionParam(args.message_retention_days),
      topicsPolicy: parseTopicsPolicy(args.topics_policy),
      groupSettings: pickGroupSettings(args as unknown as Record<string, unknown>, (_name, value) => value),
      announce: args.announce,
      principals,
      authorizationErrorsFatal: args.authorization_errors_fatal,
      folderId: args.folder_id,
      sendNewSubscriptionMessages: args.send_new_subscription_messages,
    });
  }

  @Patch('users/me/subscriptions')
  @NoGuests()
  bulkUpdate(@CurrentUser() auth: AuthContext, @Args(BulkSubscriptionArgs) args: BulkSubscriptionArgs) {
    const remove = parseChannelNames(args.delete ?? [], 'delete');
    const add = parseSubscriptionItems(args.add ?? [], 'add');
    if (add.length === 0 && remove.length === 0) throw ParamErrors.nothingToDo();
    return this.subscriptions.addAndRemove(auth, add, remove);
  }

  @Delete('users/me/subscriptions')
  unsubscribe(@CurrentUser() auth: AuthContext, @Args(UnsubscribeArgs) args: UnsubscribeArgs) {
    const names = parseChannelNames(args.subscriptions);
    const principals = parsePrincipals(args.principals);
    return this.subscriptions.unsubscribe(auth, names, principals);
  }

  @Post('users/me/subscriptions/properties')
  @HttpCode(200)
  async properties(
    @CurrentUser() auth: AuthContext,
    @Args(SubscriptionPropertiesArgs) args: SubscriptionPropertiesArgs,
  ) {
    await this.subscriptions.updateProperties(auth, parsePropertyChanges(args.subscription_data));
    return {};
  }

  @Patch('users/me/subscriptions/muted_topics')
  async mutedTopics(@CurrentUser() auth: AuthContext, @Args(MutedTopicArgs) args: MutedTopicArgs) {
    if (args.stream_id === undefined && args.stream === undefined) throw Errors.missingArgumentPlain('stream_id');
    if (args.stream_id !== undefined && args.stream !== undefined)
      throw ParamErrors.incompatibleParameters(['stream_id', 'stream']);
    const topicError = topicCharacterError(args.topic);
    if (topicError) throw Errors.badRequest(topicError);
    const channel = args.stream_id !== undefined ? { id: args.stream_id } : { name: args.stream! };
    await this.userTopics.muteTopic(auth, channel, args.topic, args.op);
    return {};
  }

  @Post('user_topics')
  @HttpCode(200)
  async userTopic(@CurrentUser() auth: AuthContext, @Args(UserTopicArgs) args: UserTopicArgs) {
    const topicError = topicCharacterError(args.topic);
    if (topicError) throw Errors.badRequest(topicError);
    await this.userTopics.updateUserTopic(auth, args.stream_id, args.topic, args.visibility_policy);
    return {};
  }
}
