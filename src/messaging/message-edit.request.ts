import { Injectable } from '@nestjs/common';
import { TopicsPolicy } from '../channels/channel-settings';
import { ChannelErrors, TopicErrors } from '../channels/channel.errors';
import { ChannelQueriesService } from '../channels/channel-queries.service';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { Role } from '../common/roles';
import { SystemGroups } from '../realm/system-groups';
import { GroupSettingsService } from '../users/group-settings.service';
import { PrincipalService } from '../users/principal.service';
import { UserGroupsQueryService } from '../users/user-groups-query.service';
import { Clock } from './clock';
import type { PropagateMode } from './dto/message-edit.dto';
import { hasChannelContentAccess } from './message-access.policy';
import { AccessedMessage, MessageAccessService } from './message-access.service';
import { MessageEditPermissions } from './message-edit.permissions';
import {
  EDIT_LIMIT_BUFFER_SECONDS,
  isResolvingGeneralChat,
  moveDeadlineSeconds,
  pastDeadline,
  sha256Hex,
  topicChange,
  type TopicChange,
} from './message-edit.policy';
import { ChannelForEdit, MessageEditRepository } from './message-edit.repository';
import { MessageRenderService, type RenderResult } from './message-render.service';
import { MessageSendService } from './message-send.service';
import { firstNonPrintablePosition, mapTopicPlaceholder, normalizeContent, pyStrip } from './message-text';
import { MessageErrors } from './message.errors';
import { MessagesRepository } from './messages.repository';
import { effectiveTopicsPolicy, topicsPolicyError, wildcardNeedsPermission } from './send.policy';

/** PATCH /messages/{id}'s parameters, as the controller parsed them. */
export interface UpdateMessageInput {
  content?: string;
  prevContentSha256?: string;
  propagateMode: PropagateMode;
  sendNotificationToNewThread: boolean;
  sendNotificationToOldThread: boolean;
  streamId?: number;
  topic?: string;
}

type EditedMessage = AccessedMessage['message'];

/** A content edit: the normalized text, its rendering, and who its mentions reach. */
export interface ContentEdit {
  content: string;
  render: RenderResult;
  /** Members of the mentioned user groups (recursively). */
  groupMembers: Set<number>;
  /** Participants of the topic, when the content mentions @topic. */
  topicParticipants: Set<number>;
}

/** Where a channel message is and where it goes (Zulip's StreamMessageEditRequest). */
export interface ChannelEdit {
  orig: ChannelForEdit;
  /** The channel it moves to; `orig` when it stays. */
  target: ChannelForEdit;
  origTopic: string;
  /** The topic it ends in (`origTopic` when the topic does not change). */
  targetTopic: string;
  /** The topic change, null when the topic stays (is_topic_edited). */
  topic: TopicChange | null;
  /** Moved to another channel (is_stream_edited). */
  streamEdited: boolean;
  /** Topic or channel changes (is_message_moved). */
  moved: boolean;
  /** Only resolves or unresolves the topic. */
  resolveToggle: boolean;
}

/**
 * Everything an edit will do, parsed, loaded and authorized (Zulip's MessageEditRequest, from
 * build_message_edit_request): once built, no 400 remains; the actions only write.
 */
export interface MessageEditRequest {
  auth: AuthContext;
  /** The message, locked FOR UPDATE. */
  accessed: AccessedMessage;
  now: Date;
  propagateMode: PropagateMode;
  notifyOldThread: boolean;
  notifyNewThread: boolean;
  /** The content edit, null when the content stays. */
  content: ContentEdit | null;
  /** A channel message's place (also for content-only edits); null for a direct message. */
  channel: ChannelEdit | null;
}

