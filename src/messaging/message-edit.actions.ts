import { MessageAttachments } from './message-attachments';
import { Injectable } from '@nestjs/common';
import { Role } from '../common/roles';
import { LinkifierService } from '../linkifiers/linkifier.service';
import { Flag, flagsToApi } from './flags';
import { MessageEditNotices } from './message-edit.notices';
import { MessageEditPermissions } from './message-edit.permissions';
import { attachmentDict, MessageEditRepository } from './message-edit.repository';
import type { ChannelEdit, ContentEdit, MessageEditRequest } from './message-edit.request';
import { MessageEvents, type UpdateMessageFields } from './message-events';
import { isMeMessage } from './message-format';
import { MARKDOWN_VERSION } from './message-render.service';
import { MessagesRepository } from './messages.repository';

/** The flags a content edit recomputes (Zulip's update_user_message_flags). */
const CONTENT_FLAGS_MASK =
  Flag.mentioned |
  Flag.stream_wildcard_mentioned |
  Flag.topic_wildcard_mentioned |
  Flag.group_mentioned |
  Flag.has_alert_word;

type HistoryEntry = Record<string, unknown>;
type UserMessageRow = { userId: number; flags: number };
type FirstMessageIdChange = { id: number; name: string; first_message_id: number | null };

/** Who a move to another channel takes messages from, or gives them to. */
interface AccessChange {
  /** Users whose UserMessage rows go (not subscribed to the target). */
  losingUserMessages: Set<number>;
  /** Users who can no longer see the messages: they get delete_message. */
  losingAccess: Set<number>;
  /** Subscribers of a target without shared history: they get rows (read). */
  gaining: number[];
}

const NO_ACCESS_CHANGE: AccessChange = { losingUserMessages: new Set(), losingAccess: new Set(), gaining: [] };

/**
 * The writes of PATCH /messages/{id} (Zulip's do_update_message), given a built
 * MessageEditRequest: the content edit, the topic rename or move (UserMessage rows for users
 * gaining and losing access, attachments, first message ids), the edit history, the events, and
 * then the Notification Bot breadcrumbs (MessageEditNotices). Nothing here refuses a request.
 */
@Injectable()
export class MessageEditActions {
  constructor(
    private readonly repo: MessageEditRepository,
    private readonly messages: MessagesRepository,
    private readonly events: MessageEvents,
    private readonly linkifiers: LinkifierService,
    private readonly permissions: MessageEditPermissions,
    private readonly notices: MessageEditNotices,
    private readonly attachments: MessageAttachments,
  ) {}

  async apply(req: MessageEditRequest): Promise<{ detached_uploads: unknown[] }> {
    const { user } = req.auth;
    const message = req.accessed.message;
    const editTimestamp = Math.floor(req.now.getTime() / 1000);
    const event: UpdateMessageFields = {
      user_id: user.id,
      edit_timestamp: editTimestamp,
      message_id: message.id,
      // Every changed message (the moved ones for a move), set below.
      message_ids: [message.id],
      rendering_only: false,
    };
    const history: HistoryEntry = { user_id: user.id, timestamp: editTimestamp };
    const detached = req.content ? await this.doEditContent(req, req.content, event, history) : [];
    if (req.channel === null) {
      await this.doEditDirectMessage(req, event, history);
      return { detached_uploads: detached };
    }
    const changedIds = await this.doUpdateChannelMessage(req, req.channel, event, history);
    if (req.channel.moved) await this.notices.sendMoveNotices(req, req.channel, changedIds);
    return { detached_uploads: detached };
  }

  /** The new content and rendering, the recomputed mention flags, relinked uploads; returns the detached ones. */
  private async doEditContent(
    req: MessageEditRequest,
    edit: ContentEdit,
    event: UpdateMessageFields,
    history: HistoryEntry,
  ): Promise<unknown[]> {
    const message = req.accessed.message;
    const { rendered, alertWordUserIds } = edit.render;
    history.prev_content = message.content;
    history.prev_rendered_content = message.renderedContent;
    history.prev_rendered_content_version = MARKDOWN_VERSION;
    event.orig_content = message.content;
    event.orig_rendered_content = message.renderedContent;
    event.content = edit.content;
    event.rendered_content = rendered.html;
    event.is_me_message = isMeMessage(edit.content, rendered.html);
    await this.repo.updateContent(message.id, {
      content: edit.content,
      renderedContent: rendered.html,
      renderedContentVersion: MARKDOWN_VERSION,
      hasImage: rendered.hasImage,
      hasLink: rendered.hasLink,
    });
    // Mention and alert-word flags, recomputed from the new rendering.
    const { groupMembers, topicParticipants } = edit;
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
    return this.relinkAttachments(req, rendered.linkedUploadPathIds);
  }

