import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { dbIds, isDbId } from '../database/ids';
import { namedQuery } from '../database/named-query';
import { CacheInvalidation } from '../database/cache-invalidation';
import { currentManager } from '../database/transaction';
import { DefaultStream, Recipient, RecipientType, Stream } from './channel.entity';
import { Subscription } from './subscription.entity';
import { usersView } from '../users/users.sql';

export type { RealmUserRow } from '../users/user-directory.service';

/** A user's notification state in one channel and topic. */
export interface ChannelNotificationState {
  subscription: {
    isMuted: boolean;
    pushNotifications: boolean | null;
    emailNotifications: boolean | null;
    wildcardMentionsNotify: boolean | null;
  } | null;
  topicVisibility: number;
}

export type NewChannelValues = Omit<
  Stream,
  'id' | 'recipientId' | 'dateCreated' | 'deactivated' | 'firstMessageId' | 'isRecentlyActive'
>;

/** Settable subscription columns of POST /users/me/subscriptions/properties. */
export type SubscriptionColumn =
  | 'is_muted'
  | 'color'
  | 'pin_to_top'
  | 'desktop_notifications'
  | 'audible_notifications'
  | 'push_notifications'
  | 'email_notifications'
  | 'wildcard_mentions_notify';

/** The subscription columns a channel send reads (mutes, notification overrides). */
const SEND_PATH_SUBSCRIPTION_COLUMNS: ReadonlySet<SubscriptionColumn> = new Set<SubscriptionColumn>([
  'is_muted',
  'push_notifications',
  'email_notifications',
]);

/**
 * Rows of a raw query. TypeORM answers UPDATE and DELETE statements with `[rows, rowCount]`
 * (INSERT and SELECT with the rows), so RETURNING results need unwrapping.
 */
export function returnedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** What {@link ChannelsRepository.realmChannels} returns: the same for every user of the realm. */
export interface RealmChannels {
  /** The realm's channels (archived ones included), by id. */
  streams: Stream[];
  /** Active subscribers who are active users, by recipient id. */
  counts: Map<number, number>;
  /** Their ids, sorted, by recipient id (when asked). */
  subscribers?: Map<number, number[]>;
}

interface RealmChannelRow {
  id: number;
  realm_id: number;
  name: string;
  date_created_ms: number;
  creator_id: number | null;
  deactivated: boolean;
  description: string;
  rendered_description: string;
  recipient_id: number | null;
  folder_id: number | null;
  invite_only: boolean;
  history_public_to_subscribers: boolean;
  is_web_public: boolean;
  message_retention_days: number | null;
  first_message_id: number | null;
  is_recently_active: boolean;
  topics_policy: number;
  can_add_subscribers_group: number;
  can_administer_channel_group: number;
  can_create_topic_group: number;
  can_delete_any_message_group: number;
  can_delete_own_message_group: number;
  can_move_messages_out_of_channel_group: number;
  can_move_messages_within_channel_group: number;
  can_remove_subscribers_group: number;
  can_resolve_topics_group: number;
  can_send_message_group: number;
  can_subscribe_group: number;
  subscriber_count: number;
  subscriber_ids: number[] | null;
}

interface ChannelSubscriptionRow {
  recipient_id: number;
  sub_id: number;
  sub_active: boolean;
  sub_is_muted: boolean;
  sub_color: string;
  sub_pin_to_top: boolean;
  sub_desktop_notifications: boolean | null;
  sub_audible_notifications: boolean | null;
  sub_push_notifications: boolean | null;
  sub_email_notifications: boolean | null;
  sub_wildcard_mentions_notify: boolean | null;
}

/**
 * The realm's channels (archived ones included) with their number of active subscribers who are
 * active users, and, in the second form, those subscribers' ids (sorted). Counts group the
 * realm's active subscriptions of active users with hash joins (one pass over them, not a probe
 * per subscription). Nothing in it depends on who asks: ChannelListingCache keeps it per realm.
 */
