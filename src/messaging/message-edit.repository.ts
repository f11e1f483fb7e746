import type { AttachmentDictRow } from './message-attachments';
import {
  channelsView,
  isActiveSubscriber,
  refreshFirstMessageIdsSql,
  subscriptionsView,
} from '../channels/channels.sql';
import { usersView } from '../users/users.sql';
import { channelAccessFields } from './message-access.policy';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CacheInvalidation } from '../database/cache-invalidation';
import { currentManager } from '../database/transaction';
import { Role } from '../common/roles';

/** A channel with what editing, moving and deleting need. */
export interface ChannelForEdit {
  id: number;
  realmId: number;
  name: string;
  recipientId: number;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  deactivated: boolean;
  topicsPolicy: number;
  canAddSubscribersGroup: number;
  canAdministerChannelGroup: number;
  canCreateTopicGroup: number;
  canDeleteAnyMessageGroup: number;
  canDeleteOwnMessageGroup: number;
  canMoveMessagesOutOfChannelGroup: number;
  canMoveMessagesWithinChannelGroup: number;
  canResolveTopicsGroup: number;
  canSendMessageGroup: number;
  canSubscribeGroup: number;
  subscribed: boolean;
}

interface ChannelForEditRaw {
  id: number;
  realm_id: number;
  name: string;
  recipient_id: number;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  deactivated: boolean;
  topics_policy: number;
  can_add_subscribers_group: number;
  can_administer_channel_group: number;
  can_create_topic_group: number;
  can_delete_any_message_group: number;
  can_delete_own_message_group: number;
  can_move_messages_out_of_channel_group: number;
  can_move_messages_within_channel_group: number;
  can_resolve_topics_group: number;
  can_send_message_group: number;
  can_subscribe_group: number;
  subscribed: boolean;
}

export function attachmentDict(a: AttachmentDictRow) {
  return {
    id: a.id,
    name: a.file_name,
    path_id: a.path_id,
    size: Number(a.size),
    create_time: Math.floor(new Date(a.create_time).getTime() / 1000) * 1000,
    messages: a.messages.map((m) => ({
      id: m.id,
      date_sent: Math.floor(new Date(m.date_sent).getTime() / 1000) * 1000,
    })),
  };
}

/** Topic comparison as Zulip's messages_for_topic (case-insensitive). */
const SAME_TOPIC = `upper(m.subject) = upper($3::text)`;

/**
 * SQL of editing, moving and deleting messages: set-based statements whatever the number of
 * messages and users involved.
 */