  /** A direct message: content only; its edit history and the event to its recipients. */
  private async doEditDirectMessage(req: MessageEditRequest, event: UpdateMessageFields, history: HistoryEntry) {
    const message = req.accessed.message;
    await this.repo.recordEdit([message.id], history, req.now, {});
    event.message_ids = [message.id];
    const ums = await this.repo.userMessages(message.id);
    this.events.updateMessage(req.auth.realm.id, event, new Map(ums.map((u) => [u.userId, flagsToApi(u.flags)])));
  }

  /** A channel message: renames the topic and moves to the target channel as asked; returns the changed ids. */
  private async doUpdateChannelMessage(
    req: MessageEditRequest,
    edit: ChannelEdit,
    event: UpdateMessageFields,
    history: HistoryEntry,
  ): Promise<number[]> {
    const { orig, target, origTopic, targetTopic } = edit;
    event.stream_name = orig.name;
    event.stream_id = orig.id;
    if (edit.moved) event.propagate_mode = req.propagateMode;
    let access = NO_ACCESS_CHANGE;
    if (edit.streamEdited) {
      history.prev_stream = orig.id;
      history.stream = target.id;
      event.orig_subject = origTopic;
      event.new_stream_id = target.id;
      access = await this.accessChange(edit);
    }
    if (edit.topic) {
      event.orig_subject = origTopic;
      event.subject = targetTopic;
      event.topic_links = (await this.linkifiers.forRendering(req.auth.realm.id)).topicLinks(targetTopic);
      history.prev_topic = origTopic;
      history.topic = targetTopic;
    }
    const changedIds = await this.messagesToChange(req, edit);
    const unmodified = (await this.repo.userMessages(req.accessed.message.id)).filter(
      (u) => !access.losingUserMessages.has(u.userId),
    );
    await this.doMoveMessages(req, edit, changedIds, history);
    let firstMessageIdChanges: FirstMessageIdChange[] = [];
    if (edit.streamEdited) firstMessageIdChanges = await this.doChangeChannel(req, edit, changedIds, access);
    event.message_ids = changedIds;
    await this.sendUpdateEvents(req, edit, event, unmodified, access, firstMessageIdChanges);
    return changedIds;
  }

  /** Who loses the messages' rows or access, and who gains rows, in a move to another channel. */
  private async accessChange(edit: ChannelEdit): Promise<AccessChange> {
    const { orig, target } = edit;
    const oldAll = await this.repo.allSubscriberIds(orig.recipientId);
    const newSubscribers = await this.repo.activeSubscribers(target.recipientId, false);
    const newIds = new Set(newSubscribers.map((s) => s.id));
    const losingUserMessages = new Set(oldAll.filter((id) => !newIds.has(id)));
    let losingAccess: Set<number>;
    if (!target.inviteOnly) {
      const guests = await this.repo.guestIds(oldAll);
      losingAccess = new Set(oldAll.filter((id) => guests.has(id) && !newIds.has(id)));
    } else {
      losingAccess = new Set(losingUserMessages);
    }
    const gaining = target.historyPublicToSubscribers ? [] : [...newIds];
    return { losingUserMessages, losingAccess, gaining };
  }

  /** The message, or with change_later/change_all the topic's messages the actor can see; locked. */
  private async messagesToChange(req: MessageEditRequest, edit: ChannelEdit): Promise<number[]> {
    const { auth, accessed, propagateMode } = req;
    const message = accessed.message;
    if (propagateMode === 'change_one') return [message.id];
    const full = await this.permissions.historyAccess(auth, edit.orig);
    const rows = await this.repo.topicMessages(auth.realm.id, edit.orig.recipientId, edit.origTopic, {
      viewerId: full ? undefined : auth.user.id,
      fromId: propagateMode === 'change_later' ? message.id : undefined,
    });
    const changedIds = [...new Set([message.id, ...rows.map((r) => r.id)])].sort((a, b) => a - b);
    await this.repo.lockMessages(changedIds);
    return changedIds;
  }

