import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import type { Stream } from './channel.entity';
import { ChannelAccessService } from './channel-access.service';
import { channelDict, ChannelDict, ChannelFormatContext, subscriptionDict } from './channel-format';
import {
  canAccessChannelContent,
  canAccessChannelMetadata,
  canAccessPublicChannels,
  canSeeSubscribers,
  ChannelActor,
  hasMetadataAccessViaGroups,
  isRealmAdmin,
  keepsMetadataAfterUnsubscribing,
} from './channels.policy';
import { ChannelNotificationState, ChannelsRepository, RealmChannels } from './channels.repository';
import { ChannelListingCache } from './channel-listing-cache';
import type { Subscription } from './subscription.entity';
import { requestMemo } from '../common/request-scope';
import { JoinedArrays, RawJson } from '../common/http/raw-json';
import { UserTopicsRepository } from './user-topics.repository';
import { ChannelFoldersRepository } from './channel-folders.repository';
import { channelFolderDict } from './channel-folders.service';
import { ChannelErrors } from './channel.errors';
import { UsersService } from '../users/users.service';

export interface GetStreamsOptions {
  includePublic: boolean;
  includeWebPublic: boolean;
  includeSubscribed: boolean;
  excludeArchived: boolean;
  includeAll: boolean;
  includeDefault: boolean;
  includeOwnerSubscribed: boolean;
  includeCanAccessContent: boolean;
  includeAllActive: boolean;
}

export interface SubscriptionState {
  subscriptions: ChannelDict[];
  unsubscribed: ChannelDict[];
  /** The dicts' JSON (as channelDict plus `subscribers` when asked). */
  never_subscribed: RawJson | ChannelDict[];
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The realm's channels as one user sees them, with what their dicts need (see `listing`). */
interface ChannelListing extends RealmChannels {
  /** The user's subscription rows (active or not) to those channels, by recipient id. */
  mine: Map<number, Subscription>;
  ctx: ChannelFormatContext;
}

/**
 * Read endpoints and POST /register state for channels. Each uses a fixed number of queries,
 * whatever the number of channels: all permission filtering happens in memory on bulk-loaded rows.
 */
@Injectable()
export class ChannelQueriesService {
  constructor(
    private readonly channels: ChannelsRepository,
    private readonly access: ChannelAccessService,
    private readonly topics: UserTopicsRepository,
    private readonly folders: ChannelFoldersRepository,
    private readonly users: UsersService,
    private readonly listingCache: ChannelListingCache,
  ) {}

  /** Channel dicts serialised by {@link getStreamsJson}, by the cached row they were made from. */
  private readonly serialised = new WeakMap<Stream, { signature: string; count: number; bytes: Buffer }>();
  /** Listings joined from those dicts, by the cached row list they were selected from. */
  private readonly joined = new JoinedArrays<readonly Stream[]>();

  /**
   * GET /streams/{stream_id}/members (get_subscribers_backend): the channel's active subscribers,
   * for whoever may see the channel and its subscriber list (validate_user_access_to_subscribers).
   */
  async members(auth: AuthContext, streamId: number): Promise<number[]> {
    const actor = await this.access.actorFor(auth.user);
    const { stream, sub } = await this.access.accessById(actor, auth.realm.id, streamId, {
      requireContentAccess: false,
    });
    if (!canSeeSubscribers(actor, stream, sub !== null)) throw ChannelErrors.cannotRetrieveSubscribers();
    return stream.recipientId === null ? [] : this.activeSubscriberIds(stream.recipientId);
  }

  /**
   * GET /users/{user_id}/subscriptions/{stream_id} (get_subscription_backend): is that user
   * subscribed? The caller must be able to see the user and the channel.
   */
  async subscriptionStatus(auth: AuthContext, userId: number, streamId: number): Promise<boolean> {
    const target = await this.users.accessUserById(auth.user, auth.realm, userId, {
      allowDeactivated: false,
      allowBots: true,
      forAdmin: false,
    });
    const actor = await this.access.actorFor(auth.user);
    const { stream } = await this.access.accessById(actor, auth.realm.id, streamId, { requireContentAccess: false });
    return stream.recipientId !== null && (await this.isSubscribed(target.id, stream.recipientId));
  }