@Injectable()
export class MessageEditRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly invalidation: CacheInvalidation,
  ) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  async channelForEdit(realmId: number, userId: number, channelId: number): Promise<ChannelForEdit | null> {
    const rows = await this.em.query<ChannelForEditRaw[]>(
      `SELECT s.id, s.realm_id, s.name, s.recipient_id, s.invite_only, s.is_web_public,
              s.history_public_to_subscribers, s.deactivated, s.topics_policy, s.can_add_subscribers_group,
              s.can_administer_channel_group, s.can_create_topic_group, s.can_delete_any_message_group,
              s.can_delete_own_message_group, s.can_move_messages_out_of_channel_group,
              s.can_move_messages_within_channel_group, s.can_resolve_topics_group, s.can_send_message_group,
              s.can_subscribe_group,
              ${isActiveSubscriber('$2', 's.recipient_id')} AS subscribed
         FROM ${channelsView} s WHERE s.realm_id = $1 AND s.id = $3`,
      [realmId, userId, channelId],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return {
      ...channelAccessFields(r),
      topicsPolicy: r.topics_policy,
      canAdministerChannelGroup: r.can_administer_channel_group,
      canCreateTopicGroup: r.can_create_topic_group,
      canDeleteAnyMessageGroup: r.can_delete_any_message_group,
      canDeleteOwnMessageGroup: r.can_delete_own_message_group,
      canMoveMessagesOutOfChannelGroup: r.can_move_messages_out_of_channel_group,
      canMoveMessagesWithinChannelGroup: r.can_move_messages_within_channel_group,
      canResolveTopicsGroup: r.can_resolve_topics_group,
      canSendMessageGroup: r.can_send_message_group,
      subscribed: r.subscribed,
    };
  }

  /**
   * Messages of a topic, oldest first, with their send dates. With `viewerId`, only those the
   * viewer has a UserMessage row for (bulk_access_stream_messages_query for protected history).
   * `fromId` keeps ids >= it; `excludeIds` leaves some out.
   */
  async topicMessages(
    realmId: number,
    recipientId: number,
    topic: string,
    opts: { viewerId?: number; fromId?: number; excludeIds?: number[] } = {},
  ): Promise<Array<{ id: number; date_sent: Date }>> {
    const rows = await this.em.query<Array<{ id: number; date_sent: Date }>>(
      `SELECT m.id, m.date_sent FROM message m
        WHERE m.realm_id = $1 AND m.recipient_id = $2 AND m.is_channel_message AND ${SAME_TOPIC}
          AND ($4::int IS NULL OR EXISTS (SELECT 1 FROM user_message um
                                           WHERE um.message_id = m.id AND um.user_profile_id = $4))
          AND ($5::int IS NULL OR m.id >= $5)
          AND NOT (m.id = ANY($6::int[]))
        ORDER BY m.id`,
      [realmId, recipientId, topic, opts.viewerId ?? null, opts.fromId ?? null, opts.excludeIds ?? []],
    );
    return rows;
  }

  async topicExists(realmId: number, recipientId: number, topic: string): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `SELECT 1 FROM message m WHERE m.realm_id = $1 AND m.recipient_id = $2 AND m.is_channel_message AND ${SAME_TOPIC} LIMIT 1`,
      [realmId, recipientId, topic],
    );
    return rows.length > 0;
  }

  /** Locks the given messages (FOR UPDATE), in id order. */
  async lockMessages(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.em.query(`SELECT id FROM message WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE`, [ids]);
  }

  /** Updates the content of one message (rendering included). */
  async updateContent(
    id: number,
    values: {
      content: string;
      renderedContent: string;
      renderedContentVersion: number;
      hasImage: boolean;
      hasLink: boolean;
    },
  ): Promise<void> {
    await this.em.query(
      `UPDATE message SET content = $2, rendered_content = $3, rendered_content_version = $4,
                          has_image = $5, has_link = $6 WHERE id = $1`,
      [id, values.content, values.renderedContent, values.renderedContentVersion, values.hasImage, values.hasLink],
    );
  }

  /**
   * Records an edit on messages: the history entry (newest first), last_edit_time, and the new
   * recipient and/or topic when given. `targetEntry` (if any) goes to `targetId` instead of
   * `entry` (the edited message carries content fields the others do not).
   */
  async recordEdit(
    ids: number[],
    entry: Record<string, unknown>,
    at: Date,
    change: { recipientId?: number; subject?: string },
    target?: { id: number; entry: Record<string, unknown> },
  ): Promise<void> {
    if (ids.length === 0) return;
    await this.em.query(
      `UPDATE message SET
         edit_history = jsonb_build_array(CASE WHEN id = $6 THEN $7::jsonb ELSE $2::jsonb END)
                        || COALESCE(edit_history, '[]'::jsonb),
         last_edit_time = $3,
         recipient_id = COALESCE($4::int, recipient_id),
         subject = COALESCE($5::text, subject)
       WHERE id = ANY($1::int[])`,
      [
        ids,
        JSON.stringify(entry),
        at,
        change.recipientId ?? null,
        change.subject ?? null,
        target?.id ?? null,
        JSON.stringify(target?.entry ?? entry),
      ],
    );
    // A move may leave a topic empty: the send path's ChannelSendCache forgets topics it saw.
    if (change.recipientId !== undefined || change.subject !== undefined) {
      await this.invalidation.publishOnCommit('channels', null);
    }
  }

  /** UserMessage rows of a message: user id and flags. */
  async userMessages(messageId: number): Promise<Array<{ userId: number; flags: number }>> {
    const rows = await this.em.query<Array<{ user_profile_id: number; flags: string }>>(
      `SELECT user_profile_id, flags FROM user_message WHERE message_id = $1 ORDER BY user_profile_id`,
      [messageId],
    );
    return rows.map((r) => ({ userId: r.user_profile_id, flags: Number(r.flags) }));
  }

  /** Sets the mention flags of every UserMessage row of a message (update_user_message_flags). */
  async setMentionFlags(
    messageId: number,
    mask: number,
    perUser: Array<{ userId: number; flags: number }>,
  ): Promise<void> {
    await this.em.query(
      `UPDATE user_message um SET flags = (um.flags & ~$2::bigint) | COALESCE(v.f, 0)
         FROM (SELECT um2.user_profile_id AS uid, x.f FROM user_message um2
                 LEFT JOIN unnest($3::int[], $4::bigint[]) AS x(uid, f) ON x.uid = um2.user_profile_id
                WHERE um2.message_id = $1) v
        WHERE um.message_id = $1 AND um.user_profile_id = v.uid
          AND um.flags <> ((um.flags & ~$2::bigint) | COALESCE(v.f, 0))`,
      [messageId, mask, perUser.map((p) => p.userId), perUser.map((p) => p.flags)],
    );
  }

  /** Users with any subscription row (active or not) to a recipient. */
  async allSubscriberIds(recipientId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT DISTINCT user_profile_id AS id FROM ${subscriptionsView} sub WHERE recipient_id = $1`,
      [recipientId],
    );
    return rows.map((r) => r.id);
  }

  /** Active subscribers (deactivated users included unless `activeUsersOnly`) with their roles. */
  async activeSubscribers(recipientId: number, activeUsersOnly: boolean): Promise<Array<{ id: number; role: number }>> {
    const rows = await this.em.query<Array<{ id: number; role: number }>>(
      `SELECT u.id, u.role FROM ${subscriptionsView} sub JOIN ${usersView} u ON u.id = sub.user_profile_id
        WHERE sub.recipient_id = $1 AND sub.active AND ($2::boolean IS FALSE OR u.is_active)`,
      [recipientId, activeUsersOnly],
    );
    return rows;
  }

  async rolesOf(userIds: number[]): Promise<Map<number, number>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.em.query<Array<{ id: number; role: number }>>(
      `SELECT id, role FROM ${usersView} u WHERE id = ANY($1::int[])`,
      [userIds],
    );
    return new Map(rows.map((r) => [r.id, r.role]));
  }

  /** Gives users UserMessage rows (read) for messages, keeping existing rows. */
  async addUserMessages(userIds: number[], messageIds: number[], flags: number): Promise<void> {
    if (userIds.length === 0 || messageIds.length === 0) return;
    await this.em.query(
      `INSERT INTO user_message (user_profile_id, message_id, flags)
       SELECT u, m, $3 FROM unnest($1::int[]) AS u, unnest($2::int[]) AS m
       ON CONFLICT DO NOTHING`,
      [userIds, messageIds, flags],
    );
  }

  async removeUserMessages(userIds: number[], messageIds: number[]): Promise<void> {
    if (userIds.length === 0 || messageIds.length === 0) return;
    await this.em.query(
      `DELETE FROM user_message WHERE user_profile_id = ANY($1::int[]) AND message_id = ANY($2::int[])`,
      [userIds, messageIds],
    );
  }

  /**
   * Recomputes the channels' first_message_id from their remaining messages; returns the
   * channels whose value changed.
   */
  async refreshFirstMessageIds(
    channelIds: number[],
  ): Promise<Array<{ id: number; name: string; first_message_id: number | null }>> {
    if (channelIds.length === 0) return [];
    const changed = await this.em.query<Array<{ id: number; name: string; first_message_id: number | null }>>(
      refreshFirstMessageIdsSql(
        '$1',
        (s) =>
          `(SELECT min(m.id) FROM message m WHERE m.realm_id = ${s}.realm_id AND m.recipient_id = ${s}.recipient_id)`,
      ),
      [channelIds],
    );
    // Channel listings (ChannelListingCache) show first_message_id.
    if (changed.length > 0) await this.invalidation.publishOnCommit('channels', null);
    return changed;
  }

  async setHasAttachment(messageId: number, value: boolean): Promise<void> {
    await this.em.query(`UPDATE message SET has_attachment = $2 WHERE id = $1`, [messageId, value]);
  }

  /** Guests among users. */
  async guestIds(userIds: number[]): Promise<Set<number>> {
    const roles = await this.rolesOf(userIds);
    return new Set([...roles].filter(([, r]) => r === Role.GUEST).map(([id]) => id));
  }

  /** Message type of the last message of a topic (for resolve undo) — id, type, date. */
  async lastTopicMessage(
    realmId: number,
    recipientId: number,
    topic: string,
  ): Promise<{ id: number; type: number; date_sent: Date } | null> {
    const rows = await this.em.query<Array<{ id: number; type: number; date_sent: Date }>>(
      `SELECT m.id, m.type, m.date_sent FROM message m
        WHERE m.realm_id = $1 AND m.recipient_id = $2 AND m.is_channel_message AND ${SAME_TOPIC}
        ORDER BY m.id DESC LIMIT 1`,
      [realmId, recipientId, topic],
    );
    return rows[0] ?? null;
  }

  async setMessageType(id: number, type: number): Promise<void> {
    await this.em.query(`UPDATE message SET type = $2 WHERE id = $1`, [id, type]);
  }

  /** Marks messages read for one user (mark_as_read_for_acting_user). */
  async markRead(userId: number, messageIds: number[], readFlag: number): Promise<void> {
    if (messageIds.length === 0) return;
    await this.em.query(
      `UPDATE user_message SET flags = flags | $3 WHERE user_profile_id = $1 AND message_id = ANY($2::int[])`,
      [userId, messageIds, readFlag],
    );
  }
}
