import { Injectable } from '@nestjs/common';
import { ChannelQueriesService } from '../channels/channel-queries.service';
import { LinkifierService } from '../linkifiers/linkifier.service';
import { UserGroupsQueryService } from '../users/user-groups-query.service';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { Role } from '../common/roles';
import { runInTransaction } from '../database/transaction';
import { RealmService } from '../realm/realm.service';
import { SystemGroups } from '../realm/system-groups';
import { GroupSettingsService } from '../users/group-settings.service';
/** Zulip's settings.NOTIFICATION_BOT. */
const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';
import { Clock } from './clock';
import { Flag, flagsToApi } from './flags';
import { AccessedMessage, MessageAccessService } from './message-access.service';
import { canAccessChannelHistory, hasChannelContentAccess } from './message-access.policy';
import {
  EDIT_LIMIT_BUFFER_SECONDS,
  isResolvingGeneralChat,
  moveDeadlineSeconds,
  moveNoticeTexts,
  pastDeadline,
  sha256Hex,
  silentMention,
  streamMessageUrl,
  topicChange,
  topicLinkSyntax,
  type TopicChange,
} from './message-edit.policy';
import { attachmentDict, ChannelForEdit, MessageEditRepository } from './message-edit.repository';
import { MessageDeletion } from './message-deletion';
import { MessageEvents, type UpdateMessageFields } from './message-events';
import { isMeMessage } from './message-format';
import { MARKDOWN_VERSION, MessageRenderService } from './message-render.service';
import { MessageSendService } from './message-send.service';
import { firstNonPrintablePosition, mapTopicPlaceholder, normalizeContent, pyStrip } from './message-text';
import { MessageType } from './message.entity';
import { MessagesRepository } from './messages.repository';
import type { PropagateMode } from './dto/message-edit.dto';
import { effectiveTopicsPolicy, topicsPolicyError, wildcardNeedsPermission } from './send.policy';
import type { RenderResult } from './message-render.service';
import { TopicsPolicy } from '../channels/channel-settings';
import { ChannelErrors, TopicErrors } from '../channels/channel.errors';
import { MessageErrors } from './message.errors';
import { PrincipalService } from '../users/principal.service';

export interface UpdateMessageInput {
  content?: string;
  prevContentSha256?: string;
  propagateMode: PropagateMode;
  sendNotificationToNewThread: boolean;
  sendNotificationToOldThread: boolean;
  streamId?: number;
  topic?: string;
}

/** The flags a content edit recomputes (Zulip's update_user_message_flags). */
const CONTENT_FLAGS_MASK =
  Flag.mentioned |
  Flag.stream_wildcard_mentioned |
  Flag.topic_wildcard_mentioned |
  Flag.group_mentioned |
  Flag.has_alert_word;

/** Zulip's settings.RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS. */
const RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS = 60;

interface StreamEdit {
  orig: ChannelForEdit;
  target: ChannelForEdit;
  origTopic: string;
  topic: TopicChange | null;
  streamEdited: boolean;
}

/**
 * PATCH /messages/{id} (Zulip's check_update_message → do_update_message): content edits,
 * topic renames, resolve/unresolve and moves between channels, with Zulip's checks in Zulip's
 * order, the edit history, UserMessage changes for users gaining and losing access, attachment
 * links, events, and the Notification Bot breadcrumbs.
 */