  /** GET /streams (zerver/lib/streams.py get_streams_for_user / do_get_streams). */
  async getStreams(auth: AuthContext, o: GetStreamsOptions): Promise<ChannelDict[]> {
    const { selected, ctx } = await this.selectStreams(auth, o);
    const dicts = selected.map((s) => channelDict(s, ctx));
    if (o.includeDefault) {
      const defaults = new Set(await this.channels.defaultChannelIds(auth.realm.id));
      for (const d of dicts) d.is_default = defaults.has(d.stream_id);
    }
    return dicts;
  }

  /**
   * GET /streams' `streams` as the response sends it: the list of {@link getStreams}, each
   * channel's dict serialised once for as long as its row (ChannelListingCache's copy), subscriber
   * count and group-setting values stay the same, then reused by every request.
   */
  async getStreamsJson(auth: AuthContext, o: GetStreamsOptions): Promise<RawJson | ChannelDict[]> {
    if (o.includeDefault) return this.getStreams(auth, o);
    const { selected, ctx, rows } = await this.selectStreams(auth, o);
    return this.joined.array(
      rows,
      selected.map((s) => this.channelJson(s, ctx)),
    );
  }

  private channelJson(stream: Stream, ctx: ChannelFormatContext): Buffer {
    const count = ctx.subscriberCount(stream.id);
    const known = this.serialised.get(stream);
    if (known && ctx.signature !== undefined && known.signature === ctx.signature && known.count === count) {
      return known.bytes;
    }
    const bytes = Buffer.from(JSON.stringify(channelDict(stream, ctx)), 'utf8');
    // Only the cache's rows (frozen) are shared by requests; a fresh row is not seen again.
    if (ctx.signature !== undefined && Object.isFrozen(stream)) {
      this.serialised.set(stream, { signature: ctx.signature, count, bytes });
    }
    return bytes;
  }

  /** The channels GET /streams lists for these options, sorted by name, and their format context. */
  private async selectStreams(
    auth: AuthContext,
    o: GetStreamsOptions,
  ): Promise<{ selected: Stream[]; ctx: ChannelFormatContext; rows: readonly Stream[] }> {
    const user = auth.user;
    if (o.includeAllActive && !isRealmAdmin(user)) throw ChannelErrors.notAuthorizedForQuery();
    const includeAll = o.includeAll || o.includeAllActive;
    const actor = await this.access.actorFor(user);
    const listing = await this.listing(auth, !o.excludeArchived, false);
    const all = listing.streams;
    const ownerSubscribed =
      o.includeOwnerSubscribed && user.isBot && user.botOwnerId !== null
        ? await this.channels.activeRecipientIdsOfUser(user.botOwnerId)
        : new Set<number>();
    const isSub = (s: Stream) => s.recipientId !== null && listing.mine.get(s.recipientId)?.active === true;
    const includePublic = o.includePublic && canAccessPublicChannels(actor);

    let selected: Stream[];
    if (includeAll) {
      selected = all.filter((s) => canAccessChannelMetadata(actor, s, isSub(s)));
    } else {
      const ownerFilter = o.includeOwnerSubscribed && user.isBot;
      selected = all.filter((s) => {
        if (o.includeCanAccessContent) {
          if (canAccessChannelContent(actor, s, isSub(s))) return true;
        } else {
          if (o.includeSubscribed && isSub(s)) return true;
          if (includePublic && !s.inviteOnly) return true;
          if (o.includeWebPublic && s.isWebPublic && !s.inviteOnly && s.historyPublicToSubscribers && !s.deactivated) {
            return true;
          }
        }
        return ownerFilter && s.recipientId !== null && ownerSubscribed.has(s.recipientId);
      });
    }
    return { selected: selected.sort(byName), ctx: listing.ctx, rows: all };
  }

  /** GET /streams/{stream_id}: metadata access suffices; archived channels are not found. */
  async getStream(auth: AuthContext, streamId: number): Promise<ChannelDict> {
    const actor = await this.access.actorFor(auth.user);
    const { stream } = await this.access.accessById(actor, auth.realm.id, streamId, { requireContentAccess: false });
    return channelDict(stream, await this.access.formatContext(auth.realm.id, [stream]));
  }

  /** GET /get_stream_id */
  async getStreamId(auth: AuthContext, name: string): Promise<number> {
    const actor = await this.access.actorFor(auth.user);
    const { stream } = await this.access.accessByName(actor, auth.realm.id, name);
    return stream.id;
  }

