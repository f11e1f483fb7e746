import { Injectable } from '@nestjs/common';
import { CacheInvalidation } from '../database/cache-invalidation';
import {
  type ChannelForSend,
  type ChannelForSendRaw,
  MessagesRepository,
  toChannelForSend,
} from './messages.repository';
import { channelAccessFields } from './message-access.policy';
import type { NarrowChannel } from './message-fetch.repository';

/**
 * How long a process trusts its copy of a channel. Every change behind it drops every process's
 * copy once it commits (CacheInvalidation topics `channels` and `user`); the age limit is a backstop.
 */
const CHANNEL_SEND_CACHE_MS = 10_000;
const MAX_CHANNELS = 2_000;
const MAX_TOPICS_PER_CHANNEL = 200;

/** What a send read about one topic of the channel (the topic's name exactly as sent). */
interface TopicState {
  /** Whether a message of the topic existed; false entries only wait for the send's commit. */
  exists: boolean;
  userIds: readonly number[];
  policies: readonly number[];
}

interface ChannelEntry {
  loadedAt: number;
  /** The channel-level columns of the load (its sender and topic columns are not used). */
  row: ChannelForSendRaw;
  /** Active subscribers who are active users → their subscription's is_muted. */
  mutedById: Map<number, boolean>;
  topics: Map<string, TopicState>;
}

type Sender = { id: number; isActive: boolean };

/** Where a send's channel came from in the cache, so that its commit can record the topic. */
interface Origin {
  entry: ChannelEntry;
  state: TopicState;
}

/**
 * Per-process cache of what a channel send reads (MessagesRepository.channelForSendById): the
 * channel's row, its subscribers with their mute and notification settings, and per topic
 * whether it exists and who set a visibility policy for it. A send that finds its channel and an
 * existing topic here costs no read statement: its one statement is the insert.
 *
 * Staleness: the writers of every input publish an invalidation on commit — channel updates,
 * subscriptions and user topics (channels: `channels`, by recipient id or all), user rows
 * (`user`: active state and notification defaults), message deletes and moves (messaging:
 * `channels`, a topic may have gone). A topic is cached as existing only once a message of it was
 * seen committed. Only channels with shared history are cached (a protected channel's topic
 * existence depends on the sender's own messages). A channel narrow of GET /messages reads its
 * channel row and the reader's subscription here too ({@link ChannelSendCache.narrowChannel}).
 */
@Injectable()
export class ChannelSendCache {
  private readonly channels = new Map<number, ChannelEntry>();
  /** Channel names as sent (realm id, NUL, name) → channel id; a rename drops every entry. */
  private readonly names = new Map<string, number>();
  private readonly origins = new WeakMap<ChannelForSend, Origin>();

  constructor(
    private readonly messages: MessagesRepository,
    private readonly invalidation: CacheInvalidation,
  ) {
    invalidation.on('channels', (recipientIds) => {
      if (recipientIds === null) {
        this.channels.clear();
        this.names.clear();
        return;
      }
      const stale = new Set(recipientIds);
      for (const [id, entry] of this.channels) if (stale.has(entry.row.recipient_id)) this.channels.delete(id);
    });
    invalidation.on('user', () => this.channels.clear());
    invalidation.on('realm', () => this.channels.clear());
  }

  /** The channel `id` of the realm as the send of `sender` to `topic` sees it, null when none. */
  async channelForSend(realmId: number, sender: Sender, id: number, topic: string): Promise<ChannelForSend | null> {
    const cached = this.lookup(realmId, sender, id, topic) ?? (await this.withTopicRead(realmId, sender, id, topic));
    if (cached) return cached;
    const epoch = this.invalidation.epoch;
    const row = await this.messages.channelForSendById(realmId, sender.id, id, topic);
    return row ? this.loaded(row, sender, topic, epoch) : null;
  }

  /** The same by the channel's name (as sent, stripped; matched case-insensitively). */
  async channelForSendByName(
    realmId: number,
    sender: Sender,
    name: string,
    topic: string,
  ): Promise<ChannelForSend | null> {
    const key = `${realmId}\u0000${name}`;
    const id = this.names.get(key);
    const cached =
      id === undefined
        ? undefined
        : (this.lookup(realmId, sender, id, topic) ?? (await this.withTopicRead(realmId, sender, id, topic)));
    if (cached) return cached;
    const epoch = this.invalidation.epoch;
    const row = await this.messages.channelForSendByName(realmId, sender.id, name, topic);
    if (!row) return null;
    const channel = this.loaded(row, sender, topic, epoch);
    if (this.channels.has(row.id) && this.invalidation.epoch === epoch) {
      if (this.names.size >= MAX_CHANNELS) this.names.clear();
      this.names.set(key, row.id);
    }
    return channel;
  }

