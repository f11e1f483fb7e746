import { MessageAttachments } from './message-attachments';
import { Injectable } from '@nestjs/common';
import { UserGroupsQueryService } from '../users/user-groups-query.service';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { onCommit, runInTransaction, runSingleStatement } from '../database/transaction';
import { ChannelSendCache } from './channel-send-cache';
import { isDbId } from '../database/ids';
import { mutedTopicsEvent, type NewMessageEvent, userTopicEvent } from '../events/client-events';
import { DomainEventBus } from '../events/domain-event-bus';
import { EventsService } from '../events/events.service';
import { ChannelQueriesService } from '../channels/channel-queries.service';
import { VisibilityPolicy } from '../channels/user-topic.entity';
import type { QueueOptions } from '../events/event-queue';
import type { Realm } from '../realm/realm.entity';
import { LinkifierService } from '../linkifiers/linkifier.service';
import { RealmService } from '../realm/realm.service';
import { SystemGroups } from '../realm/system-groups';
import type { UserProfile } from '../users/user.entity';
import { defaultReadBySender } from './client-name';
import { flagsToApi } from './flags';
import { inContentAccessGroups, isGuest } from './message-access.policy';
import { messageDict, type FormatOptions, type MessageRow, type SubmessageRow, type UserBrief } from './message-format';
import { SubmessageRepository } from './submessage.repository';
import { widgetFromContent, widgetSubmessageContent } from './widget';
import { MARKDOWN_VERSION, MessageRenderService, type RenderResult } from './message-render.service';
import type { RenderedMessage } from './markdown';
import {
  hasNul,
  normalizeContent,
  normalizeTopicForSend,
  pyStrip,
  topicForClient,
  truncateTopic,
} from './message-text';
import { MessageType } from './message.entity';
import { ChannelForSend, MessagesRepository, type NewMessage } from './messages.repository';
import { MessageSentEvent } from './messaging.domain-events';
import {
  autoVisibilityEnabled,
  checkChannelName,
  directMessageGroupHash,
  effectiveTopicsPolicy,
  extractPrivateRecipients,
  extractStreamIndicator,
  htmlEscape,
  topicsPolicyError,
  userMessageFlags,
  visibilityPolicyAfterSend,
  wildcardNeedsPermission,
} from './send.policy';
import { UserErrors } from '../users/user.errors';
import { ChannelErrors } from '../channels/channel.errors';
import { MessageErrors } from './message.errors';
import { canAccessUser } from '../users/user-access';
import { UserAccessService } from '../users/user-access.service';
import { PrincipalService } from '../users/principal.service';
import { MutedUsersService } from '../users/muted-users.service';
import { UserTopicsService } from '../channels/user-topics.service';
import { shareJson } from '../events/event-json';

export interface SendMessageInput {
  type: 'direct' | 'private' | 'stream' | 'channel';
  to: string | undefined;
  content: string;
  topic: string | undefined;
  queueId: string | undefined;
  localId: string | undefined;
  readBySender: boolean | undefined;
  clientName: string;
}

/**
 * A message that passed every check of a send without being written (Zulip's check_message
 * result, as scheduling stores it): the normalized content, its rendering and the addressee.
 */
export interface CheckedMessage {
  content: string;
  renderedContent: string;
  recipientType: 'stream' | 'private';
  streamId: number | null;
  /** The channel message's topic as it would be stored (truncated). */
  topic: string;
  /** Direct messages: the recipients other than the sender, ascending ([sender] when alone). */
  toUserIds: number[] | null;
}

export interface SendMessageResult {
  id: number;
  automatic_new_visibility_policy?: number;
}

export function userBriefOf(user: UserProfile): UserBrief {
  return {
    id: user.id,
    realmId: user.realmId,
    fullName: user.fullName,
    deliveryEmail: user.deliveryEmail,
    emailAddressVisibility: user.settings.email_address_visibility,
    avatarSource: user.avatarSource,
    avatarVersion: user.avatarVersion,
    isActive: user.isActive,
    isBot: user.isBot,
    botOwnerId: user.botOwnerId,
    role: user.role,
    isMirrorDummy: user.isMirrorDummy,
  };
}

/** Zulip's settings.NOTIFICATION_BOT. */
const NOTIFICATION_BOT = 'notification-bot@zulip.com';

function echoOf(senderId: number, input: SendMessageInput) {
  return { senderId, queueId: input.queueId, localId: input.localId };
}

/** Where a system bot's message goes. */
export type InternalTarget =
  | { kind: 'channel'; channelId: number; recipientId: number; name: string; topic: string }
  | { kind: 'direct'; userId: number };

/** What deciding whether a user may post to a channel needs. */
export type PostableChannel = Pick<
  ChannelForSend,
  | 'name'
  | 'recipientId'
  | 'deactivated'
  | 'isWebPublic'
  | 'inviteOnly'
  | 'historyPublicToSubscribers'
  | 'canSendMessageGroup'
  | 'canSubscribeGroup'
  | 'canAddSubscribersGroup'
>;

/** Where a message goes, once the addressee has been validated. */
type Addressee =
  | { kind: 'channel'; byName: string | null; byId: number | null; topic: string }
  | { kind: 'direct'; recipients: UserBrief[] };

/** A channel message that passed Zulip's check_message, not written yet. */
interface CheckedChannelMessage {
  content: string;
  channel: ChannelForSend;
  /** As stored (truncated). */
  topic: string;
  render: RenderResult;
  /** Members of the mentioned groups. */
  groupMembers: Set<number>;
  /** The topic's participants when the message mentions them (@**topic**). */
  topicParticipants: Set<number>;
}