/** Zulip's check_update_message step 3: may the caller change the content? */
function checkContentPermission(auth: AuthContext, message: EditedMessage, input: UpdateMessageInput, now: Date) {
  if (input.content === undefined) return;
  const { user, realm } = auth;
  if (!realm.allowMessageEditing) throw MessageErrors.editingDisabled();
  if (message.senderId !== user.id) throw MessageErrors.cannotEdit();
  if (pastDeadline(message.dateSent, now, realm.messageContentEditLimitSeconds, EDIT_LIMIT_BUFFER_SECONDS)) {
    throw MessageErrors.editTimeLimitPassed();
  }
}

/** Steps 4 and 5: the requested topic and channel (undefined when they do not change), and the payload's rules. */
export function parseEditPayload(
  message: EditedMessage,
  input: UpdateMessageInput,
): { topicName: string | undefined; streamId: number | undefined } {
  let topicName = input.topic;
  if (topicName !== undefined) {
    topicName = mapTopicPlaceholder(pyStrip(topicName));
    if (topicName === message.subject) topicName = undefined;
  }
  // A move to the channel the message is already in is no channel change.
  const streamId = input.streamId !== undefined && input.streamId !== message.streamId ? input.streamId : undefined;
  if (topicName === undefined && input.content === undefined && streamId === undefined) {
    throw MessageErrors.nothingToChange();
  }
  if (!message.isChannelMessage) {
    if (streamId !== undefined) throw MessageErrors.directMessageToChannel();
    if (topicName !== undefined) throw MessageErrors.directMessageTopic();
  }
  if (input.propagateMode !== 'change_one' && topicName === undefined && streamId === undefined) {
    throw MessageErrors.propagateModeWithoutTopicEdit();
  }
  if (topicName !== undefined && isResolvingGeneralChat(topicName)) {
    throw MessageErrors.generalChatCannotBeResolved();
  }
  if (topicName !== undefined) {
    const bad = firstNonPrintablePosition(topicName);
    if (bad !== null) throw TopicErrors.invalidCharacter(bad);
  }
  if (streamId !== undefined && input.content !== undefined) {
    throw MessageErrors.contentChangeWhileMoving();
  }
  if (input.prevContentSha256 !== undefined && input.prevContentSha256 !== sha256Hex(message.content)) {
    throw MessageErrors.prevContentMismatch();
  }
  return { topicName, streamId };
}

/**
 * Builds a MessageEditRequest for PATCH /messages/{id} (Zulip's check_update_message →
 * build_message_edit_request): Zulip's checks in Zulip's order, every refusal before any write.
 */
@Injectable()
export class MessageEditRequestBuilder {
  constructor(
    private readonly access: MessageAccessService,
    private readonly repo: MessageEditRepository,
    private readonly messages: MessagesRepository,
    private readonly renderer: MessageRenderService,
    private readonly sender: MessageSendService,
    private readonly groupSettings: GroupSettingsService,
    private readonly clock: Clock,
    private readonly principals: PrincipalService,
    private readonly userGroups: UserGroupsQueryService,
    private readonly channelQueries: ChannelQueriesService,
    private readonly permissions: MessageEditPermissions,
  ) {}

  async build(auth: AuthContext, messageId: number, input: UpdateMessageInput): Promise<MessageEditRequest> {
    const accessed = await this.access.accessMessage(auth, messageId, { lock: true, isModifying: true });
    const message = accessed.message;
    const now = this.clock.now();
    checkContentPermission(auth, message, input, now);
    const { topicName, streamId } = parseEditPayload(message, input);
    let newContent: string | null = null;
    if (input.content !== undefined) {
      newContent = normalizeContent(pyStrip(input.content) === '' ? '(deleted)' : input.content);
    }
    const channel = message.isChannelMessage ? await this.loadChannelEdit(auth, message, topicName, streamId) : null;
    if (channel?.topic) await this.checkTopicPermission(auth, message, channel, now);
    const content = newContent === null ? null : await this.renderContent(auth, message, newContent);
    if (channel) await this.checkMovePermissions(auth, accessed, channel, input.propagateMode, now);
    return {
      auth,
      accessed,
      now,
      propagateMode: input.propagateMode,
      notifyOldThread: input.sendNotificationToOldThread,
      notifyNewThread: input.sendNotificationToNewThread,
      content,
      channel,
    };
  }

