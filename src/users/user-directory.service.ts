import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { dbIds } from '../database/ids';
import { currentManager } from '../database/transaction';

/** A user of a realm, as other modules' event audiences and principals need it. */
export interface RealmUserRow {
  id: number;
  role: number;
  isBot: boolean;
  botOwnerId: number | null;
  isActive: boolean;
  deliveryEmail: string;
  emailAddressVisibility: number;
  fullName: string;
}

/** A user's own email notification settings. */
export interface UserEmailSettingsRow {
  userId: number;
  isBot: boolean;
  batchingPeriodSeconds: number;
  settings: {
    enable_offline_email_notifications: boolean;
    enable_stream_email_notifications: boolean;
    enable_followed_topic_email_notifications: boolean;
    enable_followed_topic_wildcard_mentions_notify: boolean;
    wildcard_mentions_notify: boolean;
  };
}

/** A user's own push notification settings. */
export interface UserPushSettingsRow {
  userId: number;
  isBot: boolean;
  settings: {
    enable_offline_push_notifications: boolean;
    enable_online_push_notifications: boolean;
    enable_stream_push_notifications: boolean;
    enable_followed_topic_push_notifications: boolean;
    enable_followed_topic_wildcard_mentions_notify: boolean;
    wildcard_mentions_notify: boolean;
  };
}

/**
 * Reads of the user table for other modules (channels' audiences and principals …): the users
 * module owns user_profile, so modules above it ask here instead of writing SQL on it.
 */
