import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { RealmService } from '../realm/realm.service';
import { ApiKeyCodec, isWellFormedApiKey } from './api-keys';
import { UserProfile } from './user.entity';
import { UsersRepository } from './users.repository';

const AUTH_CACHE_MS = 10_000;
const AUTH_CACHE_MAX = 50_000;

/**
 * API-key authentication with an in-process cache (digest → user row), so the hot path costs
 * no database round trip. Changes to a user call {@link invalidateUser}.
 */
@Injectable()
export class AuthService {
  readonly codec: ApiKeyCodec;
  private readonly cache = new Map<string, { user: UserProfile; at: number }>();

  constructor(
    private readonly users: UsersRepository,
    private readonly realms: RealmService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.codec = new ApiKeyCodec(config.secretKey);
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
    const digest = this.codec.digest(key);
    const now = Date.now();
    const hit = this.cache.get(digest);
    if (hit && now - hit.at < AUTH_CACHE_MS) return hit.user;
    const user = await this.users.findByApiKeyDigest(digest);
    if (user) {
      if (this.cache.size >= AUTH_CACHE_MAX) this.cache.clear();
      this.cache.set(digest, { user, at: now });
    }
    return user;
  }

  /** Drop cached rows of a user whose role, status, key or profile changed. */
  invalidateUser(userId: number): void {
    for (const [digest, entry] of this.cache) if (entry.user.id === userId) this.cache.delete(digest);
  }

  invalidateAll(): void {
    this.cache.clear();
  }
}
