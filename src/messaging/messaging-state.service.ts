import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import { OwnUserFields } from '../users/own-user-fields';
import { ChannelQueriesService } from '../channels/channel-queries.service';
import { Flag } from './flags';
import type { MessageRow } from './message-format';
import { MessagesRepository } from './messages.repository';
import {
  aggregateUnreadGroups,
  MAX_UNREAD_MESSAGES,
  WILDCARD_MENTION_FLAGS,
  type UnreadGroup,
  type UnreadMessages,
} from './unread';
import { activeSubscribedChannels } from '../channels/channels.sql';

/**
 * The message-related parts of POST /register's initial state (Zulip's
 * fetch_initial_state_data): max_message_id, unread_msgs, starred_messages and
 * recent_private_conversations. A few indexed queries each.
 */
@Injectable()
export class MessagingStateService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly messages: MessagesRepository,
    private readonly ownUserFields: OwnUserFields,
    private readonly channels: ChannelQueriesService,
  ) {}

  /** GET /users/me's max_message_id is this user's, as /register's (not the server's newest). */
  onModuleInit(): void {
    this.ownUserFields.provideMaxMessageId((userId) => this.maxMessageId(userId));
  }

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /**
   * Of `messageIds`, the messages `userId` received and has not read, oldest first, with channel
   * name and direct-message participants (missed-message emails: a message read or deleted since
   * it was sent is not emailed).
   */
  async unreadAmong(realmId: number, userId: number, messageIds: number[]): Promise<MessageRow[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.em.query<Array<{ message_id: number }>>(
      `SELECT message_id FROM user_message
        WHERE user_profile_id = $1 AND message_id = ANY($2::int[]) AND (flags & ${Flag.read}) = 0`,
      [userId, messageIds],
    );
    const messages = await this.messages.messagesByIds(
      realmId,
      rows.map((r) => r.message_id),
    );
    return messages.sort((a, b) => a.dateSent.getTime() - b.dateSent.getTime() || a.id - b.id);
  }

  /** The newest message the user received (-1 when none). */
  async maxMessageId(userId: number): Promise<number> {
    const rows = await this.em.query<Array<{ id: number | null }>>(
      `SELECT max(message_id) AS id FROM user_message WHERE user_profile_id = $1`,
      [userId],
    );
    return rows[0]?.id ?? -1;
  }

  /** The user's starred messages, oldest first (at most 10,000, as Zulip). */
  async starredMessageIds(userId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ message_id: number }>>(
      `SELECT message_id FROM user_message WHERE user_profile_id = $1 AND (flags & ${Flag.starred}) <> 0
        ORDER BY message_id LIMIT 10000`,
      [userId],
    );
    return rows.map((r) => r.message_id);
  }

  /**
   * unread_msgs: the newest 50,000 unread messages, in channels the user is subscribed to or DMs.
   * The statement groups them by conversation (channel and topic, or direct-message recipient)
   * with their id lists as JSON: a user with 40,000 unreads gets a few hundred rows, not 40,000
   * rows to parse and aggregate here.
   */
  async unreadMessages(userId: number, allowEmptyTopicName: boolean): Promise<UnreadMessages> {
    const grouped = this.em.query<
      Array<{
        stream_id: number | null;
        subject: string;
        dm_user_ids: number[] | null;
        ids: number[];
        mentioned: number[] | null;
        wildcard: number[] | null;
      }>
    >(
      // Planned to run in the order of the unread index: a backward index-only scan of the user's
      // unread rows (flags included), each looked up in message_id_cover_idx for its
      // conversation and kept if it is a direct message or in a subscribed channel (a hashed
      // subplan: a join here would lose the order and sort 40,000 rows before the LIMIT). The
      // grouping compares topics bytewise (COLLATE "C": the same groups as the database's
      // deterministic collation, a few ms less sorting at 40,000 rows), and the channel and the
      // direct-message group are joined to the groups (thousands at most), not to every message.
      `WITH subs AS MATERIALIZED (${activeSubscribedChannels('$1')}),
       unread AS (
         SELECT um.message_id, um.flags, m.recipient_id, m.subject COLLATE "C" AS subject, m.is_channel_message
           FROM user_message um
           JOIN message m ON m.id = um.message_id
          WHERE um.user_profile_id = $1 AND (um.flags & ${Flag.read}) = 0
            AND (NOT m.is_channel_message OR m.recipient_id IN (SELECT recipient_id FROM subs))
          ORDER BY um.message_id DESC LIMIT ${MAX_UNREAD_MESSAGES}
       ),
       grouped AS (
         SELECT u.recipient_id, u.subject, u.is_channel_message,
                json_agg(u.message_id ORDER BY u.message_id) AS ids,
                json_agg(u.message_id ORDER BY u.message_id) FILTER (WHERE (u.flags & ${Flag.mentioned}) <> 0) AS mentioned,
                json_agg(u.message_id ORDER BY u.message_id)
                  FILTER (WHERE (u.flags & ${Flag.mentioned}) = 0 AND (u.flags & ${WILDCARD_MENTION_FLAGS}) <> 0) AS wildcard
           FROM unread u
          GROUP BY u.recipient_id, u.subject, u.is_channel_message
       )
       SELECT s.stream_id, gr.subject, g.user_ids AS dm_user_ids, gr.ids, gr.mentioned, gr.wildcard
         FROM grouped gr
         LEFT JOIN subs s ON gr.is_channel_message AND s.recipient_id = gr.recipient_id
         LEFT JOIN direct_message_group g ON NOT gr.is_channel_message AND g.recipient_id = gr.recipient_id`,
      [userId],
    );
    const [rows, muted, topics] = await Promise.all([
      grouped,
      this.channels.mutedChannelIds(userId),
      this.channels.topicPoliciesByLowerTopic(userId),
    ]);
    const policies = new Map(topics.map((t) => [`${t.streamId}\u0000${t.topic}`, t.visibilityPolicy]));
    let total = 0;
    const groups: UnreadGroup[] = rows.map((r) => {
      total += r.ids.length;
      return {
        streamId: r.stream_id,
        topic: r.subject,
        dmUserIds: r.stream_id === null ? (r.dm_user_ids ?? []) : null,
        ids: r.ids,
        mentioned: r.mentioned ?? [],
        wildcard: r.wildcard ?? [],
      };
    });
    return aggregateUnreadGroups(
      userId,
      groups,
      {
        mutedStreamIds: new Set(muted),
        topicPolicy: (streamId, topic) => policies.get(`${streamId}\u0000${topic}`) ?? 0,
      },
      allowEmptyTopicName,
      total === MAX_UNREAD_MESSAGES,
    );
  }

  /**
   * recent_private_conversations: over the user's 1,000 newest direct messages, one entry per
   * conversation with its newest message and the other participants, newest first.
   */
  async recentPrivateConversations(userId: number): Promise<Array<{ max_message_id: number; user_ids: number[] }>> {
    const rows = await this.em.query<Array<{ max_message_id: number; user_ids: number[] }>>(
      `WITH recent AS (
         SELECT message_id FROM user_message
          WHERE user_profile_id = $1 AND (flags & ${Flag.is_private}) <> 0
          ORDER BY message_id DESC LIMIT 1000
       )
       SELECT max(m.id) AS max_message_id, g.user_ids
         FROM recent JOIN message m ON m.id = recent.message_id
         JOIN direct_message_group g ON g.recipient_id = m.recipient_id
        GROUP BY g.user_ids
        ORDER BY max(m.id) DESC`,
      [userId],
    );
    return rows.map((r) => ({ max_message_id: r.max_message_id, user_ids: r.user_ids.filter((id) => id !== userId) }));
  }
}
