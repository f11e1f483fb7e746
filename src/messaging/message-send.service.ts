import { Injectable } from '@nestjs/common';
import { UserGroupsQueryService } from '../users/user-groups-query.service';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { runInTransaction } from '../database/transaction';
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
import { MARKDOWN_VERSION, MessageRenderService } from './message-render.service';
import {
  hasNul,
  normalizeContent,
  normalizeTopicForSend,
  pyStrip,
  topicForClient,
  truncateTopic,
} from './message-text';
import { MessageType } from './message.entity';
import { ChannelForSend, MessagesRepository } from './messages.repository';
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
> & { subscribed: boolean };

/** Where a message goes, once the addressee has been validated. */
type Addressee =
  | { kind: 'channel'; byName: string | null; byId: number | null; topic: string }
  | { kind: 'direct'; recipients: UserBrief[] };

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
  ) {}

  async sendMessage(auth: AuthContext, input: SendMessageInput): Promise<SendMessageResult> {
    if (input.queueId !== undefined && input.localId === undefined) {
      // DECISIONS #6: local echo needs both.
      throw Errors.missingArgumentPlain('local_id');
    }
    return runInTransaction(this.dataSource, async () => {
      const addressee = await this.buildAddressee(auth, input);
      const content = normalizeContent(input.content);
      if (addressee.kind === 'channel') {
        return (await this.sendToChannel(auth, input, addressee, content)) as SendMessageResult;
      }
      return (await this.sendDirect(auth, input, addressee.recipients, content)) as SendMessageResult;
    });
  }

  /**
   * Every check of sendMessage, and the rendering, without writing the message (Zulip's
   * check_message, which scheduling runs when a message is scheduled or edited).
   */
  async checkMessage(auth: AuthContext, input: SendMessageInput): Promise<CheckedMessage> {
    return runInTransaction(this.dataSource, async () => {
      const addressee = await this.buildAddressee(auth, input);
      const content = normalizeContent(input.content);
      if (addressee.kind === 'channel') {
        return (await this.sendToChannel(auth, input, addressee, content, true)) as CheckedMessage;
      }
      return (await this.sendDirect(auth, input, addressee.recipients, content, true)) as CheckedMessage;
    });
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
      const channel = await this.messages.channelForSendByName(realm.id, user.id, name, topic);
      if (!channel) {
        const escaped = htmlEscape(name);
        throw ChannelErrors.doesNotExist(escaped);
      }
      return channel;
    }
    const id = addressee.byId!;
    const channel = isDbId(id) ? await this.messages.channelForSendById(realm.id, user.id, id, topic) : null;
    if (!channel) {
      throw ChannelErrors.idDoesNotExist(id);
    }
    return channel;
  }

  /** Zulip's access_stream_for_send_message (also used for channel typing notifications). */
  async checkChannelSendPermission(auth: AuthContext, channel: PostableChannel): Promise<void> {
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
    if (channel.subscribed) return;
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

  private async sendToChannel(
    auth: AuthContext,
    input: SendMessageInput,
    addressee: Extract<Addressee, { kind: 'channel' }>,
    content: string,
    checkOnly = false,
  ): Promise<SendMessageResult | CheckedMessage> {
    const { user, realm } = auth;
    const topic = truncateTopic(addressee.topic);
    const channel = await this.loadChannel(auth, addressee, topic);
    await this.checkChannelSendPermission(auth, { ...channel, subscribed: channel.senderSubscribed });
    await this.checkCanCreateTopic(auth, channel);
    const policyError = topicsPolicyError(effectiveTopicsPolicy(channel.topicsPolicy, realm.topicsPolicy), topic);
    if (policyError) throw Errors.badRequest(policyError);

    const { rendered, groups, alertWordUserIds } = await this.renderer.render(auth, content);
    const canMentionMany = () => this.principals.userHolds(user, realm.id, realm.can_mention_many_users_group, true);
    if (rendered.mentionsStreamWildcard && wildcardNeedsPermission(channel.subscriberIds.length)) {
      if (!(await canMentionMany())) {
        throw MessageErrors.channelWildcardNotAllowed();
      }
    }
    let topicParticipants = new Set<number>();
    if (rendered.mentionsTopicWildcard) {
      topicParticipants = new Set(await this.messages.topicParticipantIds(realm.id, channel.recipientId, topic));
      topicParticipants.add(user.id);
      if (wildcardNeedsPermission(topicParticipants.size) && !(await canMentionMany())) {
        throw MessageErrors.topicWildcardNotAllowed();
      }
    }
    const groupMembers = await this.checkGroupMentions(auth, rendered.mentionedGroupIds, groups);
    if (checkOnly) {
      const checked: CheckedMessage = {
        content,
        renderedContent: rendered.html,
        recipientType: 'stream',
        streamId: channel.id,
        topic,
        toUserIds: null,
      };
      return checked;
    }

    const readBySender = input.readBySender ?? defaultReadBySender(input.clientName);
    const flagInputs = {
      senderId: user.id,
      readBySender,
      isDirectMessage: false,
      mentionedUserIds: new Set(rendered.mentionedUserIds),
      groupMentionedUserIds: groupMembers,
      streamWildcard: rendered.mentionsStreamWildcard,
      topicWildcard: rendered.mentionsTopicWildcard,
      topicParticipantIds: topicParticipants,
      mutedByIds: await this.mutedUsers.mutersOf(realm.id, user.id, channel.subscriberIds),
      alertWordUserIds,
    };
    const recipients = channel.subscriberIds;
    const flags = recipients.map((id) => userMessageFlags(id, flagInputs));
    const dateSent = new Date();
    const hasAttachment = await this.hasClaimableAttachments(auth, rendered.linkedUploadPathIds);
    const id = await this.messages.insertMessage(
      {
        realmId: realm.id,
        senderId: user.id,
        recipientId: channel.recipientId,
        subject: topic,
        content,
        renderedContent: rendered.html,
        renderedContentVersion: MARKDOWN_VERSION,
        dateSent,
        sendingClient: input.clientName,
        hasAttachment,
        hasImage: rendered.hasImage,
        hasLink: rendered.hasLink,
        isChannelMessage: true,
        type: MessageType.NORMAL,
      },
      recipients,
      flags,
      channel.id,
    );
    if (hasAttachment) await this.messages.claimAttachments(realm.id, user.id, id, rendered.linkedUploadPathIds);
    const submessages = await this.addWidgets([{ messageId: id, senderId: user.id, content }]);

    const result: SendMessageResult = { id };
    const policy = this.automaticVisibilityPolicy(user, channel);
    if (policy !== null) {
      await this.userTopics.setVisibilityPolicy({
        userId: user.id,
        streamId: channel.id,
        recipientId: channel.recipientId,
        topicName: topic,
        policy,
        at: dateSent,
      });
      const userTopic = userTopicEvent({
        streamId: channel.id,
        topicName: topic,
        lastUpdated: dateSent,
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
      result.automatic_new_visibility_policy = policy;
    }

    const row: MessageRow = {
      id,
      realmId: realm.id,
      senderId: user.id,
      recipientId: channel.recipientId,
      subject: topic,
      content,
      renderedContent: rendered.html,
      dateSent,
      sendingClient: input.clientName,
      lastEditTime: null,
      editHistory: null,
      isChannelMessage: true,
      streamId: channel.id,
      streamName: channel.name,
      dmUserIds: null,
    };
    // A sender who is not subscribed may be someone a restricted guest subscriber cannot see.
    const hiddenFrom = channel.subscriberIds.includes(user.id)
      ? undefined
      : await this.userAccess.whoCannotAccess(realm, user, recipients);
    await this.queueMessageEvent(
      realm,
      echoOf(user.id, input),
      row,
      new Map([[user.id, userBriefOf(user)]]),
      recipients,
      flags,
      {
        hasAttachment,
        mutedByIds: flagInputs.mutedByIds,
        submessages,
        notifyCandidateIds: channel.notifyCandidateIds,
        senderHiddenFrom: hiddenFrom,
      },
    );
    return result;
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
    return (await this.messages.claimableAttachmentIds(auth.realm.id, auth.user.id, pathIds)).length > 0;
  }

  private async sendDirect(
    auth: AuthContext,
    input: SendMessageInput,
    recipients: UserBrief[],
    content: string,
    checkOnly = false,
  ): Promise<SendMessageResult | CheckedMessage> {
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

    const { rendered, groups, alertWordUserIds } = await this.renderer.render(auth, content);
    const groupMembers = await this.checkGroupMentions(auth, rendered.mentionedGroupIds, groups);
    if (checkOnly) {
      const others = participantIds.filter((id) => id !== user.id);
      const checked: CheckedMessage = {
        content,
        renderedContent: rendered.html,
        recipientType: 'private',
        streamId: null,
        topic: '',
        toUserIds: others.length > 0 ? others : [user.id],
      };
      return checked;
    }
    const recipientId = await this.messages.directMessageRecipient(hash, participantIds);
    const readBySender = input.readBySender ?? defaultReadBySender(input.clientName);
    const flagInputs = {
      senderId: user.id,
      readBySender,
      isDirectMessage: true,
      mentionedUserIds: new Set(rendered.mentionedUserIds),
      groupMentionedUserIds: groupMembers,
      streamWildcard: rendered.mentionsStreamWildcard,
      topicWildcard: false,
      topicParticipantIds: new Set<number>(),
      mutedByIds: await this.mutedUsers.mutersOf(realm.id, user.id, participantIds),
      alertWordUserIds,
    };
    const flags = participantIds.map((id) => userMessageFlags(id, flagInputs));
    const dateSent = new Date();
    const hasAttachment = await this.hasClaimableAttachments(auth, rendered.linkedUploadPathIds);
    const id = await this.messages.insertMessage(
      {
        realmId: realm.id,
        senderId: user.id,
        recipientId,
        subject: '',
        content,
        renderedContent: rendered.html,
        renderedContentVersion: MARKDOWN_VERSION,
        dateSent,
        sendingClient: input.clientName,
        hasAttachment,
        hasImage: rendered.hasImage,
        hasLink: rendered.hasLink,
        isChannelMessage: false,
        type: MessageType.NORMAL,
      },
      participantIds,
      flags,
      null,
    );
    if (hasAttachment) await this.messages.claimAttachments(realm.id, user.id, id, rendered.linkedUploadPathIds);
    const submessages = await this.addWidgets([{ messageId: id, senderId: user.id, content }]);
    const row: MessageRow = {
      id,
      realmId: realm.id,
      senderId: user.id,
      recipientId,
      subject: '',
      content,
      renderedContent: rendered.html,
      dateSent,
      sendingClient: input.clientName,
      lastEditTime: null,
      editHistory: null,
      isChannelMessage: false,
      streamId: null,
      streamName: null,
      dmUserIds: participantIds,
    };
    await this.queueMessageEvent(realm, echoOf(user.id, input), row, participants, participantIds, flags, {
      hasAttachment,
      mutedByIds: flagInputs.mutedByIds,
      submessages,
    });
    return { id };
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
    const { rendered, groups, alertWordUserIds } = await this.renderer.renderAsSystem(realm, contents);
    const mentionedGroups = [...new Set(rendered.flatMap((r) => r.mentionedGroupIds))].filter((id) =>
      groups.some((g) => g.id === id),
    );
    const groupMembers = await this.userGroups.groupMembersByGroup(mentionedGroups);

    // Recipients: DM conversations (created as needed) and channel subscribers, in bulk.
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

    const dateSent = new Date();
    const prepared = items.map((item, i) => {
      const target = item.target;
      const participants = dmParticipants[i];
      const recipientId =
        target.kind === 'channel' ? target.recipientId : dmRecipients.get(directMessageGroupHash(participants!))!;
      const recipients = target.kind === 'channel' ? (subscribers.get(target.recipientId) ?? []) : participants!;
      const r = rendered[i];
      const members = new Set(r.mentionedGroupIds.flatMap((g) => groupMembers.get(g) ?? []));
      const flagInputs = {
        senderId: sender.id,
        readBySender: false,
        isDirectMessage: target.kind === 'direct',
        mentionedUserIds: new Set(r.mentionedUserIds),
        groupMentionedUserIds: members,
        streamWildcard: r.mentionsStreamWildcard,
        topicWildcard: false,
        topicParticipantIds: new Set<number>(),
        alertWordUserIds: alertWordUserIds[i],
      };
      const row: MessageRow = {
        id: 0,
        realmId: realm.id,
        senderId: sender.id,
        recipientId,
        subject: target.kind === 'channel' ? truncateTopic(target.topic) : '',
        content: contents[i],
        renderedContent: r.html,
        dateSent,
        sendingClient: 'Internal',
        lastEditTime: null,
        editHistory: null,
        isChannelMessage: target.kind === 'channel',
        streamId: target.kind === 'channel' ? target.channelId : null,
        streamName: target.kind === 'channel' ? target.name : null,
        dmUserIds: target.kind === 'channel' ? null : recipients,
      };
      return { row, rendered: r, recipients, flags: recipients.map((id) => userMessageFlags(id, flagInputs)) };
    });
    const ids = await this.messages.insertMessages(
      prepared.map((p) => ({
        message: {
          realmId: realm.id,
          senderId: sender.id,
          recipientId: p.row.recipientId,
          subject: p.row.subject,
          content: p.row.content,
          renderedContent: p.rendered.html,
          renderedContentVersion: MARKDOWN_VERSION,
          dateSent,
          sendingClient: 'Internal',
          hasAttachment: false,
          hasImage: p.rendered.hasImage,
          hasLink: p.rendered.hasLink,
          isChannelMessage: p.row.isChannelMessage,
          type: MessageType.NORMAL,
        },
        userIds: p.recipients,
        flags: p.flags,
      })),
    );
    const widgets = await this.addWidgets(
      prepared.map((p, i) => ({ messageId: ids[i], senderId: sender.id, content: p.row.content })),
    );
    for (const [i, p] of prepared.entries()) {
      p.row.id = ids[i];
      await this.queueMessageEvent(
        realm,
        { senderId: sender.id, queueId: undefined, localId: undefined },
        p.row,
        users,
        p.recipients,
        p.flags,
        { submessages: widgets.filter((w) => w.messageId === ids[i]) },
      );
    }
    return ids;
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
    } = {},
  ): Promise<void> {
    const { hasAttachment = false, mutedByIds, submessages = [], notifyCandidateIds, senderHiddenFrom } = extras;
    const flagsByUser = new Map(recipientIds.map((id, i) => [id, flags[i]]));
    const realmHost = this.realms.realmHost(realm);
    const { topicLinks } = await this.linkifiers.forRendering(realm.id);
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
        dict = messageDict(row, row.renderedContent ?? '', users, [], opts, submessages);
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
