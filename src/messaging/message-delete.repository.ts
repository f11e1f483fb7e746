import { MessageAttachments } from './message-attachments';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CacheInvalidation } from '../database/cache-invalidation';
import { currentManager } from '../database/transaction';
import { channelsView } from '../channels/channels.sql';
import { usersView } from '../users/users.sql';

/** SQL of deleting messages: every table that refers to a message, set-based. */
@Injectable()
export class MessageDeleteRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly attachments: MessageAttachments,
    private readonly invalidation: CacheInvalidation,
  ) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** The messages (of the realm) with their channel and topic, locked for deletion. */
  async messagesForDelete(
    realmId: number,
    ids: number[],
  ): Promise<Array<{ id: number; stream_id: number | null; subject: string; recipient_id: number }>> {
    return this.em.query(
      `SELECT m.id, s.id AS stream_id, m.subject, m.recipient_id FROM message m
         LEFT JOIN ${channelsView} s ON m.is_channel_message AND s.recipient_id = m.recipient_id
        WHERE m.realm_id = $1 AND m.id = ANY($2::int[]) ORDER BY m.id FOR UPDATE OF m`,
      [realmId, ids],
    );
  }

  async usersWithRows(ids: number[]): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT DISTINCT um.user_profile_id AS id FROM user_message um JOIN ${usersView} u ON u.id = um.user_profile_id
        WHERE um.message_id = ANY($1::int[]) AND u.is_active`,
      [ids],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Deletes the messages, their UserMessage rows, reactions, submessages and attachment links;
   * returns the deleted ids and the ids of the attachments they linked.
   */
  async deleteMessages(ids: number[]): Promise<{ ids: number[]; attachmentIds: number[] }> {
    const rows = await this.em.query<Array<{ ids: number[]; attachment_ids: number[] }>>(
      `WITH um AS (DELETE FROM user_message WHERE message_id = ANY($1::int[])),
            r AS (DELETE FROM reaction WHERE message_id = ANY($1::int[])),
            sm AS (DELETE FROM submessage WHERE message_id = ANY($1::int[])),
            am AS (${this.attachments.unlinkMessagesSql('$1')}),
            d AS (DELETE FROM message WHERE id = ANY($1::int[]) RETURNING id)
       SELECT COALESCE((SELECT array_agg(id ORDER BY id) FROM d), '{}') AS ids,
              COALESCE((SELECT array_agg(DISTINCT attachment_id) FROM am), '{}') AS attachment_ids`,
      [ids],
    );
    // A delete may leave a topic empty: the send path's ChannelSendCache forgets topics it saw.
    if (rows[0].ids.length > 0) await this.invalidation.publishOnCommit('channels', null);
    return { ids: rows[0].ids, attachmentIds: rows[0].attachment_ids };
  }

  /**
   * The newest `limit` messages of a channel's topic (case-insensitive), locked for deletion;
   * with `viewerId`, only those the viewer has a UserMessage row for (protected history).
   */
  async topicBatchForDelete(
    realmId: number,
    channel: { id: number; recipientId: number },
    topic: string,
    viewerId: number | null,
    limit: number,
  ): Promise<Array<{ id: number; stream_id: number | null; subject: string; recipient_id: number }>> {
    return this.em.query(
      `SELECT m.id, $6::int AS stream_id, m.subject, m.recipient_id FROM message m
        WHERE m.realm_id = $1 AND m.recipient_id = $2 AND m.is_channel_message AND lower(m.subject) = lower($3)
          AND ($4::int IS NULL OR EXISTS (
                SELECT 1 FROM user_message um WHERE um.message_id = m.id AND um.user_profile_id = $4))
        ORDER BY m.id DESC LIMIT $5 FOR UPDATE OF m`,
      [realmId, channel.recipientId, topic, viewerId, limit, channel.id],
    );
  }

  /** Of `userIds`, those who still have a UserMessage row in the channel's topic. */
  async usersWithRowsInTopic(userIds: readonly number[], recipientId: number, topic: string): Promise<number[]> {
    if (userIds.length === 0) return [];
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT DISTINCT um.user_profile_id AS id FROM user_message um JOIN message m ON m.id = um.message_id
        WHERE um.user_profile_id = ANY($1::int[]) AND m.recipient_id = $2 AND m.is_channel_message
          AND lower(m.subject) = lower($3)`,
      [userIds, recipientId, topic],
    );
    return rows.map((r) => r.id);
  }
}