@Injectable()
export class UserDirectoryService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** The realm's active users, by id. */
  async activeUsers(realmId: number): Promise<RealmUserRow[]> {
    return this.userRows(`WHERE realm_id = $1 AND is_active`, [realmId]);
  }

  /** Users of the realm among `ids` (deactivated ones included), by id. */
  async usersByIds(realmId: number, ids: number[]): Promise<RealmUserRow[]> {
    const valid = dbIds(ids);
    if (valid.length === 0) return [];
    return this.userRows(`WHERE realm_id = $1 AND id = ANY($2)`, [realmId, valid]);
  }

  /** Users of the realm whose delivery email is one of `allEmails` (case-insensitive), by id. */
  async usersByDeliveryEmails(realmId: number, allEmails: string[]): Promise<RealmUserRow[]> {
    const emails = allEmails.filter((e) => !e.includes('\0'));
    if (emails.length === 0) return [];
    return this.userRows(`WHERE realm_id = $1 AND lower(delivery_email) = ANY($2)`, [
      realmId,
      emails.map((e) => e.toLowerCase()),
    ]);
  }

  private async userRows(where: string, params: unknown[]): Promise<RealmUserRow[]> {
    const rows = await this.em.query<
      Array<{
        id: number;
        role: number;
        is_bot: boolean;
        bot_owner_id: number | null;
        is_active: boolean;
        delivery_email: string;
        full_name: string;
        email_address_visibility: number;
      }>
    >(
      `SELECT id, role, is_bot, bot_owner_id, is_active, delivery_email, full_name, email_address_visibility
         FROM user_profile ${where} ORDER BY id`,
      params,
    );
    return rows.map((r) => ({
      id: r.id,
      role: r.role,
      isBot: r.is_bot,
      botOwnerId: r.bot_owner_id,
      isActive: r.is_active,
      deliveryEmail: r.delivery_email,
      fullName: r.full_name,
      emailAddressVisibility: r.email_address_visibility,
    }));
  }

  /**
   * Ids of the realm's active users, sorted (recipients of realm-wide events); with `limit`, at
   * most that many (enough to know "more than").
   */
  async activeUserIds(realmId: number, limit?: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE realm_id = $1 AND is_active ORDER BY id${limit ? ` LIMIT ${Math.trunc(limit)}` : ''}`,
      [realmId],
    );
    return rows.map((r) => r.id);
  }

  /** What presence events say about a user: delivery email, its visibility, and join date (seconds). */
  async presenceIdentity(
    userId: number,
  ): Promise<{ deliveryEmail: string; emailVisibility: number; dateJoined: number } | null> {
    const rows = await this.em.query<
      Array<{ delivery_email: string; email_address_visibility: number; date_joined: Date }>
    >(`SELECT delivery_email, email_address_visibility, date_joined FROM user_profile WHERE id = $1`, [userId]);
    if (rows.length === 0) return null;
    const r = rows[0];
    return {
      deliveryEmail: r.delivery_email,
      emailVisibility: r.email_address_visibility,
      dateJoined: r.date_joined.getTime() / 1000,
    };
  }

  /** Push notification settings of the active users among `userIds` (mobile push decisions). */
  async pushSettingsOf(userIds: number[]): Promise<UserPushSettingsRow[]> {
    const ids = dbIds(userIds);
    if (ids.length === 0) return [];
    const rows = await this.em.query<
      Array<{
        id: number;
        is_bot: boolean;
        enable_offline_push_notifications: boolean;
        enable_online_push_notifications: boolean;
        enable_stream_push_notifications: boolean;
        enable_followed_topic_push_notifications: boolean;
        enable_followed_topic_wildcard_mentions_notify: boolean;
        wildcard_mentions_notify: boolean;
      }>
    >(
      `SELECT p.id, p.is_bot, p.enable_offline_push_notifications, p.enable_online_push_notifications,
              p.enable_stream_push_notifications, p.enable_followed_topic_push_notifications,
              p.enable_followed_topic_wildcard_mentions_notify, p.wildcard_mentions_notify
         FROM user_profile p
        WHERE p.id = ANY($1) AND p.is_active`,
      [ids],
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
    }));
  }

  /** The email notification settings of the active users among `userIds` (missed-message emails). */
  async emailSettingsOf(userIds: number[]): Promise<UserEmailSettingsRow[]> {
    const ids = dbIds(userIds);
    if (ids.length === 0) return [];
    const rows = await this.em.query<
      Array<{
        id: number;
        is_bot: boolean;
        enable_offline_email_notifications: boolean;
        enable_stream_email_notifications: boolean;
        enable_followed_topic_email_notifications: boolean;
        enable_followed_topic_wildcard_mentions_notify: boolean;
        wildcard_mentions_notify: boolean;
        email_notifications_batching_period_seconds: number;
      }>
    >(
      `SELECT p.id, p.is_bot, p.enable_offline_email_notifications, p.enable_stream_email_notifications,
              p.enable_followed_topic_email_notifications, p.enable_followed_topic_wildcard_mentions_notify,
              p.wildcard_mentions_notify, p.email_notifications_batching_period_seconds
         FROM user_profile p
        WHERE p.id = ANY($1) AND p.is_active`,
      [ids],
    );
    return rows.map((r) => ({
      userId: r.id,
      isBot: r.is_bot,
      batchingPeriodSeconds: r.email_notifications_batching_period_seconds,
      settings: {
        enable_offline_email_notifications: r.enable_offline_email_notifications,
        enable_stream_email_notifications: r.enable_stream_email_notifications,
        enable_followed_topic_email_notifications: r.enable_followed_topic_email_notifications,
        enable_followed_topic_wildcard_mentions_notify: r.enable_followed_topic_wildcard_mentions_notify,
        wildcard_mentions_notify: r.wildcard_mentions_notify,
      },
    }));
  }

  /** Of `userIds`, the active users who want typing notifications. */
  async receivingTypingNotifications(userIds: number[]): Promise<number[]> {
    if (userIds.length === 0) return [];
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE id = ANY($1::int[]) AND is_active AND receives_typing_notifications`,
      [userIds],
    );
    return rows.map((r) => r.id);
  }

  /** Of `userIds`, the active users who share read receipts (send_read_receipts), in the given order. */
  async sharingReadReceipts(userIds: number[]): Promise<number[]> {
    const ids = dbIds(userIds);
    if (ids.length === 0) return [];
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE id = ANY($1::int[]) AND is_active AND send_read_receipts`,
      [ids],
    );
    const sharing = new Set(rows.map((r) => r.id));
    return ids.filter((id) => sharing.has(id));
  }
}