@Injectable()
export class MessageEditService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: MessageAccessService,
    private readonly repo: MessageEditRepository,
    private readonly messages: MessagesRepository,
    private readonly renderer: MessageRenderService,
    private readonly sender: MessageSendService,
    private readonly groupSettings: GroupSettingsService,
    private readonly realms: RealmService,
    private readonly events: MessageEvents,
    private readonly deletion: MessageDeletion,
    private readonly clock: Clock,
    private readonly principals: PrincipalService,
    private readonly userGroups: UserGroupsQueryService,
    private readonly channelQueries: ChannelQueriesService,
    private readonly linkifiers: LinkifierService,
  ) {}

  async updateMessage(auth: AuthContext, messageId: number, input: UpdateMessageInput) {
    return runInTransaction(this.dataSource, () => this.update(auth, messageId, input));
  }

  /** Does the caller hold the group setting? System groups: from the role; others: their principal, loaded once. */
  private inGroup(auth: AuthContext, groupId: number, allowEveryone: boolean): Promise<boolean> {
    return this.principals.userHolds(auth.user, auth.realm.id, groupId, allowEveryone);
  }

  /** Channel administrators: can_administer_channel_group, and organization administrators. */
  async isChannelAdmin(auth: AuthContext, channel: Pick<ChannelForEdit, 'canAdministerChannelGroup'>) {
    if (auth.user.role <= Role.ADMINISTRATOR) return true;
    return this.inGroup(auth, channel.canAdministerChannelGroup, false);
  }

  private async channelGrants(auth: AuthContext, channel: ChannelForEdit, groupId: number): Promise<boolean> {
    return (await this.isChannelAdmin(auth, channel)) || (await this.inGroup(auth, groupId, true));
  }

  private async canEditTopic(auth: AuthContext, orig: ChannelForEdit, target: ChannelForEdit): Promise<boolean> {
    if (await this.inGroup(auth, auth.realm.can_move_messages_between_topics_group, true)) return true;
    for (const c of orig.id === target.id ? [orig] : [orig, target]) {
      if (!(await this.channelGrants(auth, c, c.canMoveMessagesWithinChannelGroup))) return false;
    }
    return true;
  }

  private async canResolveTopics(auth: AuthContext, orig: ChannelForEdit, target: ChannelForEdit): Promise<boolean> {
    if (await this.inGroup(auth, auth.realm.can_resolve_topics_group, true)) return true;
    for (const c of orig.id === target.id ? [orig] : [orig, target]) {
      if (!(await this.channelGrants(auth, c, c.canResolveTopicsGroup))) return false;
    }
    return true;
  }

  private async canMoveOutOfChannel(auth: AuthContext, orig: ChannelForEdit): Promise<boolean> {
    if (await this.inGroup(auth, auth.realm.can_move_messages_between_channels_group, false)) return true;
    return this.channelGrants(auth, orig, orig.canMoveMessagesOutOfChannelGroup);
  }

  private async historyAccess(auth: AuthContext, channel: ChannelForEdit): Promise<boolean> {
    const groups = channel.inviteOnly && !channel.subscribed ? await this.principals.groupIdsOf(auth.user.id) : null;
    return canAccessChannelHistory(auth.user, channel, channel.subscribed, groups);
  }

  private async update(auth: AuthContext, messageId: number, input: UpdateMessageInput) {
    const { user, realm } = auth;
    const accessed = await this.access.accessMessage(auth, messageId, { lock: true, isModifying: true });
    const message = accessed.message;
    const now = this.clock.now();

    // 3. Content permission.
    if (input.content !== undefined) {
      if (!realm.allowMessageEditing) throw MessageErrors.editingDisabled();
      if (message.senderId !== user.id) throw MessageErrors.cannotEdit();
      if (pastDeadline(message.dateSent, now, realm.messageContentEditLimitSeconds, EDIT_LIMIT_BUFFER_SECONDS)) {
        throw MessageErrors.editTimeLimitPassed();
      }
    }
    // 4. Topic normalization.
    let topicName = input.topic;
    if (topicName !== undefined) {
      topicName = mapTopicPlaceholder(pyStrip(topicName));
      if (topicName === message.subject) topicName = undefined;
    }
    let streamId = input.streamId;
    // A move to the channel the message is already in is no channel change.
    if (streamId !== undefined && streamId === message.streamId) streamId = undefined;

    // 5. Payload.
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

    // build_message_edit_request.
    let newContent: string | null = null;
    if (input.content !== undefined) {
      newContent = normalizeContent(pyStrip(input.content) === '' ? '(deleted)' : input.content);
    }
    let edit: StreamEdit | null = null;
    if (message.isChannelMessage) {
      const orig = (await this.repo.channelForEdit(realm.id, user.id, message.streamId!))!;
      let target = orig;
      if (streamId !== undefined) {
        const found = await this.repo.channelForEdit(realm.id, user.id, streamId);
        const groups =
          found && found.inviteOnly && !found.subscribed ? await this.principals.groupIdsOf(user.id) : null;
        if (!found || !hasChannelContentAccess(user, found, found.subscribed, groups)) {
          throw ChannelErrors.invalidId();
        }
        target = found;
      }
      const topic = topicName !== undefined ? topicChange(message.subject, topicName) : null;
      edit = { orig, target, origTopic: message.subject, topic, streamEdited: streamId !== undefined };
      const targetTopic = topic?.target ?? message.subject;
      const policy = effectiveTopicsPolicy(target.topicsPolicy, realm.topicsPolicy);
      if (targetTopic === '' && (topic !== null || edit.streamEdited) && policy === TopicsPolicy.disable_empty_topic) {
        throw Errors.badRequest(topicsPolicyError(policy, '')!);
      }
      if (policy === TopicsPolicy.empty_topic_only && targetTopic !== '') {
        throw Errors.badRequest(topicsPolicyError(policy, targetTopic)!);
      }
    }

    // 6. Topic permissions.
    const isModerator = user.role <= Role.MODERATOR;
    if (edit?.topic) {
      if (edit.topic.resolved || edit.topic.unresolved) {
        if (!(await this.canResolveTopics(auth, edit.orig, edit.target))) {
          throw MessageErrors.cannotResolveTopics();
        }
      } else {
        if (!(await this.canEditTopic(auth, edit.orig, edit.target))) {
          throw MessageErrors.cannotEdit();
        }
        if (
          !isModerator &&
          pastDeadline(message.dateSent, now, realm.moveMessagesWithinStreamLimitSeconds, EDIT_LIMIT_BUFFER_SECONDS)
        ) {
          throw MessageErrors.topicEditTimeLimitPassed();
        }
      }
    }

    // 7. Rendering and mention permissions (the sender's, as Zulip).
    let render: RenderResult | null = null;
    let groupMembers = new Set<number>();
    let topicParticipants = new Set<number>();
    if (newContent !== null) {
      render = await this.renderer.render(auth, newContent);
      const { rendered, groups } = render;
      const canMentionMany = () => this.inGroup(auth, realm.can_mention_many_users_group, true);
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
          if (!(await this.inGroup(auth, group.canMentionGroup, true))) {
            throw MessageErrors.cannotMentionGroup(group.name);
          }
        }
        groupMembers = new Set(await this.userGroups.recursiveMemberIdsOfGroups(rendered.mentionedGroupIds));
      }
    }

    if (edit) {
      // 8. Channel move permissions.
      if (edit.streamEdited) {
        if (!(await this.canMoveOutOfChannel(auth, edit.orig))) {
          throw MessageErrors.cannotMove();
        }
        await this.sender.checkChannelSendPermission(auth, edit.target);
        if (
          !isModerator &&
          pastDeadline(message.dateSent, now, realm.moveMessagesBetweenStreamsLimitSeconds, EDIT_LIMIT_BUFFER_SECONDS)
        ) {
          throw MessageErrors.channelEditTimeLimitPassed();
        }
      }
      const resolveToggle = edit.topic !== null && (edit.topic.resolved || edit.topic.unresolved);
      const moved = edit.streamEdited || edit.topic !== null;
      // 9. change_all time limit.
      if (input.propagateMode === 'change_all' && !isModerator && moved && !resolveToggle) {
        await this.checkChangeAllTimeLimit(auth, accessed, edit, now);
      }
      // 10. can_create_topic_group of the target.
      if (moved && !resolveToggle)
        await this.checkCanCreateTopic(auth, edit.target, edit.topic?.target ?? edit.origTopic);
    }

    return this.doUpdate(auth, accessed, edit, input, newContent, render, groupMembers, topicParticipants, now);
  }

  private async checkChangeAllTimeLimit(auth: AuthContext, accessed: AccessedMessage, edit: StreamEdit, now: Date) {
    const { realm } = auth;
    const deadline = moveDeadlineSeconds(
      edit.topic !== null,
      edit.streamEdited,
      realm.moveMessagesWithinStreamLimitSeconds,
      realm.moveMessagesBetweenStreamsLimitSeconds,
    );
    if (deadline === null) return;
    const full = await this.historyAccess(auth, edit.orig);
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
      (await this.inGroup(auth, channel.canCreateTopicGroup, true))
    ) {
      return;
    }
    throw MessageErrors.cannotCreateTopics();
  }

  private async doUpdate(
    auth: AuthContext,
    accessed: AccessedMessage,
    edit: StreamEdit | null,
    input: UpdateMessageInput,
    newContent: string | null,
    render: RenderResult | null,
    groupMembers: Set<number>,
    topicParticipants: Set<number>,
    now: Date,
  ) {
    const { user, realm } = auth;
    const message = accessed.message;
    const editTimestamp = Math.floor(now.getTime() / 1000);
    const event: UpdateMessageFields = {
      user_id: user.id,
      edit_timestamp: editTimestamp,
      message_id: message.id,
      // Every changed message (the moved ones for a move), set below.
      message_ids: [message.id],
      rendering_only: false,
    };
    const historyEntry: Record<string, unknown> = { user_id: user.id, timestamp: editTimestamp };
    let detached: unknown[] = [];

    if (newContent !== null && render !== null) {
      const { rendered, alertWordUserIds } = render;
      historyEntry.prev_content = message.content;
      historyEntry.prev_rendered_content = message.renderedContent;
      historyEntry.prev_rendered_content_version = MARKDOWN_VERSION;
      event.orig_content = message.content;
      event.orig_rendered_content = message.renderedContent;
      event.content = newContent;
      event.rendered_content = rendered.html;
      event.is_me_message = isMeMessage(newContent, rendered.html);
      await this.repo.updateContent(message.id, {
        content: newContent,
        renderedContent: rendered.html,
        renderedContentVersion: MARKDOWN_VERSION,
        hasImage: rendered.hasImage,
        hasLink: rendered.hasLink,
      });
      // Mention and alert-word flags, recomputed from the new rendering.
      const mentioned = new Set([...rendered.mentionedUserIds, ...groupMembers]);
      const ums = await this.repo.userMessages(message.id);
      const perUser = ums.map((um) => {
        let f = 0;
        if (mentioned.has(um.userId)) f |= Flag.mentioned;
        if (groupMembers.has(um.userId)) f |= Flag.group_mentioned;
        if (rendered.mentionsStreamWildcard && message.isChannelMessage) f |= Flag.stream_wildcard_mentioned;
        if (rendered.mentionsTopicWildcard && topicParticipants.has(um.userId)) f |= Flag.topic_wildcard_mentioned;
        if (alertWordUserIds.has(um.userId)) f |= Flag.has_alert_word;
        return { userId: um.userId, flags: f };
      });
      await this.repo.setMentionFlags(message.id, CONTENT_FLAGS_MASK, perUser);
      detached = await this.relinkAttachments(auth, message.id, message.senderId, rendered.linkedUploadPathIds);
    }

    if (edit === null) {
      // A direct message: content only.
      await this.repo.recordEdit([message.id], historyEntry, now, {});
      event.message_ids = [message.id];
      const ums = await this.repo.userMessages(message.id);
      this.events.updateMessage(realm.id, event, new Map(ums.map((u) => [u.userId, flagsToApi(u.flags)])));
      return { detached_uploads: detached };
    }

    const { orig, target, origTopic } = edit;
    const targetTopic = edit.topic?.target ?? origTopic;
    const moved = edit.streamEdited || edit.topic !== null;
    event.stream_name = orig.name;
    event.stream_id = orig.id;
    if (moved) event.propagate_mode = input.propagateMode;

    let losingUserMessages = new Set<number>();
    let firstMessageIdChanges: Array<{ id: number; name: string; first_message_id: number | null }> = [];
    let losingAccess = new Set<number>();
    let gaining: number[] = [];
    let newSubscribers: Array<{ id: number; role: number }> = [];
    if (edit.streamEdited) {
      historyEntry.prev_stream = orig.id;
      historyEntry.stream = target.id;
      event.orig_subject = origTopic;
      event.new_stream_id = target.id;
      const oldAll = await this.repo.allSubscriberIds(orig.recipientId);
      newSubscribers = await this.repo.activeSubscribers(target.recipientId, false);
      const newIds = new Set(newSubscribers.map((s) => s.id));
      losingUserMessages = new Set(oldAll.filter((id) => !newIds.has(id)));
      if (!target.inviteOnly) {
        const guests = await this.repo.guestIds(oldAll);
        losingAccess = new Set(oldAll.filter((id) => guests.has(id) && !newIds.has(id)));
      } else {
        losingAccess = new Set(losingUserMessages);
      }
      if (!target.historyPublicToSubscribers) gaining = [...newIds];
    }
    if (edit.topic) {
      event.orig_subject = origTopic;
      event.subject = targetTopic;
      event.topic_links = (await this.linkifiers.forRendering(realm.id)).topicLinks(targetTopic);
      historyEntry.prev_topic = origTopic;
      historyEntry.topic = targetTopic;
    }

    // Which messages change.
    let changedIds = [message.id];
    if (input.propagateMode !== 'change_one') {
      const full = await this.historyAccess(auth, orig);
      const rows = await this.repo.topicMessages(realm.id, orig.recipientId, origTopic, {
        viewerId: full ? undefined : user.id,
        fromId: input.propagateMode === 'change_later' ? message.id : undefined,
      });
      changedIds = [...new Set([message.id, ...rows.map((r) => r.id)])].sort((a, b) => a - b);
      await this.repo.lockMessages(changedIds);
    }
    const topicOnlyEntry: Record<string, unknown> = { user_id: user.id, timestamp: editTimestamp };
    for (const key of ['prev_topic', 'topic', 'prev_stream', 'stream']) {
      if (key in historyEntry) topicOnlyEntry[key] = historyEntry[key];
    }
    const unmodifiedUms = (await this.repo.userMessages(message.id)).filter((u) => !losingUserMessages.has(u.userId));
    await this.repo.recordEdit(
      changedIds,
      topicOnlyEntry,
      now,
      {
        recipientId: edit.streamEdited ? target.recipientId : undefined,
        subject: edit.topic ? targetTopic : undefined,
      },
      { id: message.id, entry: historyEntry },
    );
    if (edit.streamEdited) {
      await this.repo.addUserMessages(gaining, changedIds, Flag.read);
      await this.repo.removeUserMessages([...losingUserMessages], changedIds);
      if (losingAccess.size > 0) {
        this.events.deleteMessages(realm.id, changedIds, { streamId: orig.id, topic: origTopic }, [...losingAccess]);
      }
      await this.repo.resetAttachmentPublicity(
        changedIds,
        target.inviteOnly !== orig.inviteOnly,
        target.isWebPublic !== orig.isWebPublic,
      );
      firstMessageIdChanges = await this.repo.refreshFirstMessageIds([orig.id, target.id]);
    }
    event.message_ids = changedIds;

    // Who hears about it: UserMessage holders, and subscribers when history is shared.
    const flagsByUser = new Map<number, string[]>(unmodifiedUms.map((u) => [u.userId, flagsToApi(u.flags)]));
    if (orig.historyPublicToSubscribers) {
      const withRow = new Set(unmodifiedUms.map((u) => u.userId));
      const eligible = (id: number) => !withRow.has(id) && !losingAccess.has(id);
      const targetSubs = await this.repo.activeSubscribers(target.recipientId, true);
      let ids = targetSubs.map((s) => s.id).filter(eligible);
      if (edit.streamEdited) {
        const oldSubs = await this.repo.activeSubscribers(orig.recipientId, true);
        const oldSubIds = new Set(oldSubs.map((s) => s.id));
        const targetIds = new Set(targetSubs.map((s) => s.id));
        const newGuests = new Set(
          targetSubs.filter((s) => s.role === Role.GUEST && !oldSubIds.has(s.id)).map((s) => s.id),
        );
        ids = ids.filter((id) => !newGuests.has(id));
        ids.push(...oldSubs.map((s) => s.id).filter((id) => eligible(id) && !targetIds.has(id)));
      }
      for (const id of ids) if (!flagsByUser.has(id)) flagsByUser.set(id, ['read']);
    }
    this.events.updateMessage(realm.id, event, flagsByUser);
    this.events.firstMessageIdUpdates(realm.id, firstMessageIdChanges, flagsByUser.keys());

    if (!moved) return { detached_uploads: detached };

    // Was everything the actor can see moved?
    let movedAllVisible = input.propagateMode === 'change_all';
    if (!movedAllVisible) {
      const full = await this.historyAccess(auth, orig);
      const left = await this.repo.topicMessages(realm.id, orig.recipientId, origTopic, {
        viewerId: full ? undefined : user.id,
      });
      movedAllVisible = left.length === 0;
    }

    // Resolve / unresolve notice.
    let resolvedNoticeId: number | null = null;
    const resolveToggle = edit.topic !== null && (edit.topic.resolved || edit.topic.unresolved);
    if (edit.topic && !edit.streamEdited && newContent === null && resolveToggle) {
      resolvedNoticeId = await this.resolveNotice(auth, orig, targetTopic, edit.topic.resolved, now);
    }

    const bot = await this.messages.systemBot(NOTIFICATION_BOT_EMAIL);
    if (!bot) return { detached_uploads: detached };
    let noVisiblePreexisting = true;
    if (input.sendNotificationToNewThread) {
      const targetFull = await this.historyAccess(auth, target);
      const pre = await this.repo.topicMessages(realm.id, target.recipientId, targetTopic, {
        viewerId: targetFull ? undefined : user.id,
        excludeIds: resolvedNoticeId === null ? changedIds : [...changedIds, resolvedNoticeId],
      });
      noVisiblePreexisting = pre.length === 0;
    }
    const texts = moveNoticeTexts({
      notifyOld: input.sendNotificationToOldThread,
      notifyNew: input.sendNotificationToNewThread,
      streamEdited: edit.streamEdited,
      topicEdited: edit.topic !== null,
      resolveToggle,
      movedAllVisible,
      noVisiblePreexisting,
      count: changedIds.length,
      user: silentMention(user),
      oldLocation: topicLinkSyntax(orig.name, origTopic),
      newLocation: topicLinkSyntax(target.name, targetTopic),
      messageLink: streamMessageUrl(this.realms.realmUrl(realm), target.id, target.name, targetTopic, message.id),
    });
    const items = [];
    if (texts.newThread !== null) {
      items.push({
        target: {
          kind: 'channel' as const,
          channelId: target.id,
          recipientId: target.recipientId,
          name: target.name,
          topic: targetTopic,
        },
        content: texts.newThread,
      });
    }
    if (texts.oldThread !== null) {
      items.push({
        target: {
          kind: 'channel' as const,
          channelId: orig.id,
          recipientId: orig.recipientId,
          name: orig.name,
          topic: origTopic,
        },
        content: texts.oldThread,
      });
    }
    if (items.length > 0) {
      const ids = await this.sender.sendInternal(realm, bot, items);
      await this.repo.markRead(user.id, ids, Flag.read);
    }
    return { detached_uploads: detached };
  }

  /** maybe_send_resolve_topic_notifications (the undo grace period deletes the last notice instead). */
  private async resolveNotice(
    auth: AuthContext,
    channel: ChannelForEdit,
    topic: string,
    resolved: boolean,
    now: Date,
  ): Promise<number | null> {
    const { user, realm } = auth;
    const last = await this.repo.lastTopicMessage(realm.id, channel.recipientId, topic);
    if (
      last &&
      last.type === MessageType.RESOLVE_TOPIC_NOTIFICATION &&
      (now.getTime() - new Date(last.date_sent).getTime()) / 1000 <= RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS
    ) {
      await this.deletion.deleteAsSystem(realm, last.id);
      return null;
    }
    const bot = await this.messages.systemBot(NOTIFICATION_BOT_EMAIL);
    if (!bot) return null;
    const text = resolved
      ? `${silentMention(user)} has marked this topic as resolved.`
      : `${silentMention(user)} has marked this topic as unresolved.`;
    const [id] = await this.sender.sendInternal(realm, bot, [
      {
        target: { kind: 'channel', channelId: channel.id, recipientId: channel.recipientId, name: channel.name, topic },
        content: text,
      },
    ]);
    await this.repo.setMessageType(id, MessageType.RESOLVE_TOPIC_NOTIFICATION);
    await this.repo.markRead(user.id, [id], Flag.read);
    return id;
  }

  /** check_attachment_reference_change: relinks uploads; returns the sender's detached ones. */
  private async relinkAttachments(auth: AuthContext, messageId: number, senderId: number, pathIds: string[]) {
    const prev = await this.repo.linkedAttachments(messageId);
    const prevPaths = new Set(prev.map((a) => a.pathId));
    const next = new Set(pathIds);
    if (prev.length === next.size && prev.every((a) => next.has(a.pathId))) return [];
    const removed = prev.filter((a) => !next.has(a.pathId));
    await this.repo.unlinkAttachments(
      messageId,
      removed.map((a) => a.id),
    );
    const added = pathIds.filter((p) => !prevPaths.has(p));
    if (added.length > 0) await this.messages.claimAttachments(auth.realm.id, senderId, messageId, added);
    const remaining = await this.repo.linkedAttachments(messageId);
    await this.repo.setHasAttachment(messageId, remaining.length > 0);
    const candidates = removed.filter((a) => a.ownerId === senderId).map((a) => a.id);
    const dicts = await this.repo.attachmentDicts(candidates);
    return dicts.filter((d) => d.messages.length === 0).map(attachmentDict);
  }
}