  /**
   * The edit history of every changed message (the edited one gets the full entry, the others the
   * topic and channel part) and their new topic and channel (recipient).
   */
  private async doMoveMessages(
    req: MessageEditRequest,
    edit: ChannelEdit,
    changedIds: number[],
    history: HistoryEntry,
  ) {
    const topicOnlyEntry: HistoryEntry = { user_id: history.user_id, timestamp: history.timestamp };
    for (const key of ['prev_topic', 'topic', 'prev_stream', 'stream']) {
      if (key in history) topicOnlyEntry[key] = history[key];
    }
    await this.repo.recordEdit(
      changedIds,
      topicOnlyEntry,
      req.now,
      {
        recipientId: edit.streamEdited ? edit.target.recipientId : undefined,
        subject: edit.topic ? edit.targetTopic : undefined,
      },
      { id: req.accessed.message.id, entry: history },
    );
  }

  /** After a move to another channel: UserMessage rows, delete_message to who lost access, attachments, first message ids. */
  private async doChangeChannel(
    req: MessageEditRequest,
    edit: ChannelEdit,
    changedIds: number[],
    access: AccessChange,
  ): Promise<FirstMessageIdChange[]> {
    const { orig, target, origTopic } = edit;
    await this.repo.addUserMessages(access.gaining, changedIds, Flag.read);
    await this.repo.removeUserMessages([...access.losingUserMessages], changedIds);
    if (access.losingAccess.size > 0) {
      const where = { streamId: orig.id, topic: origTopic };
      this.events.deleteMessages(req.auth.realm.id, changedIds, where, [...access.losingAccess]);
    }
    await this.attachments.resetPublicity(
      changedIds,
      target.inviteOnly !== orig.inviteOnly,
      target.isWebPublic !== orig.isWebPublic,
    );
    return this.repo.refreshFirstMessageIds([orig.id, target.id]);
  }

  /** update_message (and first_message_id updates) to UserMessage holders, and subscribers when history is shared. */
  private async sendUpdateEvents(
    req: MessageEditRequest,
    edit: ChannelEdit,
    event: UpdateMessageFields,
    unmodified: UserMessageRow[],
    access: AccessChange,
    firstMessageIdChanges: FirstMessageIdChange[],
  ) {
    const { orig, target } = edit;
    const flagsByUser = new Map<number, string[]>(unmodified.map((u) => [u.userId, flagsToApi(u.flags)]));
    if (orig.historyPublicToSubscribers) {
      const withRow = new Set(unmodified.map((u) => u.userId));
      const eligible = (id: number) => !withRow.has(id) && !access.losingAccess.has(id);
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
    this.events.updateMessage(req.auth.realm.id, event, flagsByUser);
    this.events.firstMessageIdUpdates(req.auth.realm.id, firstMessageIdChanges, flagsByUser.keys());
  }

  /** check_attachment_reference_change: relinks uploads; returns the sender's detached ones. */
  private async relinkAttachments(req: MessageEditRequest, pathIds: string[]) {
    const { id: messageId, senderId } = req.accessed.message;
    const prev = await this.attachments.linkedTo(messageId);
    const prevPaths = new Set(prev.map((a) => a.pathId));
    const next = new Set(pathIds);
    if (prev.length === next.size && prev.every((a) => next.has(a.pathId))) return [];
    const removed = prev.filter((a) => !next.has(a.pathId));
    await this.attachments.unlink(
      messageId,
      removed.map((a) => a.id),
    );
    const added = pathIds.filter((p) => !prevPaths.has(p));
    if (added.length > 0) await this.attachments.claim(req.auth.realm.id, senderId, messageId, added);
    const remaining = await this.attachments.linkedTo(messageId);
    await this.repo.setHasAttachment(messageId, remaining.length > 0);
    const candidates = removed.filter((a) => a.ownerId === senderId).map((a) => a.id);
    const dicts = await this.attachments.dicts(candidates);
    return dicts.filter((d) => d.messages.length === 0).map(attachmentDict);
  }
}