const REALM_CHANNELS_SQL: readonly string[] = [false, true].map(
  (
    withSubscribers,
  ) => `SELECT s.id, s.realm_id, s.name, (extract(epoch FROM s.date_created) * 1000)::float8 AS date_created_ms,
         s.creator_id, s.deactivated, s.description, s.rendered_description, s.recipient_id, s.folder_id, s.invite_only,
         s.history_public_to_subscribers, s.is_web_public, s.message_retention_days, s.first_message_id,
         s.is_recently_active, s.topics_policy, s.can_add_subscribers_group, s.can_administer_channel_group,
         s.can_create_topic_group, s.can_delete_any_message_group, s.can_delete_own_message_group,
         s.can_move_messages_out_of_channel_group, s.can_move_messages_within_channel_group,
         s.can_remove_subscribers_group, s.can_resolve_topics_group, s.can_send_message_group, s.can_subscribe_group,
         coalesce(c.n, 0) AS subscriber_count, ${withSubscribers ? 'c.ids' : 'NULL::int[]'} AS subscriber_ids
    FROM stream s
    LEFT JOIN (
      SELECT sub.recipient_id, count(*)::int AS n
             ${withSubscribers ? ', array_agg(sub.user_profile_id ORDER BY sub.user_profile_id) AS ids' : ''}
        FROM subscription sub
        JOIN stream cs ON cs.recipient_id = sub.recipient_id AND cs.realm_id = $1
        JOIN ${usersView} u ON u.id = sub.user_profile_id
       WHERE sub.active AND u.is_active
       GROUP BY sub.recipient_id) c ON c.recipient_id = s.recipient_id
   WHERE s.realm_id = $1
   ORDER BY s.id`,
);

/** A user's subscription rows (active or not) to the realm's channels. */
const USER_CHANNEL_SUBSCRIPTIONS_SQL = `SELECT me.recipient_id, me.id AS sub_id, me.active AS sub_active, me.is_muted AS sub_is_muted,
         me.color AS sub_color, me.pin_to_top AS sub_pin_to_top, me.desktop_notifications AS sub_desktop_notifications,
         me.audible_notifications AS sub_audible_notifications, me.push_notifications AS sub_push_notifications,
         me.email_notifications AS sub_email_notifications, me.wildcard_mentions_notify AS sub_wildcard_mentions_notify
    FROM subscription me JOIN stream s ON s.recipient_id = me.recipient_id
   WHERE me.user_profile_id = $2 AND s.realm_id = $1`;

function streamOfRow(r: RealmChannelRow): Stream {
  return {
    id: r.id,
    realmId: r.realm_id,
    name: r.name,
    dateCreated: new Date(r.date_created_ms),
    creatorId: r.creator_id,
    deactivated: r.deactivated,
    description: r.description,
    renderedDescription: r.rendered_description,
    recipientId: r.recipient_id,
    folderId: r.folder_id,
    inviteOnly: r.invite_only,
    historyPublicToSubscribers: r.history_public_to_subscribers,
    isWebPublic: r.is_web_public,
    messageRetentionDays: r.message_retention_days,
    firstMessageId: r.first_message_id,
    isRecentlyActive: r.is_recently_active,
    topicsPolicy: r.topics_policy,
    canAddSubscribersGroup: r.can_add_subscribers_group,
    canAdministerChannelGroup: r.can_administer_channel_group,
    canCreateTopicGroup: r.can_create_topic_group,
    canDeleteAnyMessageGroup: r.can_delete_any_message_group,
    canDeleteOwnMessageGroup: r.can_delete_own_message_group,
    canMoveMessagesOutOfChannelGroup: r.can_move_messages_out_of_channel_group,
    canMoveMessagesWithinChannelGroup: r.can_move_messages_within_channel_group,
    canRemoveSubscribersGroup: r.can_remove_subscribers_group,
    canResolveTopicsGroup: r.can_resolve_topics_group,
    canSendMessageGroup: r.can_send_message_group,
    canSubscribeGroup: r.can_subscribe_group,
  };
}

function subscriptionOfRow(r: ChannelSubscriptionRow, userId: number): Subscription {
  return {
    id: r.sub_id,
    userProfileId: userId,
    recipientId: r.recipient_id,
    active: r.sub_active,
    isMuted: r.sub_is_muted,
    color: r.sub_color,
    pinToTop: r.sub_pin_to_top,
    desktopNotifications: r.sub_desktop_notifications,
    audibleNotifications: r.sub_audible_notifications,
    pushNotifications: r.sub_push_notifications,
    emailNotifications: r.sub_email_notifications,
    wildcardMentionsNotify: r.sub_wildcard_mentions_notify,
  };
}

