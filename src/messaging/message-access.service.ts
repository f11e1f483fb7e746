import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { dbIds, isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';
import {
  hasMessageAccess,
  messageAccessNeedsGroups,
  type ChannelAccessFields,
  type MessageAccessInput,
} from './message-access.policy';
import { toMessageRow, type MessageRowRaw, MessagesRepository } from './messages.repository';
import type { MessageRow } from './message-format';
import { MessageErrors } from './message.errors';
import { PrincipalService } from '../users/principal.service';
import { channelsView, isActiveSubscriber, subscriptionsView } from '../channels/channels.sql';
import { usersView } from '../users/users.sql';

/** A message the caller may access, with their UserMessage flags (null: no row). */
export interface AccessedMessage {
  message: MessageRow;
  channel: (ChannelAccessFields & { subscribed: boolean }) | null;
  userMessageFlags: number | null;
}

interface AccessRowRaw extends MessageRowRaw {
  um_flags: string | null;
  s_realm_id: number | null;
  invite_only: boolean | null;
  is_web_public: boolean | null;
  history_public_to_subscribers: boolean | null;
  deactivated: boolean | null;
  can_subscribe_group: number | null;
  can_add_subscribers_group: number | null;
  subscribed: boolean;
}

/** The message columns: all of them, or without the bodies (bulk checks such as flags). */
const MESSAGE_COLUMNS = `m.content, m.rendered_content, m.edit_history`;
const NO_BODY_COLUMNS = `'' AS content, NULL AS rendered_content, NULL AS edit_history`;

const accessSelect = (withBodies: boolean) => `
  SELECT m.id, m.realm_id, m.sender_id, m.recipient_id, m.subject, ${withBodies ? MESSAGE_COLUMNS : NO_BODY_COLUMNS},
         m.date_sent, m.sending_client, m.last_edit_time, m.is_channel_message,
         s.id AS stream_id, s.name AS stream_name, g.user_ids AS dm_user_ids,
         um.flags AS um_flags, s.realm_id AS s_realm_id, s.invite_only, s.is_web_public,
         s.history_public_to_subscribers, s.deactivated, s.can_subscribe_group, s.can_add_subscribers_group,
         ${isActiveSubscriber('$2', 'm.recipient_id')} AS subscribed
    FROM message m
    LEFT JOIN user_message um ON um.message_id = m.id AND um.user_profile_id = $2
    LEFT JOIN ${channelsView} s ON m.is_channel_message AND s.recipient_id = m.recipient_id
    LEFT JOIN direct_message_group g ON NOT m.is_channel_message AND g.recipient_id = m.recipient_id`;

function toAccessed(r: AccessRowRaw): AccessedMessage {
  const channel =
    r.stream_id === null
      ? null
      : {
          id: r.stream_id,
          realmId: r.s_realm_id!,
          name: r.stream_name!,
          recipientId: r.recipient_id,
          inviteOnly: r.invite_only!,
          isWebPublic: r.is_web_public!,
          historyPublicToSubscribers: r.history_public_to_subscribers!,
          deactivated: r.deactivated!,
          canSubscribeGroup: r.can_subscribe_group!,
          canAddSubscribersGroup: r.can_add_subscribers_group!,
          subscribed: r.subscribed,
        };
  return { message: toMessageRow(r, r.id), channel, userMessageFlags: r.um_flags === null ? null : Number(r.um_flags) };
}

/**
 * Zulip's access_message / bulk_access_messages: loads messages with the caller's UserMessage
 * row and channel, and keeps those the caller may access. "No such message" and "no access"
 * are indistinguishable (`Invalid message(s)`). Exported for every module that acts on a
 * message by id (edit, delete, report, reactions, flags).
 */
@Injectable()
export class MessageAccessService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly messages: MessagesRepository,
    private readonly principals: PrincipalService,
  ) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  private async decide(auth: AuthContext, rows: AccessedMessage[], isModifying: boolean): Promise<AccessedMessage[]> {
    const { user } = auth;
    const inputs = rows.map((r): MessageAccessInput => ({
      isChannelMessage: r.message.isChannelMessage,
      realmId: r.message.realmId,
      channel: r.channel,
      hasUserMessage: r.userMessageFlags !== null,
      subscribed: r.channel?.subscribed ?? false,
    }));
    const groups = inputs.some((i) => messageAccessNeedsGroups(user, i))
      ? await this.principals.groupIdsOf(user.id)
      : null;
    return rows.filter((_, i) => hasMessageAccess(user, inputs[i], groups, isModifying));
  }

  /**
   * The message if the caller may access it, else `Invalid message(s)`. With `lock`, the
   * message row is locked (SELECT … FOR UPDATE) for the rest of the transaction.
   */
  async accessMessage(
    auth: AuthContext,
    messageId: number,
    opts: { lock?: boolean; isModifying: boolean },
  ): Promise<AccessedMessage> {
    if (!isDbId(messageId)) throw MessageErrors.invalidMessages();
    const rows = await this.em.query<AccessRowRaw[]>(
      `${accessSelect(true)} WHERE m.id = $1 AND m.realm_id = $3${opts.lock ? ' FOR UPDATE OF m' : ''}`,
      [messageId, auth.user.id, auth.realm.id],
    );
    const accessible = await this.decide(auth, rows.map(toAccessed), opts.isModifying);
    if (accessible.length === 0) throw MessageErrors.invalidMessages();
    return accessible[0];
  }

  /**
   * The accessible subset of `messageIds` (missing and inaccessible ids are simply absent).
   * Without `withBodies`, content, rendered content and edit history are left out (empty).
   */
  async accessibleMessages(
    auth: AuthContext,
    messageIds: number[],
    opts: { isModifying?: boolean; withBodies?: boolean } = {},
  ): Promise<AccessedMessage[]> {
    const ids = [...new Set(dbIds(messageIds))];
    if (ids.length === 0) return [];
    const rows = await this.em.query<AccessRowRaw[]>(
      `${accessSelect(opts.withBodies ?? true)} WHERE m.id = ANY($1::int[]) AND m.realm_id = $3 ORDER BY m.id`,
      [ids, auth.user.id, auth.realm.id],
    );
    return this.decide(auth, rows.map(toAccessed), opts.isModifying ?? false);
  }

  /**
   * Who should hear about an action on a message (Zulip's
   * event_recipient_ids_for_action_on_messages): for direct messages, users with a
   * UserMessage row; for channels, active subscribers — limited to those who received the
   * message when history is protected — plus, for public channels, non-guests holding a
   * UserMessage row.
   */
  async eventRecipientIds(accessed: AccessedMessage): Promise<number[]> {
    const { message, channel } = accessed;
    const rows = await this.em.query<Array<{ id: number; kind: 'um' | 'sub'; role: number }>>(
      `SELECT um.user_profile_id AS id, 'um' AS kind, u.role FROM user_message um
         JOIN ${usersView} u ON u.id = um.user_profile_id
        WHERE um.message_id = $1 AND u.is_active
       UNION ALL
       SELECT sub.user_profile_id, 'sub', u.role FROM ${subscriptionsView} sub
         JOIN ${usersView} u ON u.id = sub.user_profile_id
        WHERE $2::boolean AND sub.recipient_id = $3 AND sub.active AND u.is_active`,
      [message.id, channel !== null, message.recipientId],
    );
    const withRow = new Set(rows.filter((r) => r.kind === 'um').map((r) => r.id));
    if (channel === null) return [...withRow];
    const subscribers = new Set(rows.filter((r) => r.kind === 'sub').map((r) => r.id));
    if (!channel.historyPublicToSubscribers) return [...subscribers].filter((id) => withRow.has(id));
    if (channel.inviteOnly) return [...subscribers];
    const nonGuestRows = rows.filter((r) => r.kind === 'um' && r.role !== 600).map((r) => r.id);
    return [...new Set([...subscribers, ...nonGuestRows])];
  }
}
