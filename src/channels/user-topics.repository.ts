import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CacheInvalidation } from '../database/cache-invalidation';
import { currentManager } from '../database/transaction';
import { returnedRows } from './channels.repository';
import { VisibilityPolicy } from './user-topic.entity';

export interface UserTopicRow {
  streamId: number;
  topicName: string;
  lastUpdated: Date;
  visibilityPolicy: number;
}

/** Users' per-topic visibility policies (topics match case-insensitively). */
@Injectable()
export class UserTopicsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly invalidation: CacheInvalidation,
  ) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** The user's non-default policies (archived channels too), topics lower-cased (unread state). */
  async policiesByLowerTopic(
    userId: number,
  ): Promise<Array<{ streamId: number; topic: string; visibilityPolicy: number }>> {
    const rows = await this.em.query<Array<{ stream_id: number; topic: string; visibility_policy: number }>>(
      `SELECT stream_id, lower(topic_name) AS topic, visibility_policy FROM user_topic
        WHERE user_profile_id = $1 AND visibility_policy <> 0`,
      [userId],
    );
    return rows.map((r) => ({ streamId: r.stream_id, topic: r.topic, visibilityPolicy: r.visibility_policy }));
  }

  /** The user's policies in channels that are not archived (register's user_topics). */
  async listForUser(userId: number): Promise<UserTopicRow[]> {
    const rows = await this.em.query<
      Array<{ stream_id: number; topic_name: string; last_updated: Date; visibility_policy: number }>
    >(
      `SELECT t.stream_id, t.topic_name, t.last_updated, t.visibility_policy
         FROM user_topic t JOIN stream s ON s.id = t.stream_id
        WHERE t.user_profile_id = $1 AND NOT s.deactivated
        ORDER BY t.id`,
      [userId],
    );
    return rows.map((r) => ({
      streamId: r.stream_id,
      topicName: r.topic_name,
      lastUpdated: r.last_updated,
      visibilityPolicy: r.visibility_policy,
    }));
  }

  /** The user's muted topics in channels that are not archived, with the channel names (legacy muted_topics). */
  async mutedTopicsForUser(
    userId: number,
  ): Promise<Array<{ streamName: string; topicName: string; lastUpdated: Date }>> {
    return (await this.mutedTopicsForUsers([userId])).get(userId) ?? [];
  }

  /** mutedTopicsForUser for several users in one query. */
  async mutedTopicsForUsers(
    userIds: readonly number[],
  ): Promise<Map<number, Array<{ streamName: string; topicName: string; lastUpdated: Date }>>> {
    const rows = await this.em.query<
      Array<{ user_profile_id: number; stream_name: string; topic_name: string; last_updated: Date }>
    >(
      `SELECT t.user_profile_id, s.name AS stream_name, t.topic_name, t.last_updated
         FROM user_topic t JOIN stream s ON s.id = t.stream_id
        WHERE t.user_profile_id = ANY($1::int[]) AND t.visibility_policy = $2 AND NOT s.deactivated
        ORDER BY t.id`,
      [userIds, VisibilityPolicy.MUTED],
    );
    const out = new Map<number, Array<{ streamName: string; topicName: string; lastUpdated: Date }>>();
    for (const id of userIds) out.set(id, []);
    for (const r of rows) {
      out
        .get(r.user_profile_id)!
        .push({ streamName: r.stream_name, topicName: r.topic_name, lastUpdated: r.last_updated });
    }
    return out;
  }

  /**
   * Sets the policy (INHERIT deletes the row). Returns whether anything changed: setting the
   * current value again, or removing a policy that does not exist, changes nothing. Idempotent
   * under concurrency through the unique index on (user, channel, lower(topic)).
   */
  async setPolicy(p: {
    userId: number;
    streamId: number;
    recipientId: number;
    topicName: string;
    policy: number;
    at: Date;
  }): Promise<boolean> {
    if (p.policy === VisibilityPolicy.INHERIT) {
      const result: unknown = await this.em.query(
        `DELETE FROM user_topic WHERE user_profile_id = $1 AND stream_id = $2 AND lower(topic_name) = lower($3) RETURNING id`,
        [p.userId, p.streamId, p.topicName],
      );
      const removed = returnedRows(result).length > 0;
      // The send path caches who set a policy for a topic (ChannelSendCache).
      if (removed) await this.invalidation.publishOnCommit('channels', [p.recipientId]);
      return removed;
    }
    const rows = await this.em.query<unknown[]>(
      `INSERT INTO user_topic (user_profile_id, stream_id, recipient_id, topic_name, last_updated, visibility_policy)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (user_profile_id, stream_id, lower(topic_name)) DO UPDATE
         SET visibility_policy = EXCLUDED.visibility_policy, last_updated = EXCLUDED.last_updated
         WHERE user_topic.visibility_policy <> EXCLUDED.visibility_policy
       RETURNING id`,
      [p.userId, p.streamId, p.recipientId, p.topicName, p.at, p.policy],
    );
    if (rows.length > 0) await this.invalidation.publishOnCommit('channels', [p.recipientId]);
    return rows.length > 0;
  }

  /**
   * Removes every user's policy for a topic (case-insensitively), except for `keepUserIds`;
   * returns whose rows went, with whether the removed policy was "muted".
   */
  async clearTopic(
    streamId: number,
    topicName: string,
    keepUserIds: readonly number[],
  ): Promise<Array<{ userId: number; wasMuted: boolean }>> {
    const result: unknown = await this.em.query(
      `DELETE FROM user_topic
        WHERE stream_id = $1 AND lower(topic_name) = lower($2) AND NOT (user_profile_id = ANY($3::int[]))
        RETURNING user_profile_id, visibility_policy`,
      [streamId, topicName, keepUserIds],
    );
    if (returnedRows(result).length > 0) await this.invalidation.publishOnCommit('channels', null);
    return returnedRows<{ user_profile_id: number; visibility_policy: number }>(result).map((r) => ({
      userId: r.user_profile_id,
      wasMuted: r.visibility_policy === VisibilityPolicy.MUTED,
    }));
  }

  /** Users with a policy for the topic (case-insensitively). */
  async usersWithPolicy(streamId: number, topicName: string): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT user_profile_id AS id FROM user_topic WHERE stream_id = $1 AND lower(topic_name) = lower($2)`,
      [streamId, topicName],
    );
    return rows.map((r) => r.id);
  }
}
