import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { dbIds, intArrayParam, isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';
import { CacheInvalidation } from '../database/cache-invalidation';
import type { ChannelAccessFields } from './message-access.policy';
import type { MessageRow, ReactionRow, UserBrief } from './message-format';
import { namedQuery } from '../database/named-query';
import { VisibilityPolicy } from '../channels/user-topic.entity';
import {
  channelsView,
  deleteRecipientSql,
  fillFirstMessageIdSql,
  insertRecipientsSql,
  isActiveSubscriber,
  subscriptionsView,
  userTopicsView,
} from '../channels/channels.sql';
import { realmsView } from '../realm/realm.sql';
import { usersView } from '../users/users.sql';

/** A channel as the send path loads it, with the sender's relation to it and the topic. */
export interface ChannelForSend extends ChannelAccessFields {
  topicsPolicy: number;
  canSendMessageGroup: number;
  canCreateTopicGroup: number;
  /** The sender's active subscription, if any. */
  senderSubscribed: boolean;
  senderMuted: boolean | null;
  /** The sender's visibility policy for the topic (0 when none is set). */
  senderVisibilityPolicy: number;
  /** Whether any message exists in the topic. */
  topicExists: boolean;
  /** For channels with protected history: whether the sender received any message of the topic. */
  topicExistsForSender: boolean | null;
  /** Active subscribers who are active users, sorted. */
  subscriberIds: number[];
  /**
   * Subscribers whom the message could notify whatever its content (Zulip's
   * stream_push_user_ids, stream_email_user_ids and the topic's followers): channel email or push
   * notifications on (the subscription's override, else the user's default), or following the
   * topic. Possibly with duplicates and users who are not subscribers any more.
   */
  notifyCandidateIds: number[];
}

export type { MentionGroupRow } from '../users/group-membership.repository';

export interface NewMessage {
  realmId: number;
  senderId: number;
  recipientId: number;
  subject: string;
  content: string;
  renderedContent: string;
  renderedContentVersion: number;
  dateSent: Date;
  sendingClient: string;
  hasAttachment: boolean;
  hasImage: boolean;
  hasLink: boolean;
  isChannelMessage: boolean;
  type: number;
}

const USER_BRIEF_COLUMNS = `u.id, u.realm_id, u.full_name, u.delivery_email, u.email_address_visibility,
  u.avatar_source, u.avatar_version, u.is_active, u.is_bot, u.bot_owner_id, u.role, u.is_mirror_dummy`;

interface UserBriefRaw {
  id: number;
  realm_id: number;
  full_name: string;
  delivery_email: string;
  email_address_visibility: number;
  avatar_source: string;
  avatar_version: number;
  is_active: boolean;
  is_bot: boolean;
  bot_owner_id: number | null;
  role: number;
  is_mirror_dummy: boolean;
}

export function toUserBrief(r: UserBriefRaw): UserBrief {
  return {
    id: r.id,
    realmId: r.realm_id,
    fullName: r.full_name,
    deliveryEmail: r.delivery_email,
    emailAddressVisibility: r.email_address_visibility,
    avatarSource: r.avatar_source,
    avatarVersion: r.avatar_version,
    isActive: r.is_active,
    isBot: r.is_bot,
    botOwnerId: r.bot_owner_id,
    role: r.role,
    isMirrorDummy: r.is_mirror_dummy,
  };
}

/** msg_insert_channel's channel update (built once: the named statement's text never changes). */
const FILL_FIRST_MESSAGE_ID_ON_SEND = fillFirstMessageIdSql('m', 'm.id', (c) => `${c}.id = $17`);

/** insertMessages' channel update: each channel's first new message, if it had none. */
const FILL_FIRST_MESSAGE_IDS_ON_BULK_SEND = fillFirstMessageIdSql(
  '(SELECT recipient_id, min(id) AS id FROM m WHERE is_channel_message GROUP BY recipient_id) f',
  'f.id',
  (c) => `${c}.recipient_id = f.recipient_id`,
);

/** Direct-message groups' recipient rows (type 3), for the statements that create the groups. */
const INSERT_DM_GROUP_RECIPIENT = insertRecipientsSql('SELECT 3, id FROM gid');
const INSERT_DM_GROUP_RECIPIENTS = insertRecipientsSql('SELECT 3, gid FROM missing');
const DELETE_DM_GROUP_RECIPIENT = deleteRecipientSql(3);

const CHANNEL_FOR_SEND_SELECT = `
  SELECT s.id, s.realm_id, s.name, s.recipient_id, s.invite_only, s.is_web_public,
         s.history_public_to_subscribers, s.deactivated, s.topics_policy, s.can_send_message_group,
         s.can_create_topic_group, s.can_subscribe_group, s.can_add_subscribers_group,
         sub.id IS NOT NULL AS sender_subscribed, sub.is_muted AS sender_muted,
         EXISTS (SELECT 1 FROM message m
                  WHERE m.recipient_id = s.recipient_id AND m.is_channel_message
                    AND upper(m.subject) = upper($3::text)) AS topic_exists,
         CASE WHEN s.history_public_to_subscribers THEN NULL ELSE EXISTS (
           SELECT 1 FROM user_message um JOIN message m ON m.id = um.message_id
            WHERE um.user_profile_id = $2 AND m.recipient_id = s.recipient_id AND m.is_channel_message
              AND upper(m.subject) = upper($3::text)) END AS topic_exists_for_sender,
         coalesce(subs.ids, '{}') AS subscriber_ids,
         coalesce(subs.muted, '{}') AS subscriber_muted,
         coalesce(subs.channel_notify_ids, '{}') AS channel_notify_ids,
         coalesce(ut.user_ids, '{}') AS topic_policy_user_ids,
         coalesce(ut.policies, '{}') AS topic_policies
    FROM ${channelsView} s
    LEFT JOIN ${subscriptionsView} sub
      ON sub.recipient_id = s.recipient_id AND sub.user_profile_id = $2 AND sub.active
    LEFT JOIN LATERAL (
      SELECT array_agg(t.user_profile_id) AS user_ids, array_agg(t.visibility_policy::int) AS policies
        FROM ${userTopicsView} t
       WHERE t.stream_id = s.id AND lower(t.topic_name) = lower($3::text)) ut ON true
    LEFT JOIN LATERAL (
      SELECT array_agg(sub2.user_profile_id ORDER BY sub2.user_profile_id) AS ids,
             array_agg(sub2.is_muted ORDER BY sub2.user_profile_id) AS muted,
             array_agg(sub2.user_profile_id) FILTER (
               WHERE coalesce(sub2.email_notifications, u.enable_stream_email_notifications)
                  OR coalesce(sub2.push_notifications, u.enable_stream_push_notifications)) AS channel_notify_ids
        FROM ${subscriptionsView} sub2
        JOIN ${usersView} u ON u.id = sub2.user_profile_id
       WHERE sub2.recipient_id = s.recipient_id AND sub2.active AND u.is_active) subs ON true`;

/**
 * The topic part of {@link CHANNEL_FOR_SEND_SELECT} alone ($1 channel id, $2 its recipient id, $3
 * topic), for a channel whose row and subscribers ChannelSendCache holds already: a new topic in
 * a channel of 10,000 subscribers then costs two index probes instead of re-reading them (~20 ms).
 */
const TOPIC_FOR_SEND_SELECT = `
  SELECT EXISTS (SELECT 1 FROM message m
                  WHERE m.recipient_id = $2 AND m.is_channel_message
                    AND upper(m.subject) = upper($3::text)) AS topic_exists,
         coalesce(array_agg(t.user_profile_id), '{}') AS topic_policy_user_ids,
         coalesce(array_agg(t.visibility_policy::int), '{}') AS topic_policies
    FROM ${userTopicsView} t
   WHERE t.stream_id = $1 AND lower(t.topic_name) = lower($3::text)`;

/** What {@link TOPIC_FOR_SEND_SELECT} reads: the topic columns of {@link ChannelForSendRaw}. */
export type TopicForSendRaw = Pick<ChannelForSendRaw, 'topic_exists' | 'topic_policy_user_ids' | 'topic_policies'>;

/**
 * Messages by id ($1 realm, $2 ids) with channel name and DM participants.
 *
 * The channels and DM groups are looked up for the distinct conversations of the messages only
 * (one unique-index probe each: the newest 100 of a channel cost one), never by joining the
 * whole `stream` table (a hash join over every channel of the server, whatever the fetch).
 */
const MESSAGE_ROWS_SQL = `WITH m AS MATERIALIZED (
            SELECT id, realm_id, sender_id, recipient_id, subject, content, rendered_content, date_sent,
                   sending_client, last_edit_time, edit_history, is_channel_message
              FROM message WHERE realm_id = $1 AND id = ANY($2::int[])
          ), s AS (
            SELECT id, name, recipient_id FROM ${channelsView} c
             WHERE recipient_id = ANY(ARRAY(SELECT DISTINCT recipient_id FROM m WHERE is_channel_message))
          ), g AS (
            SELECT recipient_id, user_ids FROM direct_message_group
             WHERE recipient_id = ANY(ARRAY(SELECT DISTINCT recipient_id FROM m WHERE NOT is_channel_message))
          )
          SELECT m.id, m.realm_id, m.sender_id, m.recipient_id, m.subject, m.content, m.rendered_content,
                 m.date_sent, m.sending_client, m.last_edit_time, m.edit_history, m.is_channel_message,
                 s.id AS stream_id, s.name AS stream_name, g.user_ids AS dm_user_ids
            FROM m
            LEFT JOIN s ON m.is_channel_message AND s.recipient_id = m.recipient_id
            LEFT JOIN g ON NOT m.is_channel_message AND g.recipient_id = m.recipient_id
           ORDER BY m.id`;

export interface ChannelForSendRaw {
  id: number;
  realm_id: number;
  name: string;
  recipient_id: number;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  deactivated: boolean;
  topics_policy: number;
  can_send_message_group: number;
  can_create_topic_group: number;
  can_subscribe_group: number;
  can_add_subscribers_group: number;
  sender_subscribed: boolean;
  sender_muted: boolean | null;
  topic_exists: boolean;
  topic_exists_for_sender: boolean | null;
  /** Active subscribers who are active users, sorted, and their is_muted in the same order. */
  subscriber_ids: number[];
  subscriber_muted: boolean[];
  /** Subscribers with channel email or push notifications on. */
  channel_notify_ids: number[];
  /** Every user's visibility policy for the topic (parallel arrays). */
  topic_policy_user_ids: number[];
  topic_policies: number[];
}

/** A user's visibility policy for the topic (0 when none is set), from the topic's policies. */
export function topicPolicyOf(r: Pick<ChannelForSendRaw, 'topic_policy_user_ids' | 'topic_policies'>, userId: number) {
  const i = r.topic_policy_user_ids.indexOf(userId);
  return i < 0 ? 0 : r.topic_policies[i];
}

/** The topic's followers, in the order of its policies. */
export function topicFollowers(r: Pick<ChannelForSendRaw, 'topic_policy_user_ids' | 'topic_policies'>): number[] {
  const out: number[] = [];
  for (let i = 0; i < r.topic_policies.length; i++) {
    if (r.topic_policies[i] === VisibilityPolicy.FOLLOWED) out.push(r.topic_policy_user_ids[i]);
  }
  return out;
}

/**
 * Built as one object literal with every property (no spread of channelAccessFields): V8 then
 * gives it a fixed shape at once, where adding properties after a spread made each call go
 * through slow dictionary-mode copies (about 10 µs per send, measured).
 */
export function toChannelForSend(r: ChannelForSendRaw, senderId: number): ChannelForSend {
  return {
    id: r.id,
    realmId: r.realm_id,
    name: r.name,
    recipientId: r.recipient_id,
    inviteOnly: r.invite_only,
    isWebPublic: r.is_web_public,
    historyPublicToSubscribers: r.history_public_to_subscribers,
    deactivated: r.deactivated,
    canSubscribeGroup: r.can_subscribe_group,
    canAddSubscribersGroup: r.can_add_subscribers_group,
    topicsPolicy: r.topics_policy,
    canSendMessageGroup: r.can_send_message_group,
    canCreateTopicGroup: r.can_create_topic_group,
    senderSubscribed: r.sender_subscribed,
    senderMuted: r.sender_muted,
    senderVisibilityPolicy: topicPolicyOf(r, senderId),
    topicExists: r.topic_exists,
    topicExistsForSender: r.topic_exists_for_sender,
    subscriberIds: r.subscriber_ids,
    notifyCandidateIds: [...r.channel_notify_ids, ...topicFollowers(r)],
  };
}

/**
 * SQL of the send path and of the message reads shared by several services. Hot statements
 * (loading the channel, inserting the message with its UserMessage rows) run as named prepared
 * statements on the transaction's connection.
 */
@Injectable()
export class MessagesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly invalidation: CacheInvalidation,
  ) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /**
   * A channel by name (case-insensitive) in the realm, with everything the send path needs (the
   * raw row: ChannelSendCache keeps it; toChannelForSend reads it).
   */
  async channelForSendByName(
    realmId: number,
    senderId: number,
    name: string,
    topic: string,
  ): Promise<ChannelForSendRaw | null> {
    const rows = await namedQuery<ChannelForSendRaw>(
      this.em,
      'msg_channel_for_send_by_name',
      `${CHANNEL_FOR_SEND_SELECT} WHERE s.realm_id = $1 AND upper(s.name) = upper($4::text)`,
      [realmId, senderId, topic, name],
    );
    return rows.length > 0 ? rows[0] : null;
  }

  /**
   * The topic columns of {@link channelForSendById} alone, for a channel of shared history
   * (`topic_exists_for_sender` is null there) whose other columns the caller holds.
   */
  async topicForSend(channelId: number, recipientId: number, topic: string): Promise<TopicForSendRaw> {
    const rows = await namedQuery<TopicForSendRaw>(this.em, 'msg_topic_for_send', TOPIC_FOR_SEND_SELECT, [
      channelId,
      recipientId,
      topic,
    ]);
    return rows[0];
  }

  /** A channel by id in the realm, as {@link channelForSendByName} reads it (the raw row: ChannelSendCache keeps it). */
  async channelForSendById(
    realmId: number,
    senderId: number,
    id: number,
    topic: string,
  ): Promise<ChannelForSendRaw | null> {
    if (!isDbId(id)) return null;
    const rows = await namedQuery<ChannelForSendRaw>(
      this.em,
      'msg_channel_for_send_by_id',
      `${CHANNEL_FOR_SEND_SELECT} WHERE s.realm_id = $1 AND s.id = $4`,
      [realmId, senderId, topic, id],
    );
    return rows.length > 0 ? rows[0] : null;
  }

  /**
   * Inserts a message and all its UserMessage rows in one statement (one round trip, constant
   * parameter count for any number of recipients); for a channel's first message it also records
   * `first_message_id`. Returns the new id.
   */
  async insertMessage(
    message: NewMessage,
    userIds: number[],
    flags: number[],
    channelId: number | null,
  ): Promise<number> {
    const values = [
      message.realmId,
      message.senderId,
      message.recipientId,
      message.subject,
      message.content,
      message.renderedContent,
      message.renderedContentVersion,
      message.dateSent,
      message.sendingClient,
      message.hasAttachment,
      message.hasImage,
      message.hasLink,
      message.isChannelMessage,
      message.type,
      intArrayParam(userIds),
      intArrayParam(flags),
    ];
    const insert = `
      WITH m AS (
        INSERT INTO message (realm_id, sender_id, recipient_id, subject, content, rendered_content,
                             rendered_content_version, date_sent, sending_client, has_attachment,
                             has_image, has_link, is_channel_message, type)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
        RETURNING id
      ), um AS (
        INSERT INTO user_message (user_profile_id, message_id, flags)
        SELECT r.user_id, m.id, r.flags FROM m, unnest($15::int[], $16::bigint[]) AS r(user_id, flags)
      )`;
    const rows =
      channelId === null
        ? await namedQuery<{ id: number; first: boolean }>(
            this.em,
            'msg_insert_direct',
            `${insert} SELECT id, false AS first FROM m`,
            values,
          )
        : await namedQuery<{ id: number; first: boolean }>(
            this.em,
            'msg_insert_channel',
            `${insert}, first AS (${FILL_FIRST_MESSAGE_ID_ON_SEND} RETURNING 1)
             SELECT id, EXISTS (SELECT 1 FROM first) AS first FROM m`,
            [...values, channelId],
          );
    // The channel's first message: channel listings (ChannelListingCache) show first_message_id.
    if (rows[0].first) await this.invalidation.publishOnCommit('channels', [message.recipientId]);
    return rows[0].id;
  }

  /**
   * The recipient id of the direct-message conversation among `userIds` (sorted, sender
   * included), creating the group and its recipient row on first use. Concurrent first messages
   * settle on one group (unique hash); the loser removes the recipient row it made.
   */
  async directMessageRecipient(hash: string, userIds: number[]): Promise<number> {
    const rows = await namedQuery<{ recipient_id: number | null; new_group_id: string | null }>(
      this.em,
      'msg_dm_group_get_or_create',
      `WITH existing AS (
         SELECT recipient_id FROM direct_message_group WHERE huddle_hash = $1
       ), gid AS (
         SELECT nextval(pg_get_serial_sequence('direct_message_group', 'id'))::int AS id
          WHERE NOT EXISTS (SELECT 1 FROM existing)
       ), rec AS (
         ${INSERT_DM_GROUP_RECIPIENT}
       ), grp AS (
         INSERT INTO direct_message_group (id, huddle_hash, recipient_id, group_size, user_ids)
         SELECT rec.type_id, $1, rec.id, $2, $3::int[] FROM rec
         ON CONFLICT (huddle_hash) DO NOTHING
         RETURNING recipient_id
       )
       SELECT (SELECT recipient_id FROM existing) AS recipient_id, NULL AS new_group_id
        WHERE EXISTS (SELECT 1 FROM existing)
       UNION ALL
       SELECT grp.recipient_id, NULL FROM grp
       UNION ALL
       SELECT NULL, rec.type_id::text FROM rec WHERE NOT EXISTS (SELECT 1 FROM grp)`,
      [hash, userIds.length, userIds],
    );
    const found = rows.find((r) => r.recipient_id !== null);
    if (found) return found.recipient_id!;
    // Lost a race with a concurrent first message: drop our recipient row, use theirs.
    const orphan = rows.find((r) => r.new_group_id !== null)?.new_group_id;
    if (orphan) await this.em.query(DELETE_DM_GROUP_RECIPIENT, [Number(orphan)]);
    const again = await this.em.query<
      Array<{
        recipient_id: number;
      }>
    >(`SELECT recipient_id FROM direct_message_group WHERE huddle_hash = $1`, [hash]);
    return again[0].recipient_id;
  }

  /** The DM conversation's recipient id if it exists (no creation). */
  async existingDirectMessageRecipient(hash: string): Promise<number | null> {
    const rows = await this.em.query<
      Array<{
        recipient_id: number | null;
      }>
    >(`SELECT recipient_id FROM direct_message_group WHERE huddle_hash = $1`, [hash]);
    return rows[0]?.recipient_id ?? null;
  }

  async conversationHasMessages(realmId: number, recipientId: number): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `SELECT 1 FROM message WHERE realm_id = $1 AND recipient_id = $2 LIMIT 1`,
      [realmId, recipientId],
    );
    return rows.length > 0;
  }

  /**
   * Senders and participants of messages already known to be in the viewer's realm, for
   * display: any realm (Zulip's cross-realm system bots send into every realm), with the
   * sender's realm string.
   */
  async usersForDisplay(ids: number[]): Promise<UserBrief[]> {
    const valid = dbIds(ids);
    if (valid.length === 0) return [];
    const rows = await this.em.query<Array<UserBriefRaw & { string_id: string }>>(
      `SELECT ${USER_BRIEF_COLUMNS}, r.string_id FROM ${usersView} u JOIN ${realmsView} r ON r.id = u.realm_id
        WHERE u.id = ANY($1::int[])`,
      [valid],
    );
    return rows.map((r) => ({ ...toUserBrief(r), realmStringId: r.string_id }));
  }

  async usersByIdsInRealm(realmId: number, ids: number[]): Promise<UserBrief[]> {
    const valid = dbIds(ids);
    if (valid.length === 0) return [];
    const rows = await this.em.query<UserBriefRaw[]>(
      `SELECT ${USER_BRIEF_COLUMNS} FROM ${usersView} u WHERE u.realm_id = $1 AND u.id = ANY($2::int[])`,
      [realmId, valid],
    );
    return rows.map(toUserBrief);
  }

  /**
   * Users by API email (case-insensitive): the real address for users whose email is visible
   * to everyone, `user<id>@<host>` for the others (Zulip looks up UserProfile.email).
   */
  async usersByApiEmailsInRealm(realmId: number, host: string, emails: string[]): Promise<UserBrief[]> {
    if (emails.length === 0) return [];
    const rows = await this.em.query<Array<UserBriefRaw & { api_email: string }>>(
      `SELECT ${USER_BRIEF_COLUMNS},
              lower(CASE WHEN u.email_address_visibility = 1 THEN u.delivery_email
                         ELSE 'user' || u.id || '@' || $2 END) AS api_email
         FROM ${usersView} u
        WHERE u.realm_id = $1
          AND (lower(u.delivery_email) = ANY($3::text[])
               OR ('user' || u.id || '@' || $2) = ANY($3::text[]))`,
      [realmId, host.toLowerCase(), emails.map((e) => e.toLowerCase())],
    );
    const wanted = new Set(emails.map((e) => e.toLowerCase()));
    return rows.filter((r) => wanted.has(r.api_email)).map(toUserBrief);
  }

  /** Users a mention may refer to: by full name (case-insensitive) or id, active or not. */
  async mentionCandidates(realmId: number, names: string[], ids: number[]): Promise<UserBrief[]> {
    const validIds = dbIds(ids);
    if (names.length === 0 && validIds.length === 0) return [];
    const rows = await this.em.query<UserBriefRaw[]>(
      `SELECT ${USER_BRIEF_COLUMNS} FROM ${usersView} u
        WHERE u.realm_id = $1 AND (lower(u.full_name) = ANY($2::text[]) OR u.id = ANY($3::int[]))`,
      [realmId, names.map((n) => n.toLowerCase()), validIds],
    );
    return rows.map(toUserBrief);
  }

  /** Every channel of the realm with one of these names (links in system bot messages). */
  async channelsByNames(realmId: number, names: string[]): Promise<Array<{ id: number; name: string }>> {
    if (names.length === 0) return [];
    return await this.em.query<Array<{ id: number; name: string }>>(
      `SELECT id, name FROM ${channelsView} s WHERE realm_id = $1 AND name = ANY($2::text[])`,
      [realmId, names],
    );
  }

  /** Channels `#**name**` may link to for this user: public ones and those they subscribe to. */
  async linkableChannels(
    realmId: number,
    userId: number,
    isGuest: boolean,
    names: string[],
  ): Promise<Array<{ id: number; name: string }>> {
    if (names.length === 0) return [];
    return await this.em.query<Array<{ id: number; name: string }>>(
      `SELECT s.id, s.name FROM ${channelsView} s
        WHERE s.realm_id = $1 AND s.name = ANY($2::text[])
          AND ((NOT s.invite_only AND NOT $4::boolean) OR s.is_web_public
               OR ${isActiveSubscriber('$3', 's.recipient_id')})`,
      [realmId, names, userId, isGuest],
    );
  }

  /** Zulip's participants_for_topic: senders of the topic's messages and users who reacted to them. */
  async topicParticipantIds(realmId: number, recipientId: number, topic: string): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT m.sender_id AS id FROM message m
        WHERE m.realm_id = $1 AND m.recipient_id = $2 AND m.is_channel_message AND upper(m.subject) = upper($3)
       UNION
       SELECT r.user_profile_id FROM reaction r JOIN message m ON m.id = r.message_id
        WHERE m.realm_id = $1 AND m.recipient_id = $2 AND m.is_channel_message AND upper(m.subject) = upper($3)`,
      [realmId, recipientId, topic],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Who shares a conversation with `userId` (users/user-access.ts): the subscribers of a channel
   * they are actively subscribed to (`channel`), and the participants of their direct-message
   * conversations (`direct`). `among` limits the answer to those ids. One query.
   */
  async conversationPeers(
    userId: number,
    among: readonly number[] | null,
  ): Promise<{ channel: Set<number>; direct: Set<number> }> {
    const limit = among === null ? null : dbIds([...among]);
    const out = { channel: new Set<number>(), direct: new Set<number>() };
    if (limit !== null && limit.length === 0) return out;
    const rows = await this.em.query<Array<{ id: number; direct: boolean }>>(
      `SELECT DISTINCT other.user_profile_id AS id, false AS direct
         FROM ${subscriptionsView} mine JOIN ${subscriptionsView} other ON other.recipient_id = mine.recipient_id
        WHERE mine.user_profile_id = $1 AND mine.active AND other.active
          AND ($2::int[] IS NULL OR other.user_profile_id = ANY($2::int[]))
       UNION
       SELECT DISTINCT t.id, true FROM direct_message_group g, unnest(g.user_ids) AS t(id)
        WHERE $1 = ANY(g.user_ids) AND ($2::int[] IS NULL OR t.id = ANY($2::int[]))`,
      [userId, limit],
    );
    for (const r of rows) (r.direct ? out.direct : out.channel).add(r.id);
    return out;
  }

  /**
   * The direct-message half of conversationPeers for several users at once: the (user, peer)
   * pairs of the same direct-message conversation, the user among `userIds` and the peer among
   * `among`. One query.
   */
  async directPeerPairs(
    userIds: readonly number[],
    among: readonly number[],
  ): Promise<Array<{ userId: number; peerId: number }>> {
    const users = dbIds([...userIds]);
    const limit = dbIds([...among]);
    if (users.length === 0 || limit.length === 0) return [];
    const rows = await this.em.query<Array<{ user_id: number; peer_id: number }>>(
      `SELECT DISTINCT u.id AS user_id, t.id AS peer_id
         FROM direct_message_group g, unnest(g.user_ids) AS u(id), unnest(g.user_ids) AS t(id)
        WHERE g.user_ids && $1::int[] AND g.user_ids && $2::int[]
          AND u.id = ANY($1::int[]) AND t.id = ANY($2::int[])`,
      [users, limit],
    );
    return rows.map((r) => ({ userId: r.user_id, peerId: r.peer_id }));
  }

  /**
   * Recipient ids of several DM conversations (by hash), creating missing groups in one
   * statement; a conversation created concurrently by another transaction falls back to the
   * single-conversation path.
   */
  async directMessageRecipients(groups: Array<{ hash: string; userIds: number[] }>): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const unique = [...new Map(groups.map((g) => [g.hash, g])).values()];
    if (unique.length === 0) return out;
    const rows = await this.em.query<Array<{ huddle_hash: string; recipient_id: number }>>(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(hash text, user_ids int[])
       ), existing AS (
         SELECT g.huddle_hash, g.recipient_id FROM direct_message_group g JOIN input ON g.huddle_hash = input.hash
       ), missing AS (
         SELECT input.hash, input.user_ids, nextval(pg_get_serial_sequence('direct_message_group', 'id'))::int AS gid
           FROM input WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.huddle_hash = input.hash)
       ), rec AS (
         ${INSERT_DM_GROUP_RECIPIENTS}
       ), grp AS (
         INSERT INTO direct_message_group (id, huddle_hash, recipient_id, group_size, user_ids)
         SELECT missing.gid, missing.hash, rec.id, cardinality(missing.user_ids), missing.user_ids
           FROM missing JOIN rec ON rec.type_id = missing.gid
         ON CONFLICT (huddle_hash) DO NOTHING
         RETURNING huddle_hash, recipient_id
       )
       SELECT huddle_hash, recipient_id FROM existing UNION ALL SELECT huddle_hash, recipient_id FROM grp`,
      [JSON.stringify(unique.map((g) => ({ hash: g.hash, user_ids: g.userIds })))],
    );
    for (const r of rows) out.set(r.huddle_hash, r.recipient_id);
    for (const g of unique) {
      if (!out.has(g.hash)) out.set(g.hash, await this.directMessageRecipient(g.hash, g.userIds));
    }
    return out;
  }

  /**
   * Inserts several messages and all their UserMessage rows in one statement; returns the new
   * ids in input order. Channels get their first_message_id when it is still unset.
   */
  async insertMessages(items: Array<{ message: NewMessage; userIds: number[]; flags: number[] }>): Promise<number[]> {
    if (items.length === 0) return [];
    const col = <T>(f: (m: NewMessage) => T) => items.map((i) => f(i.message));
    const umOrd: number[] = [];
    const umUser: number[] = [];
    const umFlags: number[] = [];
    items.forEach((item, i) => {
      item.userIds.forEach((id, j) => {
        umOrd.push(i + 1);
        umUser.push(id);
        umFlags.push(item.flags[j]);
      });
    });
    const rows = await this.em.query<Array<{ id: number; ord: string; first: number[] | null }>>(
      `WITH input AS (
         SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::int[],
                              $8::timestamptz[], $9::text[], $10::bool[], $11::bool[], $12::bool[], $13::bool[],
                              $14::smallint[])
           WITH ORDINALITY AS t(realm_id, sender_id, recipient_id, subject, content, rendered_content,
                                rendered_content_version, date_sent, sending_client, has_attachment, has_image,
                                has_link, is_channel_message, type, ord)
       ), ids AS (
         SELECT input.*, nextval(pg_get_serial_sequence('message', 'id'))::int AS id FROM input ORDER BY ord
       ), m AS (
         INSERT INTO message (id, realm_id, sender_id, recipient_id, subject, content, rendered_content,
                              rendered_content_version, date_sent, sending_client, has_attachment, has_image,
                              has_link, is_channel_message, type)
         SELECT id, realm_id, sender_id, recipient_id, subject, content, rendered_content, rendered_content_version,
                date_sent, sending_client, has_attachment, has_image, has_link, is_channel_message, type
           FROM ids ORDER BY ord
         RETURNING id, recipient_id, is_channel_message
       ), um AS (
         INSERT INTO user_message (user_profile_id, message_id, flags)
         SELECT r.user_id, ids.id, r.flags FROM unnest($15::int[], $16::int[], $17::bigint[]) AS r(ord, user_id, flags)
           JOIN ids ON ids.ord = r.ord
       ), first AS (${FILL_FIRST_MESSAGE_IDS_ON_BULK_SEND} RETURNING c.recipient_id)
       SELECT id, ord, (SELECT array_agg(recipient_id) FROM first) AS first FROM ids ORDER BY ord`,
      [
        col((m) => m.realmId),
        col((m) => m.senderId),
        col((m) => m.recipientId),
        col((m) => m.subject),
        col((m) => m.content),
        col((m) => m.renderedContent),
        col((m) => m.renderedContentVersion),
        col((m) => m.dateSent),
        col((m) => m.sendingClient),
        col((m) => m.hasAttachment),
        col((m) => m.hasImage),
        col((m) => m.hasLink),
        col((m) => m.isChannelMessage),
        col((m) => m.type),
        intArrayParam(umOrd),
        intArrayParam(umUser),
        intArrayParam(umFlags),
      ],
    );
    // Channels' first messages: channel listings (ChannelListingCache) show first_message_id.
    const firsts = rows[0]?.first ?? null;
    if (firsts !== null && firsts.length > 0) await this.invalidation.publishOnCommit('channels', firsts);
    return rows.map((r) => r.id);
  }

  /** A system bot (realm zulipinternal) by email, with its realm string. */
  async systemBot(email: string): Promise<UserBrief | null> {
    const rows = await this.em.query<Array<UserBriefRaw & { string_id: string }>>(
      `SELECT ${USER_BRIEF_COLUMNS}, r.string_id FROM ${usersView} u JOIN ${realmsView} r ON r.id = u.realm_id
        WHERE r.string_id = 'zulipinternal' AND lower(u.delivery_email) = lower($1) AND u.is_active`,
      [email],
    );
    return rows.length > 0 ? { ...toUserBrief(rows[0]), realmStringId: rows[0].string_id } : null;
  }

  /** Does the channel have a message in a topic other than the empty one? */
  async channelHasNamedTopics(realmId: number, recipientId: number): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `SELECT 1 FROM message WHERE realm_id = $1 AND recipient_id = $2 AND is_channel_message AND subject <> '' LIMIT 1`,
      [realmId, recipientId],
    );
    return rows.length > 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads shared by fetch, flags and reactions.

  /** Messages by id (any realm filter is the caller's), with channel name and DM participants. */
  async messagesByIds(realmId: number, ids: number[]): Promise<MessageRow[]> {
    const valid = dbIds(ids);
    if (valid.length === 0) return [];
    const rows = await this.em.query<MessageRowRaw[]>(MESSAGE_ROWS_SQL, [realmId, valid]);
    return rows.map((r) => toMessageRow(r, r.id));
  }

  async reactionsForMessages(ids: number[]): Promise<ReactionRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.em.query<
      Array<{
        message_id: number;
        user_profile_id: number;
        emoji_name: string;
        emoji_code: string;
        reaction_type: string;
      }>
    >(
      `SELECT message_id, user_profile_id, emoji_name, emoji_code, reaction_type
         FROM reaction WHERE message_id = ANY($1::int[]) ORDER BY id`,
      [ids],
    );
    return rows.map((r) => ({
      messageId: r.message_id,
      userId: r.user_profile_id,
      emojiName: r.emoji_name,
      emojiCode: r.emoji_code,
      reactionType: r.reaction_type,
    }));
  }
}

/** A message's columns as the statements that build a {@link MessageRow} select them. */
export interface MessageRowColumns {
  realm_id: number;
  sender_id: number;
  recipient_id: number;
  subject: string;
  content: string;
  rendered_content: string | null;
  date_sent: Date;
  sending_client: string;
  last_edit_time: Date | null;
  edit_history: Array<Record<string, unknown>> | null;
  is_channel_message: boolean;
  stream_id: number | null;
  stream_name: string | null;
  dm_user_ids: number[] | null;
}

export interface MessageRowRaw extends MessageRowColumns {
  id: number;
}

export function toMessageRow(r: MessageRowColumns, id: number): MessageRow {
  return {
    id,
    realmId: r.realm_id,
    senderId: r.sender_id,
    recipientId: r.recipient_id,
    subject: r.subject,
    content: r.content,
    renderedContent: r.rendered_content,
    dateSent: r.date_sent,
    sendingClient: r.sending_client,
    lastEditTime: r.last_edit_time,
    editHistory: r.edit_history,
    isChannelMessage: r.is_channel_message,
    streamId: r.stream_id,
    streamName: r.stream_name,
    dmUserIds: r.dm_user_ids,
  };
}