/** Channels, their recipients, subscriptions and default channels. */
@Injectable()
export class ChannelsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly invalidation: CacheInvalidation,
  ) {}

  /**
   * Every process's caches of channels (the send path's ChannelSendCache, the listings'
   * ChannelListingCache) drop the channels of `recipientIds` (null: all) when the current change
   * commits.
   */
  private channelsChanged(recipientIds: readonly number[] | null): Promise<void> {
    return this.invalidation.publishOnCommit('channels', recipientIds === null ? null : [...new Set(recipientIds)]);
  }

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /**
   * For several users at once, the (user, peer) pairs actively subscribed to the same channel, the
   * user among `userIds` and the peer among `among` (can_access_all_users_group). One query.
   */
  async channelPeerPairs(
    userIds: readonly number[],
    among: readonly number[],
    excluded: ReadonlyArray<{ userId: number; recipientId: number }> = [],
  ): Promise<Array<{ userId: number; peerId: number }>> {
    if (userIds.length === 0 || among.length === 0) return [];
    if (excluded.length > 0) {
      // The pairs as they were without the `excluded` subscription rows (a subscribe's new rows).
      const rows = await this.em.query<Array<{ user_id: number; peer_id: number }>>(
        `WITH x(user_id, recipient_id) AS (SELECT * FROM unnest($3::int[], $4::int[]))
         SELECT DISTINCT mine.user_profile_id AS user_id, other.user_profile_id AS peer_id
           FROM subscription mine JOIN subscription other ON other.recipient_id = mine.recipient_id
          WHERE mine.user_profile_id = ANY($1::int[]) AND mine.active AND other.active
            AND other.user_profile_id = ANY($2::int[])
            AND NOT EXISTS (SELECT 1 FROM x WHERE x.recipient_id = mine.recipient_id
                              AND x.user_id IN (mine.user_profile_id, other.user_profile_id))`,
        [[...userIds], [...among], excluded.map((e) => e.userId), excluded.map((e) => e.recipientId)],
      );
      return rows.map((r) => ({ userId: r.user_id, peerId: r.peer_id }));
    }
    const rows = await this.em.query<Array<{ user_id: number; peer_id: number }>>(
      `SELECT DISTINCT mine.user_profile_id AS user_id, other.user_profile_id AS peer_id
         FROM subscription mine JOIN subscription other ON other.recipient_id = mine.recipient_id
        WHERE mine.user_profile_id = ANY($1::int[]) AND mine.active AND other.active
          AND other.user_profile_id = ANY($2::int[])`,
      [[...userIds], [...among]],
    );
    return rows.map((r) => ({ userId: r.user_id, peerId: r.peer_id }));
  }

  // ---- channels -------------------------------------------------------------------------

  findByIdInRealm(realmId: number, id: number): Promise<Stream | null> {
    if (!isDbId(id)) return Promise.resolve(null);
    return this.em.findOne(Stream, { where: { realmId, id } });
  }

  /** Case-insensitive name lookup (archived channels included). */
  findByNameInRealm(realmId: number, name: string): Promise<Stream | null> {
    // PostgreSQL text cannot hold NUL: no channel has such a name, and it must not reach SQL.
    if (name.includes('\0')) return Promise.resolve(null);
    return this.em
      .createQueryBuilder(Stream, 's')
      .where('s.realm_id = :realmId AND upper(s.name) = upper(:name)', { realmId, name })
      .getOne();
  }

  async findByNamesInRealm(realmId: number, allNames: string[]): Promise<Stream[]> {
    const names = allNames.filter((n) => !n.includes('\0'));
    if (names.length === 0) return [];
    return this.em
      .createQueryBuilder(Stream, 's')
      .where('s.realm_id = :realmId AND upper(s.name) IN (SELECT upper(n) FROM unnest(:names::text[]) n)', {
        realmId,
        names,
      })
      .getMany();
  }

  async findByIdsInRealm(realmId: number, ids: number[]): Promise<Stream[]> {
    const valid = dbIds(ids);
    if (valid.length === 0) return [];
    return this.em.find(Stream, { where: { realmId, id: In(valid) } });
  }

  async findByRecipientIds(realmId: number, recipientIds: number[]): Promise<Stream[]> {
    if (recipientIds.length === 0) return [];
    return this.em.find(Stream, { where: { realmId, recipientId: In(recipientIds) } });
  }

  /**
   * The realm's channels (by id, archived ones included) with their number of active subscribers
   * who are active users, plus, when asked, those subscribers' ids (sorted): one statement
   * whatever the number of channels and users. Rows are plain objects, not TypeORM entities
   * (GET /streams and POST /register read thousands); ChannelListingCache keeps them per realm.
   */
  async realmChannels(realmId: number, withSubscribers: boolean): Promise<RealmChannels> {
    // Prepared: planning this statement costs PostgreSQL about as much as a third of running it.
    const rows = await namedQuery<RealmChannelRow>(
      this.em,
      `realm_channels_${withSubscribers ? 1 : 0}`,
      REALM_CHANNELS_SQL[withSubscribers ? 1 : 0],
      [realmId],
    );
    const streams: Stream[] = new Array<Stream>(rows.length);
    const counts = new Map<number, number>();
    const subscribers = withSubscribers ? new Map<number, number[]>() : undefined;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      streams[i] = streamOfRow(r);
      if (r.recipient_id === null) continue;
      counts.set(r.recipient_id, r.subscriber_count);
      if (subscribers) subscribers.set(r.recipient_id, r.subscriber_ids ?? []);
    }
    return { streams, counts, subscribers };
  }

  /** The user's subscription rows (active or not) to the realm's channels, by recipient id. */
  async channelSubscriptionsOfUser(realmId: number, userId: number): Promise<Map<number, Subscription>> {
    const rows = await namedQuery<ChannelSubscriptionRow>(
      this.em,
      'user_channel_subscriptions',
      USER_CHANNEL_SUBSCRIPTIONS_SQL,
      [realmId, userId],
    );
    const mine = new Map<number, Subscription>();
    for (const r of rows) mine.set(r.recipient_id, subscriptionOfRow(r, userId));
    return mine;
  }

  /**
   * Creates a channel and its recipient unless a channel of that name (case-insensitively)
   * exists — also one created concurrently by another transaction: the unique index decides,
   * and the loser gets null instead of an error.
   */
  async insertChannelIfAbsent(values: NewChannelValues): Promise<Stream | null> {
    const columns: Array<[string, unknown]> = [
      ['realm_id', values.realmId],
      ['name', values.name],
      ['creator_id', values.creatorId],
      ['description', values.description],
      ['rendered_description', values.renderedDescription],
      ['folder_id', values.folderId],
      ['invite_only', values.inviteOnly],
      ['history_public_to_subscribers', values.historyPublicToSubscribers],
      ['is_web_public', values.isWebPublic],
      ['message_retention_days', values.messageRetentionDays],
      ['topics_policy', values.topicsPolicy],
      ['can_add_subscribers_group', values.canAddSubscribersGroup],
      ['can_administer_channel_group', values.canAdministerChannelGroup],
      ['can_create_topic_group', values.canCreateTopicGroup],
      ['can_delete_any_message_group', values.canDeleteAnyMessageGroup],
      ['can_delete_own_message_group', values.canDeleteOwnMessageGroup],
      ['can_move_messages_out_of_channel_group', values.canMoveMessagesOutOfChannelGroup],
      ['can_move_messages_within_channel_group', values.canMoveMessagesWithinChannelGroup],
      ['can_remove_subscribers_group', values.canRemoveSubscribersGroup],
      ['can_resolve_topics_group', values.canResolveTopicsGroup],
      ['can_send_message_group', values.canSendMessageGroup],
      ['can_subscribe_group', values.canSubscribeGroup],
    ];
    const rows = await this.em.query<Array<{ id: number }>>(
      `INSERT INTO stream (${columns.map(([c]) => `"${c}"`).join(', ')})
       VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (realm_id, upper(name)) DO NOTHING
       RETURNING id`,
      columns.map(([, v]) => v),
    );
    if (rows.length === 0) return null;
    const id = rows[0].id;
    const recipient = await this.em.insert(Recipient, { type: RecipientType.STREAM, typeId: id });
    const recipientId = (recipient.identifiers[0] as { id: number }).id;
    await this.em.update(Stream, { id }, { recipientId });
    // Channel listings (ChannelListingCache) show the new channel once it commits.
    await this.channelsChanged([recipientId]);
    return this.em.findOneOrFail(Stream, { where: { id } });
  }

  async updateChannel(id: number, values: Partial<Stream>): Promise<void> {
    await this.em.update(Stream, { id }, values);
    await this.channelsChanged(null);
  }

  /** Locks the channel row for the rest of the transaction (concurrent updates serialise). */
  async lockChannel(id: number): Promise<Stream | null> {
    return this.em.createQueryBuilder(Stream, 's').setLock('pessimistic_write').where('s.id = :id', { id }).getOne();
  }

  // ---- default channels -----------------------------------------------------------------

  async defaultChannelIds(realmId: number): Promise<number[]> {
    const rows = await this.em.find(DefaultStream, { where: { realmId }, order: { streamId: 'ASC' } });
    return rows.map((r) => r.streamId);
  }

  /** Makes the channels default ones; returns how many were not already. */
  async addDefaultChannels(realmId: number, streamIds: number[]): Promise<number> {
    if (streamIds.length === 0) return 0;
    const rows = await this.em.query<unknown[]>(
      `INSERT INTO default_stream (realm_id, stream_id) SELECT $1, unnest($2::int[])
       ON CONFLICT (realm_id, stream_id) DO NOTHING RETURNING id`,
      [realmId, streamIds],
    );
    return rows.length;
  }

  /** Removes a default channel; true when it was one. */
  async removeDefaultChannel(realmId: number, streamId: number): Promise<boolean> {
    const result: unknown = await this.em.query(
      `DELETE FROM default_stream WHERE realm_id = $1 AND stream_id = $2 RETURNING id`,
      [realmId, streamId],
    );
    return returnedRows(result).length > 0;
  }

  // ---- subscriptions --------------------------------------------------------------------

  async activeSubscription(userId: number, recipientId: number | null): Promise<Subscription | null> {
    if (recipientId === null) return null;
    return this.em.findOne(Subscription, { where: { userProfileId: userId, recipientId, active: true } });
  }

  /** Recipient ids of `userId`'s active subscriptions (optionally among `recipientIds`). */
  async activeRecipientIdsOfUser(userId: number, recipientIds?: number[]): Promise<Set<number>> {
    if (recipientIds && recipientIds.length === 0) return new Set();
    const rows = await this.em.query<Array<{ recipient_id: number }>>(
      recipientIds
        ? `SELECT recipient_id FROM subscription WHERE user_profile_id = $1 AND active AND recipient_id = ANY($2)`
        : `SELECT recipient_id FROM subscription WHERE user_profile_id = $1 AND active`,
      recipientIds ? [userId, recipientIds] : [userId],
    );
    return new Set(rows.map((r) => r.recipient_id));
  }

  /** Active subscription rows of several users to several recipients. */
  async activeSubscriptionPairs(
    userIds: number[],
    recipientIds: number[],
  ): Promise<Array<{ userId: number; recipientId: number }>> {
    if (userIds.length === 0 || recipientIds.length === 0) return [];
    const rows = await this.em.query<Array<{ user_profile_id: number; recipient_id: number }>>(
      `SELECT user_profile_id, recipient_id FROM subscription
        WHERE user_profile_id = ANY($1) AND recipient_id = ANY($2) AND active`,
      [userIds, recipientIds],
    );
    return rows.map((r) => ({ userId: r.user_profile_id, recipientId: r.recipient_id }));
  }

  /** Every subscription row (active or not) of a user to channels of the realm. */
  async subscriptionsOfUser(userId: number, activeOnly: boolean): Promise<Subscription[]> {
    return this.em.find(Subscription, {
      where: activeOnly ? { userProfileId: userId, active: true } : { userProfileId: userId },
      order: { recipientId: 'ASC' },
    });
  }

  /** Active subscription rows of several users to several recipients. */
  async activeSubscriptionRows(userIds: number[], recipientIds: number[]): Promise<Subscription[]> {
    if (userIds.length === 0 || recipientIds.length === 0) return [];
    return this.em.find(Subscription, {
      where: { userProfileId: In(userIds), recipientId: In(recipientIds), active: true },
    });
  }

  /**
   * Channels (not archived) whose group settings point at one of `groupIds` (objections to
   * deactivating a group), settings in column order. Every `can_*_group` column counts, read
   * from the schema, so a new channel group setting needs no change here.
   */
  async activeChannelsUsingSettingValues(
    realmId: number,
    groupIds: number[],
  ): Promise<Array<{ channelId: number; settings: string[] }>> {
    if (groupIds.length === 0) return [];
    const table = await this.em.query<Array<{ present: boolean }>>(
      `SELECT to_regclass('stream') IS NOT NULL AS present`,
    );
    if (!table[0]?.present) return [];
    const columns = await this.em.query<Array<{ column_name: string }>>(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'stream' ORDER BY ordinal_position`,
    );
    const names = columns.map((c) => c.column_name);
    const settings = names.filter((n) => /^can_[a-z_]+_group$/.test(n));
    if (settings.length === 0 || !names.includes('realm_id')) return [];
    const archived = names.includes('deactivated')
      ? 'deactivated'
      : names.includes('is_archived')
        ? 'is_archived'
        : null;
    const select = settings.map((s) => `"${s}"`).join(', ');
    const where = settings.map((s) => `"${s}" = ANY($2::int[])`).join(' OR ');
    const rows = await this.em.query<Array<Record<string, number | null>>>(
      `SELECT id, ${select} FROM stream WHERE realm_id = $1 ${archived ? `AND NOT "${archived}"` : ''} AND (${where}) ORDER BY id`,
      [realmId, groupIds],
    );
    return rows.map((r) => ({
      channelId: Number(r.id),
      settings: settings.filter((s) => r[s] !== null && groupIds.includes(Number(r[s]))),
    }));
  }
  /** A channel of the realm by id, archived or not: what a notice posted to it needs. */
  async channelBrief(
    realmId: number,
    channelId: number,
  ): Promise<{ id: number; name: string; recipientId: number; deactivated: boolean } | null> {
    const rows = await this.em.query<Array<{ id: number; name: string; recipient_id: number; deactivated: boolean }>>(
      `SELECT id, name, recipient_id, deactivated FROM stream WHERE id = $1 AND realm_id = $2`,
      [channelId, realmId],
    );
    const r = rows[0];
    return r ? { id: r.id, name: r.name, recipientId: r.recipient_id, deactivated: r.deactivated } : null;
  }

  /** Ids of the channels the user is actively subscribed to and has muted. */
  async mutedChannelIds(userId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ stream_id: number }>>(
      `SELECT s.id AS stream_id FROM subscription sub JOIN stream s ON s.recipient_id = sub.recipient_id
        WHERE sub.user_profile_id = $1 AND sub.active AND sub.is_muted`,
      [userId],
    );
    return rows.map((r) => r.stream_id);
  }

  /** Active subscribers who are active users, per recipient, sorted. */
  async subscriberIds(recipientIds: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    for (const id of recipientIds) out.set(id, []);
    if (recipientIds.length === 0) return out;
    const rows = await this.em.query<Array<{ recipient_id: number; user_profile_id: number }>>(
      `SELECT s.recipient_id, s.user_profile_id
         FROM subscription s JOIN ${usersView} u ON u.id = s.user_profile_id
        WHERE s.recipient_id = ANY($1) AND s.active AND u.is_active
        ORDER BY s.recipient_id, s.user_profile_id`,
      [recipientIds],
    );
    for (const r of rows) out.get(r.recipient_id)?.push(r.user_profile_id);
    return out;
  }

  /** Number of active subscribers who are active users, per recipient. */
  async subscriberCounts(recipientIds: number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (recipientIds.length === 0) return out;
    const rows = await this.em.query<Array<{ recipient_id: number; n: number }>>(
      `SELECT s.recipient_id, count(*)::int AS n
         FROM subscription s JOIN ${usersView} u ON u.id = s.user_profile_id
        WHERE s.recipient_id = ANY($1) AND s.active AND u.is_active
        GROUP BY s.recipient_id`,
      [recipientIds],
    );
    for (const r of rows) out.set(r.recipient_id, r.n);
    return out;
  }

  /** Colors of the users' existing channel subscriptions (for picking new ones). */
  async usedColors(userIds: number[]): Promise<Map<number, Set<string>>> {
    const out = new Map<number, Set<string>>();
    if (userIds.length === 0) return out;
    const rows = await this.em.query<Array<{ user_profile_id: number; color: string }>>(
      `SELECT s.user_profile_id, s.color FROM subscription s JOIN recipient r ON r.id = s.recipient_id
        WHERE s.user_profile_id = ANY($1) AND r.type = ${RecipientType.STREAM}`,
      [userIds],
    );
    for (const r of rows) {
      let set = out.get(r.user_profile_id);
      if (!set) out.set(r.user_profile_id, (set = new Set()));
      set.add(r.color);
    }
    return out;
  }

  /**
   * Subscribes each (user, recipient) pair: inserts new rows, re-activates inactive ones (keeping
   * their settings), leaves active ones alone. Returns the pairs that were not active before —
   * decided by the unique index, so concurrent identical requests subscribe exactly once.
   */
  async subscribe(
    rows: Array<{ userId: number; recipientId: number; color: string }>,
  ): Promise<Array<{ userId: number; recipientId: number }>> {
    if (rows.length === 0) return [];
    const result = await this.em.query<Array<{ user_profile_id: number; recipient_id: number }>>(
      `INSERT INTO subscription (user_profile_id, recipient_id, color, active)
       SELECT u, r, c, true FROM unnest($1::int[], $2::int[], $3::text[]) AS t(u, r, c)
       ON CONFLICT (user_profile_id, recipient_id) DO UPDATE SET active = true
         WHERE subscription.active = false
       RETURNING user_profile_id, recipient_id`,
      [rows.map((r) => r.userId), rows.map((r) => r.recipientId), rows.map((r) => r.color)],
    );
    if (result.length > 0) await this.channelsChanged(result.map((r) => r.recipient_id));
    return result.map((r) => ({ userId: r.user_profile_id, recipientId: r.recipient_id }));
  }

  /** Deactivates the active subscriptions among the pairs; returns those it deactivated. */
  async unsubscribe(
    userIds: number[],
    recipientIds: number[],
  ): Promise<Array<{ userId: number; recipientId: number }>> {
    if (userIds.length === 0 || recipientIds.length === 0) return [];
    const result = returnedRows<{ user_profile_id: number; recipient_id: number }>(
      await this.em.query(
        `UPDATE subscription SET active = false
          WHERE user_profile_id = ANY($1) AND recipient_id = ANY($2) AND active
          RETURNING user_profile_id, recipient_id`,
        [userIds, recipientIds],
      ),
    );
    if (result.length > 0) await this.channelsChanged(result.map((r) => r.recipient_id));
    return result.map((r) => ({ userId: r.user_profile_id, recipientId: r.recipient_id }));
  }

  async setSubscriptionProperty(
    subscriptionId: number,
    column: SubscriptionColumn,
    value: boolean | string,
  ): Promise<void> {
    await this.em.query(`UPDATE subscription SET "${column}" = $2 WHERE id = $1`, [subscriptionId, value]);
    if (SEND_PATH_SUBSCRIPTION_COLUMNS.has(column)) await this.channelsChanged(null);
  }

  // ---- users and groups -----------------------------------------------------------------

  /** Active users of the realm (event audiences). */

  /**
   * For each of `userIds`: their active subscription's notification settings for the channel, and
   * their visibility policy for the topic (push and email notification decisions).
   */
  async notificationStateOf(
    userIds: number[],
    channel: { recipientId: number; streamId: number; topic: string },
  ): Promise<Map<number, ChannelNotificationState>> {
    const out = new Map<number, ChannelNotificationState>();
    if (userIds.length === 0) return out;
    const rows = await this.em.query<
      Array<{
        id: number;
        is_muted: boolean | null;
        push_notifications: boolean | null;
        email_notifications: boolean | null;
        sub_wildcard_mentions_notify: boolean | null;
        visibility_policy: number | null;
      }>
    >(
      `SELECT u.id, s.is_muted, s.push_notifications, s.email_notifications, s.wildcard_mentions_notify AS sub_wildcard_mentions_notify,
              ut.visibility_policy
         FROM unnest($1::int[]) AS u(id)
         LEFT JOIN subscription s ON s.user_profile_id = u.id AND s.recipient_id = $2 AND s.active
         LEFT JOIN user_topic ut ON ut.user_profile_id = u.id AND ut.stream_id = $3 AND lower(ut.topic_name) = lower($4)`,
      [userIds, channel.recipientId, channel.streamId, channel.topic],
    );
    for (const r of rows) {
      out.set(r.id, {
        subscription:
          r.is_muted !== null
            ? {
                isMuted: r.is_muted,
                pushNotifications: r.push_notifications,
                emailNotifications: r.email_notifications,
                wildcardMentionsNotify: r.sub_wildcard_mentions_notify,
              }
            : null,
        topicVisibility: r.visibility_policy ?? 0,
      });
    }
    return out;
  }
}