  /** The channels and topics before and after, and the target channel's topics policy. */
  private async loadChannelEdit(
    auth: AuthContext,
    message: EditedMessage,
    topicName: string | undefined,
    streamId: number | undefined,
  ): Promise<ChannelEdit> {
    const { user, realm } = auth;
    const orig = (await this.repo.channelForEdit(realm.id, user.id, message.streamId!))!;
    let target = orig;
    if (streamId !== undefined) {
      const found = await this.repo.channelForEdit(realm.id, user.id, streamId);
      const groups = found && found.inviteOnly && !found.subscribed ? await this.principals.groupIdsOf(user.id) : null;
      if (!found || !hasChannelContentAccess(user, found, found.subscribed, groups)) {
        throw ChannelErrors.invalidId();
      }
      target = found;
    }
    const topic = topicName !== undefined ? topicChange(message.subject, topicName) : null;
    const streamEdited = streamId !== undefined;
    const targetTopic = topic?.target ?? message.subject;
    const policy = effectiveTopicsPolicy(target.topicsPolicy, realm.topicsPolicy);
    if (targetTopic === '' && (topic !== null || streamEdited) && policy === TopicsPolicy.disable_empty_topic) {
      throw Errors.badRequest(topicsPolicyError(policy, '')!);
    }
    if (policy === TopicsPolicy.empty_topic_only && targetTopic !== '') {
      throw Errors.badRequest(topicsPolicyError(policy, targetTopic)!);
    }
    return {
      orig,
      target,
      origTopic: message.subject,
      targetTopic,
      topic,
      streamEdited,
      moved: streamEdited || topic !== null,
      resolveToggle: topic !== null && (topic.resolved || topic.unresolved),
    };
  }

  /** Step 6: renaming, resolving or unresolving the topic. */
  private async checkTopicPermission(auth: AuthContext, message: EditedMessage, edit: ChannelEdit, now: Date) {
    const { user, realm } = auth;
    if (edit.resolveToggle) {
      if (!(await this.permissions.canResolveTopics(auth, edit.orig, edit.target))) {
        throw MessageErrors.cannotResolveTopics();
      }
      return;
    }
    if (!(await this.permissions.canEditTopic(auth, edit.orig, edit.target))) {
      throw MessageErrors.cannotEdit();
    }
    if (
      user.role > Role.MODERATOR &&
      pastDeadline(message.dateSent, now, realm.moveMessagesWithinStreamLimitSeconds, EDIT_LIMIT_BUFFER_SECONDS)
    ) {
      throw MessageErrors.topicEditTimeLimitPassed();
    }
  }

  /** Step 7: the rendering, and the mention permissions (the sender's, as Zulip). */
  private async renderContent(auth: AuthContext, message: EditedMessage, content: string): Promise<ContentEdit> {
    const { realm } = auth;
    const render = await this.renderer.render(auth, content);
    const { rendered, groups } = render;
    let groupMembers = new Set<number>();
    let topicParticipants = new Set<number>();
    const canMentionMany = () => this.permissions.inGroup(auth, realm.can_mention_many_users_group, true);
    if (message.isChannelMessage && rendered.mentionsStreamWildcard) {
      const subscribers = await this.channelQueries.activeSubscriberIds(message.recipientId);
      if (wildcardNeedsPermission(subscribers.length) && !(await canMentionMany())) {
        throw MessageErrors.channelWildcardNotAllowed();
      }
    }
    if (message.isChannelMessage && rendered.mentionsTopicWildcard) {
      topicParticipants = new Set(
        await this.messages.topicParticipantIds(realm.id, message.recipientId, message.subject),
      );
      if (wildcardNeedsPermission(topicParticipants.size) && !(await canMentionMany())) {
        throw MessageErrors.topicWildcardNotAllowed();
      }
    }
    if (rendered.mentionedGroupIds.length > 0) {
      const system = await this.groupSettings.systemGroupIds(realm.id);
      for (const group of groups.filter((g) => rendered.mentionedGroupIds.includes(g.id))) {
        if (group.canMentionGroup === system.get(SystemGroups.EVERYONE)) continue;
        if (!(await this.permissions.inGroup(auth, group.canMentionGroup, true))) {
          throw MessageErrors.cannotMentionGroup(group.name);
        }
      }
      groupMembers = new Set(await this.userGroups.recursiveMemberIdsOfGroups(rendered.mentionedGroupIds));
    }
    return { content, render, groupMembers, topicParticipants };
  }