/** A checked channel message with everything its write needs. */
interface ChannelSendPlan extends CheckedChannelMessage {
  /** The channel's active subscribers, and their flags in the same order. */
  recipients: number[];
  flags: number[];
  mutedByIds: Set<number>;
  hasAttachment: boolean;
  hasWidget: boolean;
  /** The sender's new visibility policy for the topic, if sending changes it. */
  visibilityPolicy: number | null;
  senderHiddenFrom: Set<number> | undefined;
  topicLinks: FormatOptions['topicLinks'];
  dateSent: Date;
}

/** A direct message that passed Zulip's check_message, not written yet. */
interface CheckedDirectMessage {
  content: string;
  /** Recipients and sender, by id; their ids ascending; the conversation's hash. */
  participants: Map<number, UserBrief>;
  participantIds: number[];
  hash: string;
  render: RenderResult;
  groupMembers: Set<number>;
}

/** The recipients of a batch of system-bot messages (MessageSendService.sendInternal). */
interface InternalRecipients {
  /** Per item: the DM participants (sender included, ascending), null for a channel. */
  dmParticipants: Array<number[] | null>;
  /** DM conversation recipient ids by hash. */
  dmRecipients: Map<string, number>;
  /** Channel subscribers by recipient id. */
  subscribers: Map<number, number[]>;
  users: Map<number, UserBrief>;
}

/** The message row of a send, from the sender and what the send decided. */
function newMessage(
  auth: { realm: { id: number }; user: { id: number } },
  sendingClient: string,
  m: {
    recipientId: number;
    subject: string;
    content: string;
    rendered: RenderedMessage;
    hasAttachment: boolean;
    isChannelMessage: boolean;
    dateSent: Date;
  },
): NewMessage {
  return {
    realmId: auth.realm.id,
    senderId: auth.user.id,
    recipientId: m.recipientId,
    subject: m.subject,
    content: m.content,
    renderedContent: m.rendered.html,
    renderedContentVersion: MARKDOWN_VERSION,
    dateSent: m.dateSent,
    sendingClient,
    hasAttachment: m.hasAttachment,
    hasImage: m.rendered.hasImage,
    hasLink: m.rendered.hasLink,
    isChannelMessage: m.isChannelMessage,
    type: MessageType.NORMAL,
  };
}

/** Where a sent message went, as its message dict shows it. */
type SentWhere = Pick<MessageRow, 'streamId' | 'streamName' | 'dmUserIds'>;

/** The row a message dict is built from, for a message just written with id `id`. */
function sentRow(id: number, m: NewMessage, where: SentWhere): MessageRow {
  return {
    id,
    realmId: m.realmId,
    senderId: m.senderId,
    recipientId: m.recipientId,
    subject: m.subject,
    content: m.content,
    renderedContent: m.renderedContent,
    dateSent: m.dateSent,
    sendingClient: m.sendingClient,
    lastEditTime: null,
    editHistory: null,
    isChannelMessage: m.isChannelMessage,
    ...where,
  };
}

/** One system-bot message of a batch: its row, recipients and their flags (no permission checks). */
function prepareInternalMessage(
  realm: Realm,
  sender: UserBrief,
  target: InternalTarget,
  addressed: InternalRecipients,
  m: {
    content: string;
    rendered: RenderedMessage;
    alertWordUserIds: Set<number>;
    participants: number[] | null;
    groupMembers: Map<number, number[]>;
    dateSent: Date;
  },
): { message: NewMessage; where: SentWhere; recipients: number[]; flags: number[] } {
  const isChannel = target.kind === 'channel';
  const recipientId = isChannel
    ? target.recipientId
    : addressed.dmRecipients.get(directMessageGroupHash(m.participants!))!;
  const recipients = isChannel ? (addressed.subscribers.get(target.recipientId) ?? []) : m.participants!;
  const flagInputs = {
    senderId: sender.id,
    readBySender: false,
    isDirectMessage: !isChannel,
    mentionedUserIds: new Set(m.rendered.mentionedUserIds),
    groupMentionedUserIds: new Set(m.rendered.mentionedGroupIds.flatMap((g) => m.groupMembers.get(g) ?? [])),
    streamWildcard: m.rendered.mentionsStreamWildcard,
    topicWildcard: false,
    topicParticipantIds: new Set<number>(),
    alertWordUserIds: m.alertWordUserIds,
  };
  const message = newMessage({ realm, user: sender }, 'Internal', {
    recipientId,
    subject: isChannel ? truncateTopic(target.topic) : '',
    content: m.content,
    rendered: m.rendered,
    hasAttachment: false,
    isChannelMessage: isChannel,
    dateSent: m.dateSent,
  });
  const where: SentWhere = isChannel
    ? { streamId: target.channelId, streamName: target.name, dmUserIds: null }
    : { streamId: null, streamName: null, dmUserIds: recipients };
  return { message, where, recipients, flags: recipients.map((id) => userMessageFlags(id, flagInputs)) };
}

/**
 * POST /messages (Zulip's check_send_message → check_message → do_send_messages): validates
 * the addressee and content in Zulip's order, checks permissions, renders, and writes the
 * message with one UserMessage row per recipient in a single statement. Events go out after
 * commit: the message (per-user flags; local_message_id only in the sender's queue that asked)
 * and, when sending changed the sender's topic visibility, user_topic.
 */
