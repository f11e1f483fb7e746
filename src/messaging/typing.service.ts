import { subscriptionsView } from '../channels/channels.sql';
import { usersView } from '../users/users.sql';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { currentManager } from '../database/transaction';
import { dbIds } from '../database/ids';
import type { TypingEditMessageEvent, TypingEvent } from '../events/client-events';
import { MessageAccessService } from './message-access.service';
import { EventsService } from '../events/events.service';
import { RealmService } from '../realm/realm.service';
import { hasChannelContentAccess, isGuest } from './message-access.policy';
import { apiEmailOf } from './message-format';
import { MessageFetchRepository } from './message-fetch.repository';
import { normalizeTopicForSend, topicForClient, truncateTopic } from './message-text';
import { MessagesRepository } from './messages.repository';
import { MessageSendService, userBriefOf } from './message-send.service';
import { UserErrors } from '../users/user.errors';
import { ChannelErrors } from '../channels/channel.errors';
import { MessageErrors, TypingErrors } from './message.errors';
import { PrincipalService } from '../users/principal.service';
import { UserDirectoryService } from '../users/user-directory.service';

/** Zulip's MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS. */
export const MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS = 100;

export interface TypingInput {
  type: string;
  op: 'start' | 'stop';
  to: number[] | undefined;
  streamId: number | undefined;
  topic: string | undefined;
}

/**
 * POST /typing (Zulip's views/typing.py + actions/typing.py). Typing events are not stored:
 * they go straight to the other participants' queues, only to users with
 * receives_typing_notifications, and never for channels with more than 100 subscribers.
 */
@Injectable()
export class TypingService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly messages: MessagesRepository,
    private readonly fetch: MessageFetchRepository,
    private readonly sender: MessageSendService,
    private readonly realms: RealmService,
    private readonly events: EventsService,
    private readonly principals: PrincipalService,
    private readonly directory: UserDirectoryService,
    private readonly access: MessageAccessService,
  ) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  async setTyping(auth: AuthContext, input: TypingInput): Promise<void> {
    const { user, realm } = auth;
    const host = this.realms.realmHost(realm);
    const sender = { user_id: user.id, email: apiEmailOf(userBriefOf(user), host) };
    if (input.type === 'stream' || input.type === 'channel') {
      if (input.streamId === undefined) throw Errors.missingArgumentPlain('stream_id');
      if (input.topic === undefined) throw MessageErrors.missingTopic();
      if (!user.settings.send_stream_typing_notifications) {
        throw TypingErrors.disabledForChannels();
      }
      const channel = dbIds([input.streamId]).length
        ? await this.fetch.channelByOperand(realm.id, user.id, input.streamId)
        : null;
      if (!channel || channel.deactivated) throw ChannelErrors.invalidId();
      const needsGroups = !channel.subscribed && !isGuest(user) && channel.inviteOnly;
      const groups = needsGroups ? await this.principals.groupIdsOf(user.id) : null;
      if (!hasChannelContentAccess(user, channel, channel.subscribed, groups)) throw ChannelErrors.invalidId();
      await this.sender.checkChannelSendPermission(auth, channel, channel.subscribed);
      const topic = truncateTopic(normalizeTopicForSend(input.topic));
      const subscribers = await this.typingAudience(channel.recipientId);
      if (subscribers.total > MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS) return;
      const event: TypingEvent = {
        type: 'typing',
        message_type: 'stream',
        op: input.op,
        sender,
        stream_id: channel.id,
        topic,
      };
      this.events.deliver(realm.id, event, subscribers.notify, (queue) => ({
        ...event,
        topic: topicForClient(topic, queue.options.clientCapabilities.empty_topic_name === true),
      }));
      return;
    }
    if (input.to === undefined) throw Errors.missingArgumentPlain('to');
    if (input.to.length === 0) throw TypingErrors.emptyTo();
    if (!user.settings.send_private_typing_notifications) {
      throw TypingErrors.disabledForDirectMessages();
    }
    const ids = [...input.to];
    if (!ids.includes(user.id)) ids.push(user.id);
    const found = new Map((await this.messages.usersByIdsInRealm(realm.id, ids)).map((u) => [u.id, u]));
    const recipients = ids.map((id) => {
      const u = found.get(id);
      if (!u) throw UserErrors.invalidRecipientId(id);
      return u;
    });
    const wanting = await this.receivesTyping(recipients.filter((u) => u.isActive).map((u) => u.id));
    const event: TypingEvent = {
      type: 'typing',
      message_type: 'direct',
      op: input.op,
      sender,
      recipients: recipients.map((u) => ({ user_id: u.id, email: apiEmailOf(u, host) })),
    };
    this.events.deliver(realm.id, event, wanting);
  }

  /**
   * POST /messages/{message_id}/typing (Zulip's send_message_edit_notification_backend): the
   * message's audience learns that the caller is editing it, under the same rules as typing a
   * new message (the caller's own setting, receives_typing_notifications, channels up to 100
   * subscribers). The caller must be able to read the message.
   */
  async setEditTyping(auth: AuthContext, messageId: number, op: 'start' | 'stop'): Promise<void> {
    const { user, realm } = auth;
    const { message } = await this.access.accessMessage(auth, messageId, { isModifying: false });
    if (message.streamId !== null) {
      if (!user.settings.send_stream_typing_notifications) throw TypingErrors.disabledForChannels();
      const audience = await this.typingAudience(message.recipientId);
      if (audience.total > MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS) return;
      const event: TypingEditMessageEvent = {
        type: 'typing_edit_message',
        op,
        sender_id: user.id,
        message_id: message.id,
        recipient: { type: 'channel', channel_id: message.streamId, topic: message.subject },
      };
      this.events.deliver(realm.id, event, audience.notify, (queue) => ({
        ...event,
        recipient: {
          ...event.recipient,
          topic: topicForClient(message.subject, queue.options.clientCapabilities.empty_topic_name === true),
        },
      }));
      return;
    }
    if (!user.settings.send_private_typing_notifications) throw TypingErrors.disabledForDirectMessages();
    const userIds = [...(message.dmUserIds ?? [])].sort((a, b) => a - b);
    const event: TypingEditMessageEvent = {
      type: 'typing_edit_message',
      op,
      sender_id: user.id,
      message_id: message.id,
      recipient: { type: 'direct', user_ids: userIds },
    };
    this.events.deliver(realm.id, event, await this.receivesTyping(userIds));
  }

  /** Active subscribers (not long-term idle) and those of them who want typing notifications. */
  private async typingAudience(recipientId: number): Promise<{ total: number; notify: number[] }> {
    const rows = await this.em.query<Array<{ id: number; receives_typing_notifications: boolean }>>(
      `SELECT u.id, u.receives_typing_notifications FROM ${subscriptionsView} sub
         JOIN ${usersView} u ON u.id = sub.user_profile_id
        WHERE sub.recipient_id = $1 AND sub.active AND u.is_active AND NOT u.long_term_idle`,
      [recipientId],
    );
    return { total: rows.length, notify: rows.filter((r) => r.receives_typing_notifications).map((r) => r.id) };
  }

  private receivesTyping(userIds: number[]): Promise<number[]> {
    return this.directory.receivingTypingNotifications(userIds);
  }
}