  /** Steps 8 to 10: moving out of the channel, the change_all time limit, creating the target topic. */
  private async checkMovePermissions(
    auth: AuthContext,
    accessed: AccessedMessage,
    edit: ChannelEdit,
    propagateMode: PropagateMode,
    now: Date,
  ) {
    const { user, realm } = auth;
    const isModerator = user.role <= Role.MODERATOR;
    if (edit.streamEdited) {
      if (!(await this.permissions.canMoveOutOfChannel(auth, edit.orig))) {
        throw MessageErrors.cannotMove();
      }
      await this.sender.checkChannelSendPermission(auth, edit.target, edit.target.subscribed);
      const sent = accessed.message.dateSent;
      if (
        !isModerator &&
        pastDeadline(sent, now, realm.moveMessagesBetweenStreamsLimitSeconds, EDIT_LIMIT_BUFFER_SECONDS)
      ) {
        throw MessageErrors.channelEditTimeLimitPassed();
      }
    }
    if (propagateMode === 'change_all' && !isModerator && edit.moved && !edit.resolveToggle) {
      await this.checkChangeAllTimeLimit(auth, accessed, edit, now);
    }
    if (edit.moved && !edit.resolveToggle) await this.checkCanCreateTopic(auth, edit.target, edit.targetTopic);
  }

  private async checkChangeAllTimeLimit(auth: AuthContext, accessed: AccessedMessage, edit: ChannelEdit, now: Date) {
    const { realm } = auth;
    const deadline = moveDeadlineSeconds(
      edit.topic !== null,
      edit.streamEdited,
      realm.moveMessagesWithinStreamLimitSeconds,
      realm.moveMessagesBetweenStreamsLimitSeconds,
    );
    if (deadline === null) return;
    const full = await this.permissions.historyAccess(auth, edit.orig);
    const all = await this.repo.topicMessages(realm.id, accessed.message.recipientId, edit.origTopic, {
      viewerId: full ? undefined : auth.user.id,
    });
    const oldest = now.getTime() - deadline * 1000;
    const allowed = all
      .filter((m) => new Date(m.date_sent).getTime() > oldest)
      .sort((a, b) => new Date(a.date_sent).getTime() - new Date(b.date_sent).getTime() || a.id - b.id);
    if (allowed.length === all.length) return;
    throw MessageErrors.moveTimeLimitExceeded(allowed, all.length);
  }

  private async checkCanCreateTopic(auth: AuthContext, channel: ChannelForEdit, topic: string): Promise<void> {
    const system = await this.groupSettings.systemGroupIds(auth.realm.id);
    if (channel.canCreateTopicGroup === system.get(SystemGroups.EVERYONE)) return;
    if (await this.repo.topicExists(auth.realm.id, channel.recipientId, topic)) return;
    if (
      channel.canCreateTopicGroup !== system.get(SystemGroups.NOBODY) &&
      (await this.permissions.inGroup(auth, channel.canCreateTopicGroup, true))
    ) {
      return;
    }
    throw MessageErrors.cannotCreateTopics();
  }
}
