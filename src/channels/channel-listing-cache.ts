import { Injectable } from '@nestjs/common';
import { CacheInvalidation } from '../database/cache-invalidation';
import { PerRealmCache } from '../database/per-realm-cache';
import type { Stream } from './channel.entity';
import { ChannelsRepository, RealmChannels } from './channels.repository';

/**
 * How long a process trusts its copy of a realm's channels. Every change behind it drops every
 * process's copy once it commits (CacheInvalidation topics `channels`, `user` and `realm`); the age
 * limit is a backstop.
 */
const CHANNEL_LISTING_CACHE_MS = 30_000;
const MAX_REALMS = 200;

interface Entry {
  /** Frozen: every request of the realm shares these objects. */
  all: RealmChannels;
  /** The same without archived channels (the counts and subscriber maps are shared). */
  active: RealmChannels;
}

/**
 * Per-process cache of what GET /streams and POST /register read about a realm's channels that
 * does not depend on who asks (ChannelsRepository.realmChannels): every channel's row, its number
 * of active subscribers who are active users and, once a request asked for them, their ids. The
 * caller's own subscription rows are read per request.
 *
 * Staleness: the writers of every input publish an invalidation on commit — channel rows
 * (creation, updates, archiving: `channels`), subscriptions (`channels`), a channel's first message
 * and message deletes and moves (first_message_id: `channels`), user rows (`user`: a deactivated or
 * reactivated user changes the counts) and realms (`realm`). Any of them drops every realm's copy.
 * Inside a transaction the cache is bypassed (the transaction may have changed what it holds).
 */
@Injectable()
export class ChannelListingCache {
  private readonly cache: PerRealmCache<Entry>;

  constructor(
    private readonly channels: ChannelsRepository,
    invalidation: CacheInvalidation,
  ) {
    this.cache = new PerRealmCache(invalidation, CHANNEL_LISTING_CACHE_MS, MAX_REALMS);
    const clear = () => this.cache.clear();
    invalidation.on('channels', clear);
    invalidation.on('user', clear);
    invalidation.on('realm', clear);
  }

  /** The realm's channels (archived ones when asked), their counts and, when asked, subscriber ids. */
  async realmChannels(
    realmId: number,
    opts: { includeArchived: boolean; withSubscribers: boolean },
  ): Promise<RealmChannels> {
    const entry = await this.cache.get(
      realmId,
      async () => this.entryOf(await this.channels.realmChannels(realmId, opts.withSubscribers)),
      (known) => known.all.subscribers !== undefined || !opts.withSubscribers,
    );
    return this.view(entry, opts.includeArchived);
  }

  private view(entry: Entry, includeArchived: boolean): RealmChannels {
    return includeArchived ? entry.all : entry.active;
  }

  private entryOf(loaded: RealmChannels): Entry {
    for (const stream of loaded.streams) Object.freeze(stream);
    Object.freeze(loaded.streams);
    if (loaded.subscribers) for (const ids of loaded.subscribers.values()) Object.freeze(ids);
    const active: Stream[] = loaded.streams.filter((s) => !s.deactivated);
    Object.freeze(active);
    return {
      all: loaded,
      active: { streams: active, counts: loaded.counts, subscribers: loaded.subscribers },
    };
  }
}