  /**
   * The channel `id` of the realm as a channel narrow of `userId` reads it (GET /messages): its
   * row and whether the user is an active subscriber, from the cache, which a miss fills as a
   * send would (its state for the empty topic). Undefined when the channel is not cached (none in
   * the realm, protected history, a changed channel): the caller reads it itself.
   */
  async narrowChannel(realmId: number, userId: number, id: number): Promise<NarrowChannel | undefined> {
    let entry = this.freshEntry(realmId, id);
    if (!entry) {
      await this.channelForSend(realmId, { id: userId, isActive: true }, id, '');
      entry = this.freshEntry(realmId, id);
    }
    if (!entry) return undefined;
    return {
      ...channelAccessFields(entry.row),
      canSendMessageGroup: entry.row.can_send_message_group,
      subscribed: entry.mutedById.has(userId),
    };
  }

  private freshEntry(realmId: number, id: number): ChannelEntry | undefined {
    const entry = this.channels.get(id);
    if (!entry || entry.row.realm_id !== realmId || Date.now() - entry.loadedAt > CHANNEL_SEND_CACHE_MS)
      return undefined;
    return entry;
  }

  private loaded(row: ChannelForSendRaw, sender: Sender, topic: string, epoch: number): ChannelForSend {
    const channel = toChannelForSend(row, sender.id);
    if (this.invalidation.canCache && this.invalidation.epoch === epoch) this.store(row, topic, channel);
    return channel;
  }

  /**
   * After the commit of a message of `channel`'s topic: the topic exists from now on (unless the
   * entry was dropped meanwhile, e.g. by a delete).
   */
  topicWritten(channel: ChannelForSend): void {
    const origin = this.origins.get(channel);
    if (!origin || this.channels.get(channel.id) !== origin.entry) return;
    origin.state.exists = true;
  }

  private lookup(realmId: number, sender: Sender, id: number, topic: string): ChannelForSend | undefined {
    const entry = this.channels.get(id);
    if (!entry || entry.row.realm_id !== realmId || !sender.isActive) return undefined;
    if (Date.now() - entry.loadedAt > CHANNEL_SEND_CACHE_MS) {
      this.channels.delete(id);
      return undefined;
    }
    const state = entry.topics.get(topic);
    if (!state?.exists) return undefined;
    return this.fromEntry(entry, state, sender);
  }

  /**
   * A send to a topic the cache does not know (or knows only as not written yet) in a channel it
   * holds: reads the topic alone (MessagesRepository.topicForSend: whether it has messages, who set
   * a policy for it) and keeps it, instead of reading the channel and its subscribers again — a new
   * topic in a channel of 10,000 re-read 10,000 subscriptions (~20 ms). Undefined when the channel
   * is not held, or was dropped while the topic was read: the caller then reads everything.
   */
  private async withTopicRead(
    realmId: number,
    sender: Sender,
    id: number,
    topic: string,
  ): Promise<ChannelForSend | undefined> {
    const entry = this.freshEntry(realmId, id);
    if (!entry || !sender.isActive || !this.invalidation.canCache) return undefined;
    const epoch = this.invalidation.epoch;
    const read = await this.messages.topicForSend(entry.row.id, entry.row.recipient_id, topic);
    if (this.channels.get(id) !== entry || this.invalidation.epoch !== epoch) return undefined;
    const state: TopicState = {
      exists: read.topic_exists,
      userIds: Object.freeze(read.topic_policy_user_ids),
      policies: Object.freeze(read.topic_policies),
    };
    if (entry.topics.size >= MAX_TOPICS_PER_CHANNEL) entry.topics.clear();
    entry.topics.set(topic, state);
    return this.fromEntry(entry, state, sender);
  }

  /** The channel as `sender`'s send to the topic of `state` sees it, from the cached entry. */
  private fromEntry(entry: ChannelEntry, state: TopicState, sender: Sender): ChannelForSend {
    const muted = entry.mutedById.get(sender.id);
    const channel = toChannelForSend(
      {
        ...entry.row,
        sender_subscribed: muted !== undefined,
        sender_muted: muted ?? null,
        topic_exists: state.exists,
        topic_exists_for_sender: null,
        topic_policy_user_ids: state.userIds as number[],
        topic_policies: state.policies as number[],
      },
      sender.id,
    );
    this.origins.set(channel, { entry, state });
    return channel;
  }

  private store(row: ChannelForSendRaw, topic: string, channel: ChannelForSend): void {
    if (!row.history_public_to_subscribers) return;
    let entry = this.channels.get(row.id);
    if (!entry || Date.now() - entry.loadedAt > CHANNEL_SEND_CACHE_MS) {
      if (this.channels.size >= MAX_CHANNELS) this.channels.clear();
      const mutedById = new Map<number, boolean>();
      row.subscriber_ids.forEach((userId, i) => mutedById.set(userId, row.subscriber_muted[i] === true));
      // Frozen: every send of the channel shares these arrays.
      Object.freeze(row.subscriber_ids);
      Object.freeze(row.channel_notify_ids);
      entry = { loadedAt: Date.now(), row, mutedById, topics: new Map() };
      this.channels.set(row.id, entry);
    }
    if (entry.topics.size >= MAX_TOPICS_PER_CHANNEL) entry.topics.clear();
    const state: TopicState = {
      exists: row.topic_exists,
      userIds: Object.freeze(row.topic_policy_user_ids),
      policies: Object.freeze(row.topic_policies),
    };
    entry.topics.set(topic, state);
    this.origins.set(channel, { entry, state });
  }
}