  /** GET /users/me/subscriptions: the caller's subscriptions to channels that are not archived. */
  async listSubscriptions(auth: AuthContext, includeSubscribers: boolean): Promise<ChannelDict[]> {
    const { streams, mine, ctx, subscribers } = await this.listing(auth, false, includeSubscribers);
    const out: ChannelDict[] = [];
    for (const s of streams) {
      const sub = s.recipientId === null ? undefined : mine.get(s.recipientId);
      if (!sub?.active) continue;
      const ids = subscribers ? (subscribers.get(s.recipientId!) ?? []) : undefined;
      out.push(subscriptionDict(s, sub, ctx, ids));
    }
    return out.sort(byName);
  }

  /**
   * POST /register `subscriptions`, `unsubscribed` and `never_subscribed`
   * (zerver/lib/subscription_info.py gather_subscriptions_helper).
   */
  async subscriptionState(
    auth: AuthContext,
    opts: { includeSubscribers: boolean; includeArchived: boolean },
  ): Promise<SubscriptionState> {
    const actor = await this.access.actorFor(auth.user);
    const listing = await this.listing(auth, opts.includeArchived, opts.includeSubscribers);
    const { streams: all, mine: subByRecipient, ctx } = listing;
    const subscribersMap = opts.includeSubscribers ? listing.subscribers : undefined;
    const state: SubscriptionState = { subscriptions: [], unsubscribed: [], never_subscribed: [] };
    const never: Array<{ stream: Stream; subscribers: number[] | undefined }> = [];
    for (const stream of all) {
      const sub = stream.recipientId !== null ? subByRecipient.get(stream.recipientId) : undefined;
      const subscribed = sub?.active === true;
      const subscribers =
        subscribersMap && canSeeSubscribers(actor, stream, subscribed)
          ? (subscribersMap.get(stream.recipientId!) ?? [])
          : [];
      if (sub && sub.active) {
        state.subscriptions.push(subscriptionDict(stream, sub, ctx, subscribersMap ? subscribers : undefined));
      } else if (sub) {
        if (keepsMetadataAfterUnsubscribing(actor, stream)) {
          state.unsubscribed.push(subscriptionDict(stream, sub, ctx, subscribersMap ? subscribers : undefined));
        }
      } else {
        const visible =
          (canAccessPublicChannels(actor) || stream.isWebPublic) &&
          (!stream.inviteOnly || isRealmAdmin(actor) || hasMetadataAccessViaGroups(actor, stream));
        if (visible) never.push({ stream, subscribers: subscribersMap ? subscribers : undefined });
      }
    }
    state.subscriptions.sort(byName);
    state.unsubscribed.sort(byName);
    // The channel dicts (plus subscribers) as GET /streams caches their JSON: most of a large
    // realm's channels are ones the user never subscribed to.
    never.sort((a, b) => byName(a.stream, b.stream));
    state.never_subscribed = RawJson.array(
      never.map(({ stream, subscribers }) => {
        const bytes = this.channelJson(stream, ctx);
        if (subscribers === undefined) return bytes;
        const tail = Buffer.from(`,"subscribers":${JSON.stringify(subscribers)}}`, 'utf8');
        return Buffer.concat([bytes.subarray(0, bytes.length - 1), tail]);
      }),
    );
    return state;
  }

  /**
   * The realm's channels for the caller, their subscription rows, subscriber counts (and ids when
   * asked) and format context: the caller's subscriptions and the group values, plus the realm's
   * channels when ChannelListingCache does not hold them, whatever the number of channels and
   * users. Remembered for the rest of the request, so POST /register's `streams` section reuses
   * what its `subscriptions` section loaded.
   */
  private async listing(
    auth: AuthContext,
    includeArchived: boolean,
    withSubscribers: boolean,
  ): Promise<ChannelListing> {
    const memo = requestMemo();
    const key = `channels:listing:${auth.realm.id}:${auth.user.id}:${includeArchived}`;
    const known = memo?.get(key) as ChannelListing | undefined;
    if (known && (known.subscribers || !withSubscribers)) return known;
    const rows = await this.listingCache.realmChannels(auth.realm.id, { includeArchived, withSubscribers });
    const mine = await this.channels.channelSubscriptionsOfUser(auth.realm.id, auth.user.id);
    const ctx = await this.access.formatContext(auth.realm.id, rows.streams, rows.counts);
    const listing: ChannelListing = { ...rows, mine, ctx };
    memo?.set(key, listing);
    return listing;
  }

