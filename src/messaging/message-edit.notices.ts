import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { RealmService } from '../realm/realm.service';
import { Flag } from './flags';
import { MessageDeletion } from './message-deletion';
import { MessageEditPermissions } from './message-edit.permissions';
import { moveNoticeTexts, silentMention, streamMessageUrl, topicLinkSyntax } from './message-edit.policy';
import { ChannelForEdit, MessageEditRepository } from './message-edit.repository';
import type { ChannelEdit, MessageEditRequest } from './message-edit.request';
import { MessageSendService } from './message-send.service';
import { MessageType } from './message.entity';
import { MessagesRepository } from './messages.repository';

/** Zulip's settings.NOTIFICATION_BOT. */
const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';

/** Zulip's settings.RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS. */
const RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS = 60;

/** A Notification Bot message to a channel's topic. */
function noticeTo(channel: ChannelForEdit, topic: string, content: string) {
  return {
    target: {
      kind: 'channel' as const,
      channelId: channel.id,
      recipientId: channel.recipientId,
      name: channel.name,
      topic,
    },
    content,
  };
}

/**
 * The Notification Bot breadcrumbs of a move (Zulip's send_message_moved_breadcrumbs) and of
 * resolving a topic (maybe_send_resolve_topic_notifications), after the move's writes.
 */
@Injectable()
export class MessageEditNotices {
  constructor(
    private readonly repo: MessageEditRepository,
    private readonly messages: MessagesRepository,
    private readonly sender: MessageSendService,
    private readonly realms: RealmService,
    private readonly deletion: MessageDeletion,
    private readonly permissions: MessageEditPermissions,
  ) {}

  /** After a rename or move of `changedIds`: the resolve notice, then the old- and new-thread notices. */
  async sendMoveNotices(req: MessageEditRequest, edit: ChannelEdit, changedIds: number[]): Promise<void> {
    const { auth } = req;
    const { user, realm } = auth;
    const { orig, target, origTopic, targetTopic } = edit;
    const movedAllVisible = req.propagateMode === 'change_all' || (await this.nothingVisibleLeft(auth, edit));
    let resolvedNoticeId: number | null = null;
    if (edit.topic && !edit.streamEdited && req.content === null && edit.resolveToggle) {
      resolvedNoticeId = await this.resolveNotice(auth, orig, targetTopic, edit.topic.resolved, req.now);
    }
    const bot = await this.messages.systemBot(NOTIFICATION_BOT_EMAIL);
    if (!bot) return;
    let noVisiblePreexisting = true;
    if (req.notifyNewThread) {
      const excludeIds = resolvedNoticeId === null ? changedIds : [...changedIds, resolvedNoticeId];
      noVisiblePreexisting = await this.nothingVisibleIn(auth, target, targetTopic, excludeIds);
    }
    const texts = moveNoticeTexts({
      notifyOld: req.notifyOldThread,
      notifyNew: req.notifyNewThread,
      streamEdited: edit.streamEdited,
      topicEdited: edit.topic !== null,
      resolveToggle: edit.resolveToggle,
      movedAllVisible,
      noVisiblePreexisting,
      count: changedIds.length,
      user: silentMention(user),
      oldLocation: topicLinkSyntax(orig.name, origTopic),
      newLocation: topicLinkSyntax(target.name, targetTopic),
      messageLink: streamMessageUrl(
        this.realms.realmUrl(realm),
        target.id,
        target.name,
        targetTopic,
        req.accessed.message.id,
      ),
    });
    const items = [];
    if (texts.newThread !== null) items.push(noticeTo(target, targetTopic, texts.newThread));
    if (texts.oldThread !== null) items.push(noticeTo(orig, origTopic, texts.oldThread));
    if (items.length > 0) {
      const ids = await this.sender.sendInternal(realm, bot, items);
      await this.repo.markRead(user.id, ids, Flag.read);
    }
  }

  /** Was everything the actor can see in the old topic moved? */
  private async nothingVisibleLeft(auth: AuthContext, edit: ChannelEdit): Promise<boolean> {
    return this.nothingVisibleIn(auth, edit.orig, edit.origTopic, undefined);
  }

  /** Does the actor see no message in the topic (but `excludeIds`)? */
  private async nothingVisibleIn(
    auth: AuthContext,
    channel: ChannelForEdit,
    topic: string,
    excludeIds: number[] | undefined,
  ): Promise<boolean> {
    const full = await this.permissions.historyAccess(auth, channel);
    const rows = await this.repo.topicMessages(auth.realm.id, channel.recipientId, topic, {
      viewerId: full ? undefined : auth.user.id,
      excludeIds,
    });
    return rows.length === 0;
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
    const [id] = await this.sender.sendInternal(realm, bot, [noticeTo(channel, topic, text)]);
    await this.repo.setMessageType(id, MessageType.RESOLVE_TOPIC_NOTIFICATION);
    await this.repo.markRead(user.id, [id], Flag.read);
    return id;
  }
}
