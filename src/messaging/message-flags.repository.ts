import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import { Flag } from './flags';
import { namedQuery } from '../database/named-query';
import { subscriptionsView, userTopicsView } from '../channels/channels.sql';

/**
 * Set-based flag changes on a user's UserMessage rows: each statement changes every listed row
 * that needs it and returns the ids it changed.
 */
@Injectable()
export class MessageFlagsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** Sets (or clears) `bit` on the user's rows for `messageIds` that lack (or have) it. */
  async setFlag(userId: number, messageIds: number[], bit: number, add: boolean): Promise<number[]> {
    if (messageIds.length === 0) return [];
    const rows = add
      ? await namedQuery<{ message_id: number }>(
          this.em,
          'msg_flags_add',
          `UPDATE user_message SET flags = flags | $3::bigint
            WHERE user_profile_id = $1 AND message_id = ANY($2::int[]) AND (flags & $3::bigint) = 0
            RETURNING message_id`,
          [userId, messageIds, bit],
        )
      : await namedQuery<{ message_id: number }>(
          this.em,
          'msg_flags_remove',
          `UPDATE user_message SET flags = flags & ~$3::bigint
            WHERE user_profile_id = $1 AND message_id = ANY($2::int[]) AND (flags & $3::bigint) <> 0
            RETURNING message_id`,
          [userId, messageIds, bit],
        );
    return rows.map((r) => r.message_id).sort((a, b) => a - b);
  }

  /**
   * "Historical" rows for accessible messages the user never received (Zulip's
   * create_historical_user_messages): flags historical|read, adjusted by the requested change.
   * Returns the ids inserted (concurrent requests insert each row once).
   */
  async insertHistorical(userId: number, messageIds: number[], flags: number): Promise<number[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.em.query<Array<{ message_id: number }>>(
      `INSERT INTO user_message (user_profile_id, message_id, flags)
       SELECT $1, id, $3::bigint FROM unnest($2::int[]) AS t(id)
       ON CONFLICT (user_profile_id, message_id) DO NOTHING
       RETURNING message_id`,
      [userId, messageIds, flags],
    );
    return rows.map((r) => r.message_id).sort((a, b) => a - b);
  }

  /** Marks every unread message of the user as read (optionally only in one channel / topic). */
  async markAllRead(
    userId: number,
    scope: { recipientId: number; topic: string | null } | null,
    excludedRecipientIds: number[],
  ): Promise<number[]> {
    const params: unknown[] = [userId, excludedRecipientIds];
    let where = `um.user_profile_id = $1 AND (um.flags & ${Flag.read}) = 0 AND m.id = um.message_id
                 AND m.recipient_id <> ALL($2::int[])`;
    if (scope) {
      params.push(scope.recipientId);
      where += ` AND m.recipient_id = $${params.length}`;
      if (scope.topic !== null) {
        params.push(scope.topic);
        where += ` AND m.is_channel_message AND upper(m.subject) = upper($${params.length}::text)`;
      }
    }
    const rows = await this.em.query<Array<{ message_id: number }>>(
      `WITH changed AS (
         UPDATE user_message um SET flags = um.flags | ${Flag.read}
           FROM message m WHERE ${where}
         RETURNING um.message_id
       ) SELECT message_id FROM changed ORDER BY message_id`,
      params,
    );
    return rows.map((r) => r.message_id);
  }

  /** Marks the user's unread messages from `senderId` read; returns their ids, sorted. */
  async markReadFromSender(userId: number, senderId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ message_id: number }>>(
      `WITH changed AS (
         UPDATE user_message um SET flags = um.flags | ${Flag.read}
           FROM message m
          WHERE um.user_profile_id = $1 AND (um.flags & ${Flag.read}) = 0 AND m.id = um.message_id AND m.sender_id = $2
         RETURNING um.message_id
       ) SELECT message_id FROM changed ORDER BY message_id`,
      [userId, senderId],
    );
    return rows.map((r) => r.message_id);
  }

  /**
   * For channel messages: whether each is "unmuted" for the user (Zulip's unmuted_stream_msg: a
   * topic not muted in an unmuted channel, or unmuted/followed in a muted one).
   */
  async unmutedChannelMessageIds(userId: number, messageIds: number[]): Promise<Set<number>> {
    if (messageIds.length === 0) return new Set();
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT m.id FROM message m
         LEFT JOIN ${subscriptionsView} sub ON sub.recipient_id = m.recipient_id AND sub.user_profile_id = $1 AND sub.active
         LEFT JOIN ${userTopicsView} ut ON ut.user_profile_id = $1 AND ut.recipient_id = m.recipient_id
                                AND lower(ut.topic_name) = lower(m.subject)
        WHERE m.id = ANY($2::int[])
          AND ((coalesce(sub.is_muted, false) = false AND coalesce(ut.visibility_policy, 0) <> 1)
               OR (sub.is_muted AND ut.visibility_policy IN (2, 3)))`,
      [userId, messageIds],
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Marks read the unread messages users have in channels they left, for every (user,
   * channel recipient) pair in one statement; returns the changed ids per user.
   */
  async markReadInRecipients(pairs: Array<{ userId: number; recipientId: number }>): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    if (pairs.length === 0) return out;
    const rows = await this.em.query<Array<{ user_profile_id: number; message_id: number }>>(
      `WITH pairs AS (
         SELECT * FROM unnest($1::int[], $2::int[]) AS p(user_id, recipient_id)
       ), changed AS (
         UPDATE user_message um SET flags = um.flags | ${Flag.read}
           FROM message m, pairs p
          WHERE um.user_profile_id = p.user_id AND m.recipient_id = p.recipient_id AND m.id = um.message_id
            AND (um.flags & ${Flag.read}) = 0
         RETURNING um.user_profile_id, um.message_id
       ) SELECT user_profile_id, message_id FROM changed ORDER BY 1, 2`,
      [pairs.map((p) => p.userId), pairs.map((p) => p.recipientId)],
    );
    for (const r of rows) {
      const list = out.get(r.user_profile_id) ?? [];
      list.push(r.message_id);
      out.set(r.user_profile_id, list);
    }
    return out;
  }

  /** Whether the user received any message in the channel topic (Zulip's user_message_exists_for_topic). */
  async userHasMessageInTopic(userId: number, recipientId: number, topic: string): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `SELECT 1 FROM user_message um JOIN message m ON m.id = um.message_id
        WHERE um.user_profile_id = $1 AND m.recipient_id = $2 AND m.is_channel_message
          AND upper(m.subject) = upper($3::text) LIMIT 1`,
      [userId, recipientId, topic],
    );
    return rows.length > 0;
  }

  /**
   * Who has the message marked read (GET /messages/{id}/read_receipts), except the sender, by
   * id; users decides which of them share read receipts.
   */
  async readerIds(messageId: number, senderId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT user_profile_id AS id FROM user_message
        WHERE message_id = $1 AND (flags & ${Flag.read}) <> 0 AND user_profile_id <> $2
        ORDER BY user_profile_id`,
      [messageId, senderId],
    );
    return rows.map((r) => r.id);
  }
}