@Injectable()
export class MessageSendService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly messages: MessagesRepository,
    private readonly renderer: MessageRenderService,
    private readonly realms: RealmService,
    private readonly events: EventsService,
    private readonly bus: DomainEventBus,
    private readonly channelQueries: ChannelQueriesService,
    private readonly principals: PrincipalService,
    private readonly userTopics: UserTopicsService,
    private readonly userGroups: UserGroupsQueryService,
    private readonly mutedUsers: MutedUsersService,
    private readonly linkifiers: LinkifierService,
    private readonly submessages: SubmessageRepository,
    private readonly userAccess: UserAccessService,
    private readonly attachments: MessageAttachments,
    private readonly channelCache: ChannelSendCache,
  ) {}

  async sendMessage(auth: AuthContext, input: SendMessageInput): Promise<SendMessageResult> {
    if (input.queueId !== undefined && input.localId === undefined) {
      // DECISIONS #6: local echo needs both.
      throw Errors.missingArgumentPlain('local_id');
    }
    // The checks only read: no transaction until the writes (doSend* choose how they commit).
    const addressee = await this.buildAddressee(auth, input);
    const content = normalizeContent(input.content);
    if (addressee.kind === 'channel') {
      return this.doSendToChannel(auth, input, await this.checkChannelMessage(auth, addressee, content));
    }
    return this.doSendDirect(auth, input, await this.checkDirectMessage(auth, addressee.recipients, content));
  }

  /**
   * Every check of sendMessage, and the rendering, without writing the message (Zulip's
   * check_message, which scheduling runs when a message is scheduled or edited).
   */
  async checkMessage(auth: AuthContext, input: SendMessageInput): Promise<CheckedMessage> {
    const addressee = await this.buildAddressee(auth, input);
    const content = normalizeContent(input.content);
    if (addressee.kind === 'channel') {
      const checked = await this.checkChannelMessage(auth, addressee, content);
      return {
        content,
        renderedContent: checked.render.rendered.html,
        recipientType: 'stream',
        streamId: checked.channel.id,
        topic: checked.topic,
        toUserIds: null,
      };
    }
    const checked = await this.checkDirectMessage(auth, addressee.recipients, content);
    const others = checked.participantIds.filter((id) => id !== auth.user.id);
    return {
      content,
      renderedContent: checked.render.rendered.html,
      recipientType: 'private',
      streamId: null,
      topic: '',
      toUserIds: others.length > 0 ? others : [auth.user.id],
    };
  }

  /**
   * A direct message from Notification Bot to `userId` (Zulip's internal_send_private_message
   * from settings.NOTIFICATION_BOT). Returns the message id, or null without the bot.
   */
  async sendNotificationBotMessage(realm: Realm, userId: number, content: string): Promise<number | null> {
    return this.sendSystemBotDirectMessage(realm, NOTIFICATION_BOT, userId, content);
  }

  /**
   * A direct message from the system bot `botEmail` (Notification Bot, Welcome Bot) to `userId`
   * (Zulip's internal_send_private_message). Returns the message id, or null without the bot.
   */
  async sendSystemBotDirectMessage(
    realm: Realm,
    botEmail: string,
    userId: number,
    content: string,
  ): Promise<number | null> {
    return runInTransaction(this.dataSource, async () => {
      const bot = await this.messages.systemBot(botEmail);
      if (!bot) return null;
      const [id] = await this.sendInternal(realm, bot, [{ target: { kind: 'direct', userId }, content }]);
      return id;
    });
  }

  /** Zulip's Addressee.legacy_build (after the view extracted `to`). */
  private async buildAddressee(auth: AuthContext, input: SendMessageInput): Promise<Addressee> {
    const isChannel = input.type === 'stream' || input.type === 'channel';
    if (isChannel) {
      const indicator = input.to === undefined ? undefined : extractStreamIndicator(input.to);
      if (indicator === undefined) throw MessageErrors.missingChannel();
      if (input.topic === undefined) throw MessageErrors.missingTopic();
      const topic = normalizeTopicForSend(input.topic);
      return typeof indicator === 'number'
        ? { kind: 'channel', byName: null, byId: indicator, topic }
        : { kind: 'channel', byName: indicator, byId: null, topic };
    }
    const to = input.to === undefined ? [] : extractPrivateRecipients(input.to);
    if (to.length === 0) throw MessageErrors.noRecipients();
    const { realm } = auth;
    if (typeof to[0] === 'string') {
      const emails = to as string[];
      const found = await this.messages.usersByApiEmailsInRealm(
        realm.id,
        this.realms.realmHost(realm),
        emails.filter((e) => !hasNul(e)),
      );
      const host = this.realms.realmHost(realm);
      const byEmail = new Map<string, UserBrief>();
      for (const u of found) {
        const api = u.emailAddressVisibility === 1 ? u.deliveryEmail : `user${u.id}@${host}`;
        byEmail.set(api.toLowerCase(), u);
      }
      const recipients: UserBrief[] = [];
      for (const email of emails) {
        const user = byEmail.get(email.toLowerCase());
        if (!user) throw MessageErrors.invalidEmail(email);
        recipients.push(user);
      }
      return { kind: 'direct', recipients };
    }
    const ids = to as number[];
    const found = new Map((await this.messages.usersByIdsInRealm(realm.id, ids)).map((u) => [u.id, u]));
    const recipients: UserBrief[] = [];
    for (const id of ids) {
      const user = found.get(id);
      if (!user) throw UserErrors.invalidRecipientId(id);
      recipients.push(user);
    }
    return { kind: 'direct', recipients };
  }

  private async loadChannel(
    auth: AuthContext,
    addressee: Extract<Addressee, { kind: 'channel' }>,
    topic: string,
  ): Promise<ChannelForSend> {
    const { user, realm } = auth;
    if (addressee.byName !== null) {
      const name = pyStrip(addressee.byName);
      checkChannelName(name);
      const channel = await this.channelCache.channelForSendByName(realm.id, user, name, topic);
      if (!channel) {
        const escaped = htmlEscape(name);
        throw ChannelErrors.doesNotExist(escaped);
      }
      return channel;
    }
    const id = addressee.byId!;
    const channel = isDbId(id) ? await this.channelCache.channelForSend(realm.id, user, id, topic) : null;
    if (!channel) {
      throw ChannelErrors.idDoesNotExist(id);
    }
    return channel;
  }

  /**
   * Zulip's access_stream_for_send_message (also used for channel typing notifications);
   * `subscribed`: whether the user has an active subscription to the channel.
   */
  async checkChannelSendPermission(auth: AuthContext, channel: PostableChannel, subscribed: boolean): Promise<void> {
    const { user, realm } = auth;
    const system = await this.principals.systemGroupIds(realm.id);
    const canSend = async (actor: { id: number; role: number; isActive: boolean }) =>
      channel.canSendMessageGroup === system.get(SystemGroups.EVERYONE) ||
      (channel.canSendMessageGroup !== system.get(SystemGroups.NOBODY) &&
        (await this.principals.userHolds(actor, realm.id, channel.canSendMessageGroup, true)));
    if (!(await canSend(user))) {
      const owner =
        user.isBot && user.botOwnerId !== null
          ? (await this.messages.usersByIdsInRealm(realm.id, [user.botOwnerId]))[0]
          : undefined;
      if (!owner || !(await canSend(owner))) throw MessageErrors.cannotPostInChannel();
    }
    const notAuthorized = () => MessageErrors.notAuthorizedForChannel(channel.name);
    if (channel.deactivated) throw notAuthorized();
    if (channel.isWebPublic) return;
    if (!(channel.inviteOnly || isGuest(user))) return;
    if (subscribed) return;
    if (
      user.isBot &&
      user.botOwnerId !== null &&
      (await this.channelQueries.isSubscribed(user.botOwnerId, channel.recipientId))
    ) {
      return;
    }
    if (isGuest(user)) throw notAuthorized();
    const groupIds = await this.principals.groupIdsOf(user.id);
    if (channel.historyPublicToSubscribers && inContentAccessGroups(user, channel, groupIds)) return;
    throw notAuthorized();
  }

  private async checkCanCreateTopic(auth: AuthContext, channel: ChannelForSend): Promise<void> {
    const { user, realm } = auth;
    const system = await this.principals.systemGroupIds(realm.id);
    if (channel.canCreateTopicGroup === system.get(SystemGroups.EVERYONE) || channel.topicExists) return;
    const refuse = () => MessageErrors.cannotCreateTopics();
    if (channel.canCreateTopicGroup === system.get(SystemGroups.NOBODY)) throw refuse();
    if (await this.principals.userHolds(user, realm.id, channel.canCreateTopicGroup, true)) return;
    if (user.isBot && user.botOwnerId !== null) {
      const owner = (await this.messages.usersByIdsInRealm(realm.id, [user.botOwnerId]))[0];
      if (owner && (await this.principals.userHolds(owner, realm.id, channel.canCreateTopicGroup, true))) return;
    }
    throw refuse();
  }

  /**
   * Zulip's check_message for a channel message: the channel, the sender's right to post there
   * and to start the topic, the topics policy, the rendering and the mentions it may make.
   */
  private async checkChannelMessage(
    auth: AuthContext,
    addressee: Extract<Addressee, { kind: 'channel' }>,
    content: string,
  ): Promise<CheckedChannelMessage> {
    const { realm } = auth;
    const topic = truncateTopic(addressee.topic);
    const channel = await this.loadChannel(auth, addressee, topic);
    await this.checkChannelSendPermission(auth, channel, channel.senderSubscribed);
    await this.checkCanCreateTopic(auth, channel);
    const policyError = topicsPolicyError(effectiveTopicsPolicy(channel.topicsPolicy, realm.topicsPolicy), topic);
    if (policyError) throw Errors.badRequest(policyError);
    const render = await this.renderer.render(auth, content);
    const { rendered } = render;
    // Without wildcard or group mentions (most messages), nothing to check: no await.
    const topicParticipants =
      rendered.mentionsStreamWildcard || rendered.mentionsTopicWildcard
        ? await this.checkWildcardMentions(auth, channel, topic, rendered)
        : new Set<number>();
    const groupMembers =
      rendered.mentionedGroupIds.length > 0
        ? await this.checkGroupMentions(auth, rendered.mentionedGroupIds, render.groups)
        : new Set<number>();
    return { content, channel, topic, render, groupMembers, topicParticipants };
  }

  /**
   * Zulip's channel and topic wildcard permission checks (can_mention_many_users_group); returns
   * the topic's participants (sender included) when the message mentions them, else nobody.
   */
  private async checkWildcardMentions(
    auth: AuthContext,
    channel: ChannelForSend,
    topic: string,
    rendered: RenderedMessage,
  ): Promise<Set<number>> {
    const { user, realm } = auth;
    const canMentionMany = () => this.principals.userHolds(user, realm.id, realm.can_mention_many_users_group, true);
    if (rendered.mentionsStreamWildcard && wildcardNeedsPermission(channel.subscriberIds.length)) {
      if (!(await canMentionMany())) throw MessageErrors.channelWildcardNotAllowed();
    }
    if (!rendered.mentionsTopicWildcard) return new Set();
    const participants = new Set(await this.messages.topicParticipantIds(realm.id, channel.recipientId, topic));
    participants.add(user.id);
    if (wildcardNeedsPermission(participants.size) && !(await canMentionMany())) {
      throw MessageErrors.topicWildcardNotAllowed();
    }
    return participants;
  }

  /**
   * Writes a checked channel message. A plain send (no upload to claim, no widget, no automatic
   * topic visibility change, no in-transaction subscriber of MessageSentEvent) writes one
   * statement, the message with its UserMessage rows: it runs without BEGIN/COMMIT
   * (runSingleStatement); anything more runs in a transaction. Events go out after the commit
   * either way.
   */
  private async doSendToChannel(
    auth: AuthContext,
    input: SendMessageInput,
    checked: CheckedChannelMessage,
  ): Promise<SendMessageResult> {
    const plan = await this.planChannelMessage(auth, input, checked);
    const write = () => this.writeChannelMessage(auth, input, plan);
    const oneStatement =
      !plan.hasAttachment &&
      !plan.hasWidget &&
      plan.visibilityPolicy === null &&
      !this.bus.hasInTransactionSubscribers(MessageSentEvent);
    return oneStatement ? runSingleStatement(write) : runInTransaction(this.dataSource, write);
  }

  /**
   * Everything the write of a channel message needs, read before it (so that nothing after the
   * insert can fail for want of data): each subscriber's flags, the uploads it claims, the
   * sender's automatic topic visibility, who may not see the sender, the topic links.
   */
  private async planChannelMessage(
    auth: AuthContext,
    input: SendMessageInput,
    checked: CheckedChannelMessage,
  ): Promise<ChannelSendPlan> {
    const { user, realm } = auth;
    const { channel, render } = checked;
    const recipients = channel.subscriberIds;
    const mutedByIds = await this.mutedUsers.mutersOf(realm.id, user.id, recipients);
    const flagInputs = {
      senderId: user.id,
      readBySender: input.readBySender ?? defaultReadBySender(input.clientName),
      isDirectMessage: false,
      mentionedUserIds: new Set(render.rendered.mentionedUserIds),
      groupMentionedUserIds: checked.groupMembers,
      streamWildcard: render.rendered.mentionsStreamWildcard,
      topicWildcard: render.rendered.mentionsTopicWildcard,
      topicParticipantIds: checked.topicParticipants,
      mutedByIds,
      alertWordUserIds: render.alertWordUserIds,
    };
    // Every field written out (no spread of `checked`): one fixed object shape per send.
    return {
      content: checked.content,
      channel: checked.channel,
      topic: checked.topic,
      render: checked.render,
      groupMembers: checked.groupMembers,
      topicParticipants: checked.topicParticipants,
      recipients,
      flags: recipients.map((id) => userMessageFlags(id, flagInputs)),
      mutedByIds,
      hasAttachment:
        render.rendered.linkedUploadPathIds.length > 0 &&
        (await this.hasClaimableAttachments(auth, render.rendered.linkedUploadPathIds)),
      hasWidget: widgetFromContent(checked.content) !== null,
      visibilityPolicy: this.automaticVisibilityPolicy(user, channel),
      // A sender who is not subscribed may be someone a restricted guest subscriber cannot see.
      senderHiddenFrom: recipients.includes(user.id)
        ? undefined
        : await this.userAccess.whoCannotAccess(realm, user, recipients),
      topicLinks: (await this.linkifiers.forRendering(realm.id)).topicLinks,
      dateSent: new Date(),
    };
  }

  /** The writes of a channel message and its events, queued for after the commit. */
  private async writeChannelMessage(
    auth: AuthContext,
    input: SendMessageInput,
    plan: ChannelSendPlan,
  ): Promise<SendMessageResult> {
    const { user, realm } = auth;
    const { channel, topic } = plan;
    const message = newMessage(auth, input.clientName, {
      recipientId: channel.recipientId,
      subject: topic,
      content: plan.content,
      rendered: plan.render.rendered,
      hasAttachment: plan.hasAttachment,
      isChannelMessage: true,
      dateSent: plan.dateSent,
    });
    const id = await this.messages.insertMessage(message, plan.recipients, plan.flags, channel.id);
    if (!channel.topicExists) onCommit(() => this.channelCache.topicWritten(channel));
    const submessages = await this.writeMessageExtras(auth, id, message, plan.render.rendered);
    const result: SendMessageResult = { id };
    if (plan.visibilityPolicy !== null) {
      await this.applyAutomaticVisibility(auth, channel, topic, plan.visibilityPolicy, plan.dateSent);
      result.automatic_new_visibility_policy = plan.visibilityPolicy;
    }
    const row = sentRow(id, message, { streamId: channel.id, streamName: channel.name, dmUserIds: null });
    await this.queueMessageEvent(
      realm,
      echoOf(user.id, input),
      row,
      new Map([[user.id, userBriefOf(user)]]),
      plan.recipients,
      plan.flags,
      {
        hasAttachment: plan.hasAttachment,
        mutedByIds: plan.mutedByIds,
        submessages,
        notifyCandidateIds: channel.notifyCandidateIds,
        senderHiddenFrom: plan.senderHiddenFrom,
        topicLinks: plan.topicLinks,
      },
    );
    return result;
  }

  /**
   * After the insert: links the uploads the message may claim (Zulip's do_claim_attachments)
   * and stores its widget's submessage, if any (none of which costs a statement otherwise).
   */
  private async writeMessageExtras(
    auth: AuthContext,
    id: number,
    message: NewMessage,
    rendered: RenderedMessage,
  ): Promise<SubmessageRow[]> {
    if (message.hasAttachment) {
      await this.attachments.claim(auth.realm.id, auth.user.id, id, rendered.linkedUploadPathIds);
    }
    return this.addWidgets([{ messageId: id, senderId: auth.user.id, content: message.content }]);
  }

  /**
   * Sending changed the sender's visibility policy for the topic (Zulip's
   * set_visibility_policy_possible_for_new_message): stores it, with its user_topic event (and
   * muted_topics first when the topic was muted).
   */
  private async applyAutomaticVisibility(
    auth: AuthContext,
    channel: ChannelForSend,
    topic: string,
    policy: number,
    at: Date,
  ): Promise<void> {
    const { user, realm } = auth;
    await this.userTopics.setVisibilityPolicy({
      userId: user.id,
      streamId: channel.id,
      recipientId: channel.recipientId,
      topicName: topic,
      policy,
      at,
    });
    const userTopic = userTopicEvent({
      streamId: channel.id,
      topicName: topic,
      lastUpdated: at,
      visibilityPolicy: policy,
    });
    if (channel.senderVisibilityPolicy === VisibilityPolicy.MUTED) {
      // The topic leaves the legacy muted_topics list: its event comes first, as in Zulip's
      // do_set_user_topic_visibility_policy (queues registered for user_topic skip it).
      this.events.sendOnCommit(realm.id, mutedTopicsEvent(await this.channelQueries.mutedTopics(auth)), [user.id]);
    }
    // Clients without empty_topic_name see the empty topic's display name.
    this.events.sendOnCommit(realm.id, userTopic, [user.id], (queue) => ({
      ...userTopic,
      topic_name: topicForClient(topic, queue.options.clientCapabilities.empty_topic_name === true),
    }));
  }

  private automaticVisibilityPolicy(user: UserProfile, channel: ChannelForSend): number | null {
    if (!autoVisibilityEnabled(user.settings, user.isBot)) return null;
    // Whether an earlier message of the topic is accessible to the sender (their own
    // UserMessage rows when the channel's history is protected).
    const startsTopic = channel.historyPublicToSubscribers ? !channel.topicExists : !channel.topicExistsForSender;
    return visibilityPolicyAfterSend(
      user.settings,
      channel.senderMuted === true,
      channel.senderVisibilityPolicy,
      startsTopic,
    );
  }

  /** Zulip's check_user_group_mention_allowed; returns the members of the mentioned groups. */
  private async checkGroupMentions(
    auth: AuthContext,
    mentionedGroupIds: number[],
    groups: Array<{ id: number; name: string; canMentionGroup: number }>,
  ): Promise<Set<number>> {
    if (mentionedGroupIds.length === 0) return new Set();
    const { user, realm } = auth;
    const system = await this.principals.systemGroupIds(realm.id);
    for (const group of groups.filter((g) => mentionedGroupIds.includes(g.id))) {
      if (group.canMentionGroup === system.get(SystemGroups.EVERYONE)) continue;
      if (!(await this.principals.userHolds(user, realm.id, group.canMentionGroup, true))) {
        throw MessageErrors.cannotMentionGroup(group.name);
      }
    }
    return new Set(await this.userGroups.recursiveMemberIdsOfGroups(mentionedGroupIds));
  }

  private async hasClaimableAttachments(auth: AuthContext, pathIds: string[]): Promise<boolean> {
    if (pathIds.length === 0) return false;
    return (await this.attachments.claimable(auth.realm.id, auth.user.id, pathIds)).length > 0;
  }

  /**
   * Zulip's check_message for a direct message: the recipients' accounts, the sender's right to
   * see and write to them, the rendering and the group mentions.
   */
  private async checkDirectMessage(
    auth: AuthContext,
    recipients: UserBrief[],
    content: string,
  ): Promise<CheckedDirectMessage> {
    const { user, realm } = auth;
    await this.checkSenderCanAccessRecipients(auth, recipients);
    for (const r of recipients) {
      if (!r.isActive && !r.isMirrorDummy) {
        const host = this.realms.realmHost(realm);
        const email = r.emailAddressVisibility === 1 ? r.deliveryEmail : `user${r.id}@${host}`;
        throw MessageErrors.recipientDeactivated(email);
      }
    }
    const participants = new Map<number, UserBrief>(recipients.map((r) => [r.id, r]));
    participants.set(user.id, userBriefOf(user));
    const participantIds = [...participants.keys()].sort((a, b) => a - b);
    const hash = directMessageGroupHash(participantIds);
    await this.checkCanSendDirectMessage(auth, recipients, hash);
    const render = await this.renderer.render(auth, content);
    const groupMembers = await this.checkGroupMentions(auth, render.rendered.mentionedGroupIds, render.groups);
    return { content, participants, participantIds, hash, render, groupMembers };
  }

  /**
   * Writes a checked direct message, in a transaction: its conversation may have to be created
   * first. The reads come before it.
   */
  private async doSendDirect(
    auth: AuthContext,
    input: SendMessageInput,
    checked: CheckedDirectMessage,
  ): Promise<SendMessageResult> {
    const { user, realm } = auth;
    const { participantIds } = checked;
    const { rendered, alertWordUserIds } = checked.render;
    const mutedByIds = await this.mutedUsers.mutersOf(realm.id, user.id, participantIds);
    const flagInputs = {
      senderId: user.id,
      readBySender: input.readBySender ?? defaultReadBySender(input.clientName),
      isDirectMessage: true,
      mentionedUserIds: new Set(rendered.mentionedUserIds),
      groupMentionedUserIds: checked.groupMembers,
      streamWildcard: rendered.mentionsStreamWildcard,
      topicWildcard: false,
      topicParticipantIds: new Set<number>(),
      mutedByIds,
      alertWordUserIds,
    };
    const flags = participantIds.map((id) => userMessageFlags(id, flagInputs));
    const hasAttachment = await this.hasClaimableAttachments(auth, rendered.linkedUploadPathIds);
    const { topicLinks } = await this.linkifiers.forRendering(realm.id);
    return runInTransaction(this.dataSource, async () => {
      const recipientId = await this.messages.directMessageRecipient(checked.hash, participantIds);
      const message = newMessage(auth, input.clientName, {
        recipientId,
        subject: '',
        content: checked.content,
        rendered,
        hasAttachment,
        isChannelMessage: false,
        dateSent: new Date(),
      });
      const id = await this.messages.insertMessage(message, participantIds, flags, null);
      const submessages = await this.writeMessageExtras(auth, id, message, rendered);
      const row = sentRow(id, message, { streamId: null, streamName: null, dmUserIds: participantIds });
      await this.queueMessageEvent(realm, echoOf(user.id, input), row, checked.participants, participantIds, flags, {
        hasAttachment,
        mutedByIds,
        submessages,
        topicLinks,
      });
      return { id };
    });
  }

  /**
   * Messages from a system bot (Zulip's internal_send_stream_message /
   * internal_send_private_message, batched like do_send_messages): no permission checks, client
   * "Internal", unread for every recipient. The whole batch costs a constant number of
   * statements. Must run inside the caller's transaction; events go out after its commit.
   */
  async sendInternal(
    realm: Realm,
    sender: UserBrief,
    items: Array<{ target: InternalTarget; content: string }>,
  ): Promise<number[]> {
    if (items.length === 0) return [];
    const contents = items.map((i) => normalizeContent(i.content));
    const render = await this.renderer.renderAsSystem(realm, contents);
    const mentionedGroups = [...new Set(render.rendered.flatMap((r) => r.mentionedGroupIds))].filter((id) =>
      render.groups.some((g) => g.id === id),
    );
    const groupMembers = await this.userGroups.groupMembersByGroup(mentionedGroups);
    const addressed = await this.internalRecipients(sender, items);
    const dateSent = new Date();
    const prepared = items.map((item, i) =>
      prepareInternalMessage(realm, sender, item.target, addressed, {
        content: contents[i],
        rendered: render.rendered[i],
        alertWordUserIds: render.alertWordUserIds[i],
        participants: addressed.dmParticipants[i],
        groupMembers,
        dateSent,
      }),
    );
    const ids = await this.messages.insertMessages(
      prepared.map((p) => ({ message: p.message, userIds: p.recipients, flags: p.flags })),
    );
    const widgets = await this.addWidgets(
      prepared.map((p, i) => ({ messageId: ids[i], senderId: sender.id, content: p.message.content })),
    );
    const { topicLinks } = await this.linkifiers.forRendering(realm.id);
    for (const [i, p] of prepared.entries()) {
      await this.queueMessageEvent(
        realm,
        { senderId: sender.id, queueId: undefined, localId: undefined },
        sentRow(ids[i], p.message, p.where),
        addressed.users,
        p.recipients,
        p.flags,
        { submessages: widgets.filter((w) => w.messageId === ids[i]), topicLinks },
      );
    }
    return ids;
  }

  /**
   * The recipients of a batch of system-bot messages, in bulk: the DM conversations (created as
   * needed), the channels' active subscribers, and the users the message dicts show.
   */
  private async internalRecipients(
    sender: UserBrief,
    items: Array<{ target: InternalTarget }>,
  ): Promise<InternalRecipients> {
    const dmParticipants = items.map((i) =>
      i.target.kind === 'direct' ? [...new Set([sender.id, i.target.userId])].sort((a, b) => a - b) : null,
    );
    const dmRecipients = await this.messages.directMessageRecipients(
      dmParticipants
        .filter((p): p is number[] => p !== null)
        .map((ids) => ({ hash: directMessageGroupHash(ids), userIds: ids })),
    );
    const channelRecipientIds = items.flatMap((i) => (i.target.kind === 'channel' ? [i.target.recipientId] : []));
    const subscribers = await this.channelQueries.activeSubscriberIdsByRecipient(channelRecipientIds);
    const userIds = new Set<number>([sender.id, ...dmParticipants.flatMap((p) => p ?? [])]);
    const users = new Map((await this.messages.usersForDisplay([...userIds])).map((u) => [u.id, u]));
    users.set(sender.id, sender);
    return { dmParticipants, dmRecipients, subscribers, users };
  }

  /**
   * Zulip's do_widget_post_save_actions: a message whose content starts with `/poll` or `/todo`
   * gets its widget as a first submessage, from its sender. Messages without a widget cost no
   * statement; any number of widget messages cost one.
   */
  private async addWidgets(
    items: Array<{ messageId: number; senderId: number; content: string }>,
  ): Promise<SubmessageRow[]> {
    const widgets = items.flatMap((item) => {
      const widget = widgetFromContent(item.content);
      return widget ? [{ ...item, content: widgetSubmessageContent(widget) }] : [];
    });
    if (widgets.length === 0) return [];
    const ids = await this.submessages.addWidgets(widgets);
    return widgets.map((w, i) => ({
      id: ids[i],
      messageId: w.messageId,
      senderId: w.senderId,
      msgType: 'widget',
      content: w.content,
    }));
  }

  /**
   * Zulip's check_sender_can_access_recipients: guests in realms that restrict user access may only
   * write to users they can see (users/user-access.ts).
   */
  private async checkSenderCanAccessRecipients(auth: AuthContext, recipients: UserBrief[]): Promise<void> {
    const { user, realm } = auth;
    if (!isGuest(user)) return;
    const others = recipients.filter((r) => r.id !== user.id);
    const access = await this.userAccess.forViewer(
      user,
      realm,
      others.map((r) => r.id),
    );
    if (others.some((r) => !canAccessUser(access, r))) {
      throw MessageErrors.cannotAccessSomeRecipients();
    }
  }

  /**
   * Zulip's check_can_send_direct_message: the sender and every recipient are asked together (one
   * query at most, however many recipients and nested groups: users/principal.service.ts).
   */
  private async checkCanSendDirectMessage(auth: AuthContext, recipients: UserBrief[], hash: string): Promise<void> {
    const { user, realm } = auth;
    if (user.isBot) return;
    if (recipients.every((r) => r.isBot || r.id === user.id)) return;
    const system = await this.principals.systemGroupIds(realm.id);
    const permissionGroup = realm.direct_message_permission_group;
    if (permissionGroup !== system.get(SystemGroups.EVERYONE)) {
      if (!(await this.principals.anyUserHolds([user, ...recipients], realm.id, permissionGroup, true))) {
        throw permissionGroup === system.get(SystemGroups.NOBODY)
          ? MessageErrors.directMessagesDisabled()
          : MessageErrors.noAuthorizingRecipient();
      }
    }
    const initiatorGroup = realm.direct_message_initiator_group;
    if (initiatorGroup === system.get(SystemGroups.EVERYONE)) return;
    if (await this.principals.userHolds(user, realm.id, initiatorGroup, true)) return;
    const recipientId = await this.messages.existingDirectMessageRecipient(hash);
    if (recipientId === null || !(await this.messages.conversationHasMessages(realm.id, recipientId))) {
      throw MessageErrors.cannotInitiateDirectMessages();
    }
  }

  /**
   * The message event: one dict per client option set (apply_markdown, client_gravatar,
   * empty-topic support), each user's flags, and local_message_id only for the sender's queue
   * named by queue_id.
   */
  private async queueMessageEvent(
    realm: Realm,
    echo: { senderId: number; queueId: string | undefined; localId: string | undefined },
    row: MessageRow,
    users: ReadonlyMap<number, UserBrief>,
    recipientIds: number[],
    flags: number[],
    extras: {
      hasAttachment?: boolean;
      mutedByIds?: ReadonlySet<number>;
      submessages?: readonly SubmessageRow[];
      /** Channel messages loaded by the send: see ChannelForSend.notifyCandidateIds. */
      notifyCandidateIds?: readonly number[];
      /** Recipients who may not see the sender (shown to them as an inaccessible user). */
      senderHiddenFrom?: ReadonlySet<number>;
      /** The realm's topic links (loaded by the caller before its writes). */
      topicLinks: FormatOptions['topicLinks'];
    },
  ): Promise<void> {
    const {
      hasAttachment = false,
      mutedByIds,
      submessages = [],
      notifyCandidateIds,
      senderHiddenFrom,
      topicLinks,
    } = extras;
    const flagsByUser = new Map(recipientIds.map((id, i) => [id, flags[i]]));
    const realmHost = this.realms.realmHost(realm);
    const dicts = new Map<string, Record<string, unknown>>();
    const hiddenSender = new Set([row.senderId]);
    const dictFor = (queue: { options: QueueOptions }, userId: number) => {
      const hidden = senderHiddenFrom?.has(userId) === true;
      const opts: FormatOptions = {
        applyMarkdown: queue.options.applyMarkdown,
        clientGravatar: queue.options.clientGravatar,
        allowEmptyTopicName: queue.options.clientCapabilities.empty_topic_name === true,
        realmStringId: realm.stringId,
        realmHost,
        topicLinks,
        inaccessibleSenderIds: hidden ? hiddenSender : undefined,
      };
      const key = `${opts.applyMarkdown}:${opts.clientGravatar}:${opts.allowEmptyTopicName}:${hidden}`;
      let dict = dicts.get(key);
      if (!dict) {
        // One dict for every queue with these options: serialised once for all (event-json.ts).
        dict = shareJson(messageDict(row, row.renderedContent ?? '', users, [], opts, submessages));
        dicts.set(key, dict);
      }
      return dict;
    };
    await this.bus.publish(
      new MessageSentEvent({
        realm,
        message: row,
        users,
        recipientIds,
        flags,
        hasAttachment,
        mutedByIds,
        notifyCandidateIds: notifyCandidateIds && new Set(notifyCandidateIds),
        senderHiddenFrom: senderHiddenFrom && senderHiddenFrom.size > 0 ? senderHiddenFrom : undefined,
      }),
    );
    this.events.sendOnCommitPerQueue(realm.id, 'message', recipientIds, (queue, userId) => {
      const event: NewMessageEvent = {
        type: 'message',
        message: dictFor(queue, userId),
        flags: flagsToApi(flagsByUser.get(userId) ?? 0),
      };
      if (userId === echo.senderId && echo.queueId !== undefined && queue.id === echo.queueId) {
        event.local_message_id = echo.localId;
      }
      return event;
    });
  }
}
