import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { dbIds } from '../database/ids';
import type { PushSettings } from './notifiability';

/** What the notifiability decision needs about one recipient of a message. */
export interface RecipientPushRow {
  userId: number;
  isBot: boolean;
  settings: PushSettings;
  subscription: { isMuted: boolean; pushNotifications: boolean | null; wildcardMentionsNotify: boolean | null } | null;
  topicVisibility: number;
}

interface Row {
  id: number;
  is_bot: boolean;
  enable_offline_push_notifications: boolean;
  enable_online_push_notifications: boolean;
  enable_stream_push_notifications: boolean;
  enable_followed_topic_push_notifications: boolean;
  enable_followed_topic_wildcard_mentions_notify: boolean;
  wildcard_mentions_notify: boolean;
  is_muted: boolean | null;
  push_notifications: boolean | null;
  sub_wildcard_mentions_notify: boolean | null;
  visibility_policy: number | null;
}

@Injectable()
export class PushRecipientsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * One query for every recipient: push settings, their subscription to the message's channel
   * (null for direct messages) and their visibility policy for its topic.
   */
  async load(
    userIds: readonly number[],
    channel: { recipientId: number; streamId: number; topic: string } | null,
  ): Promise<RecipientPushRow[]> {
    const ids = dbIds([...userIds]);
    if (ids.length === 0) return [];
    const rows = await this.dataSource.query<Row[]>(
      `SELECT p.id, p.is_bot, p.enable_offline_push_notifications, p.enable_online_push_notifications,
              p.enable_stream_push_notifications, p.enable_followed_topic_push_notifications,
              p.enable_followed_topic_wildcard_mentions_notify, p.wildcard_mentions_notify,
              s.is_muted, s.push_notifications, s.wildcard_mentions_notify AS sub_wildcard_mentions_notify,
              ut.visibility_policy
         FROM user_profile p
         LEFT JOIN subscription s ON s.user_profile_id = p.id AND s.recipient_id = $2 AND s.active
         LEFT JOIN user_topic ut ON ut.user_profile_id = p.id AND ut.stream_id = $3 AND lower(ut.topic_name) = lower($4)
        WHERE p.id = ANY($1) AND p.is_active`,
      [ids, channel?.recipientId ?? 0, channel?.streamId ?? 0, channel?.topic ?? ''],
    );
    return rows.map((r) => ({
      userId: r.id,
      isBot: r.is_bot,
      settings: {
        enable_offline_push_notifications: r.enable_offline_push_notifications,
        enable_online_push_notifications: r.enable_online_push_notifications,
        enable_stream_push_notifications: r.enable_stream_push_notifications,
        enable_followed_topic_push_notifications: r.enable_followed_topic_push_notifications,
        enable_followed_topic_wildcard_mentions_notify: r.enable_followed_topic_wildcard_mentions_notify,
        wildcard_mentions_notify: r.wildcard_mentions_notify,
      },
      subscription:
        channel && r.is_muted !== null
          ? {
              isMuted: r.is_muted,
              pushNotifications: r.push_notifications,
              wildcardMentionsNotify: r.sub_wildcard_mentions_notify,
            }
          : null,
      topicVisibility: r.visibility_policy ?? 0,
    }));
  }
}