  /**
   * POST /register `streams`: every channel the user can see (include_all + web-public), each
   * dict's JSON as GET /streams caches it.
   */
  async registerStreams(auth: AuthContext, includeArchived: boolean): Promise<RawJson | ChannelDict[]> {
    return this.getStreamsJson(auth, {
      includePublic: true,
      includeWebPublic: true,
      includeSubscribed: true,
      excludeArchived: !includeArchived,
      includeAll: true,
      includeDefault: false,
      includeOwnerSubscribed: false,
      includeCanAccessContent: false,
      includeAllActive: false,
    });
  }

  /** POST /register `realm_default_streams` (guests see none). */
  async defaultStreamIds(auth: AuthContext): Promise<number[]> {
    if (!canAccessPublicChannels(auth.user)) return [];
    return this.channels.defaultChannelIds(auth.realm.id);
  }

  /** POST /register `user_topics`. */
  async userTopics(auth: AuthContext): Promise<Array<Record<string, unknown>>> {
    const rows = await this.topics.listForUser(auth.user.id);
    return rows.map((r) => ({
      stream_id: r.streamId,
      topic_name: r.topicName,
      last_updated: Math.floor(r.lastUpdated.getTime() / 1000),
      visibility_policy: r.visibilityPolicy,
    }));
  }

  /**
   * POST /register legacy `muted_topics` (zerver/lib/user_topics.py get_topic_mutes):
   * [channel name, topic, muted at] for each muted topic.
   */
  async mutedTopics(auth: AuthContext): Promise<Array<[string, string, number]>> {
    const rows = await this.topics.mutedTopicsForUser(auth.user.id);
    return rows.map((r) => [r.streamName, r.topicName, Math.floor(r.lastUpdated.getTime() / 1000)]);
  }

  /** POST /register `channel_folders` (archived ones included, as Zulip). */
  async channelFolders(auth: AuthContext): Promise<Array<Record<string, unknown>>> {
    return (await this.folders.listInRealm(auth.realm.id, true)).map(channelFolderDict);
  }

  /** The actor used by these checks (for other modules that already hold one). */
  actorFor(user: { id: number; role: number }): Promise<ChannelActor> {
    return this.access.actorFor(user);
  }

  /** Active subscribers (active users) of a channel recipient, sorted. */
  async activeSubscriberIds(recipientId: number): Promise<number[]> {
    return (await this.channels.subscriberIds([recipientId])).get(recipientId) ?? [];
  }

  /** Active subscribers (active users) of several channel recipients, sorted. */
  activeSubscriberIdsByRecipient(recipientIds: number[]): Promise<Map<number, number[]>> {
    return this.channels.subscriberIds([...new Set(recipientIds)]);
  }

  /** A channel of the realm by id, archived or not (where a notice about channels is posted). */
  channelBrief(
    realmId: number,
    channelId: number,
  ): Promise<{ id: number; name: string; recipientId: number; deactivated: boolean } | null> {
    return this.channels.channelBrief(realmId, channelId);
  }

  /** Ids of the channels the user is actively subscribed to and has muted (unread state). */
  mutedChannelIds(userId: number): Promise<number[]> {
    return this.channels.mutedChannelIds(userId);
  }

  /** The user's non-default topic visibility policies, topics lower-cased (unread state). */
  topicPoliciesByLowerTopic(
    userId: number,
  ): Promise<Array<{ streamId: number; topic: string; visibilityPolicy: number }>> {
    return this.topics.policiesByLowerTopic(userId);
  }

  /** Is the user actively subscribed to the channel recipient? */
  async isSubscribed(userId: number, recipientId: number): Promise<boolean> {
    return (await this.channels.activeSubscription(userId, recipientId)) !== null;
  }

  /** Each user's subscription notification settings for the channel and visibility policy for the topic. */
  notificationStateOf(
    userIds: number[],
    channel: { recipientId: number; streamId: number; topic: string },
  ): Promise<Map<number, ChannelNotificationState>> {
    return this.channels.notificationStateOf(userIds, channel);
  }
}
