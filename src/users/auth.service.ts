import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { CacheInvalidation } from '../database/cache-invalidation';
import { RealmService } from '../realm/realm.service';
import { ApiKeyCodec, isWellFormedApiKey } from './api-keys';
import { UserProfile } from './user.entity';
import { UsersRepository } from './users.repository';

/**
 * How long a cached row may serve requests. Every write to a user row goes through
 * UsersRepository.update followed by {@link AuthService.userChanged}, which reaches every process,
 * so this only bounds the damage of a missed NOTIFY. It exceeds the long-poll heartbeat, so a
 * client's GET /events (and its other requests) cost no query; Zulip keeps the same
 * key → user cache for a week, flushed on save.
 */
const AUTH_CACHE_MS = 15 * 60_000;
const AUTH_CACHE_MAX = 50_000;
/** Keys that matched no user: remembered briefly so a stream of bad keys costs no queries. */
const BAD_KEY_CACHE_MS = 30_000;
const BAD_KEY_CACHE_MAX = 10_000;

/**
 * API-key authentication with an in-process cache (key → user row, as Zulip's
 * `user_profile_by_api_key` cache), so the hot path costs no database round trip and no HMAC: the
 * digest is computed on a miss only (~20 µs of each request, issue 15). The process holds the keys
 * of its recent callers in memory, as it holds each request's own credentials. Changes to a user call {@link invalidateUser}, which reaches every
 * process's cache through {@link CacheInvalidation} (the CLI's changes too).
 */
@Injectable()
export class AuthService {
  readonly codec: ApiKeyCodec;
  private readonly cache = new Map<string, { user: UserProfile; at: number }>();
  /** Well-formed keys that matched no user (oldest first; bounded). */
  private readonly badKeys = new Map<string, number>();

  constructor(
    private readonly users: UsersRepository,
    private readonly realms: RealmService,
    private readonly invalidation: CacheInvalidation,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.codec = new ApiKeyCodec(config.secretKey);
    invalidation.on('user', (ids) => this.dropUsers(ids));
  }

  async authenticateApiKey(email: string, rawKey: string, host: string | undefined): Promise<AuthContext> {
    const key = rawKey.trim();
    if (!isWellFormedApiKey(key)) throw Errors.malformedApiKey();
    const user = await this.userForKey(key);
    if (!user || user.deliveryEmail.toLowerCase() !== email.trim().toLowerCase()) {
      throw Errors.invalidApiKey();
    }
    let hostRealm;
    try {
      hostRealm = await this.realms.realmForHost(host);
    } catch {
      hostRealm = undefined;
    }
    // The host's realm is cached; only a mismatch (an error path) costs a realm lookup.
    const realm = hostRealm?.id === user.realmId ? hostRealm : await this.realms.getRealm(user.realmId);
    if (realm.deactivated) throw Errors.apiKeyRealmDeactivated();
    if (!user.isActive) throw Errors.apiKeyUserDeactivated();
    if (hostRealm?.id !== realm.id) throw Errors.accountNotInSubdomain();
    return { user, realm };
  }

  private async userForKey(key: string): Promise<UserProfile | null> {
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < AUTH_CACHE_MS) return hit.user;
    const badAt = this.badKeys.get(key);
    if (badAt !== undefined) {
      if (now - badAt < BAD_KEY_CACHE_MS) return null;
      this.badKeys.delete(key);
    }
    // A row read while an invalidation arrives may predate the change: use it, don't keep it.
    const epoch = this.invalidation.epoch;
    const user = await this.users.findByApiKeyDigest(this.codec.digest(key));
    if (!this.invalidation.canCache || this.invalidation.epoch !== epoch) return user;
    if (user) {
      if (this.cache.size >= AUTH_CACHE_MAX) this.cache.clear();
      this.cache.set(key, { user, at: now });
    } else {
      // Oldest first: dropping the first entries keeps the map bounded.
      while (this.badKeys.size >= BAD_KEY_CACHE_MAX) this.badKeys.delete(this.badKeys.keys().next().value!);
      this.badKeys.set(key, now);
    }
    return user;
  }

  /**
   * A user's role, status or key changed: inside the change's transaction, every process drops
   * the user's cached rows when it commits (outside one: now). Prefer this to invalidateUser.
   */
  userChanged(userId: number): Promise<void> {
    return this.invalidation.publishOnCommit('user', [userId]);
  }

  /**
   * Drops cached rows of a user whose profile changed, in every process (call after the change
   * committed; the other processes hear of it a moment later).
   */
  invalidateUser(userId: number): void {
    this.invalidation.publish('user', [userId]);
  }

  invalidateAll(): void {
    this.invalidation.publish('user', null);
  }

  private dropUsers(ids: readonly number[] | null): void {
    if (ids === null) {
      // Keys are random, so a miss stays a miss; "everything" forgets the misses all the same.
      this.badKeys.clear();
      this.cache.clear();
      return;
    }
    const stale = new Set(ids);
    for (const [key, entry] of this.cache) if (stale.has(entry.user.id)) this.cache.delete(key);
  }
}
