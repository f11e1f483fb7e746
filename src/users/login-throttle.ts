import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Errors } from '../common/errors/zulip-error';
import { InMemoryRateLimitStore, RateLimiter, RateLimitStore } from '../common/rate-limit/rate-limiter';
import { RedisRateLimitStore } from '../common/rate-limit/redis-rate-limit-store';

/**
 * Password guessing limits for POST /fetch_api_key (Zulip's rate_limit_auth with its
 * `authenticate_by_username` rule, 5 attempts per 30 minutes), plus one per client address:
 * - per username: every attempt counts; a successful login clears the count (Zulip's clear_history);
 * - per client address: every attempt counts and nothing clears it (a valid account of one's
 *   own must not reset the count between guesses at others').
 * Counted before the password is hashed, so refused guesses cost no scrypt. With REDIS_URL the
 * counts are shared by every instance.
 */
@Injectable()
export class LoginThrottle implements OnModuleDestroy {
  private readonly store: RateLimitStore;
  private readonly byUsername: RateLimiter;
  private readonly byAddress: RateLimiter;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { username, ip } = config.authRateLimit;
    this.store =
      config.redisUrl && (username.length > 0 || ip.length > 0)
        ? new RedisRateLimitStore(config.redisUrl, config.redisPrefix)
        : new InMemoryRateLimitStore();
    this.byUsername = new RateLimiter(username, this.store);
    this.byAddress = new RateLimiter(ip, this.store);
  }

  /** Counts an attempt; throws Zulip's rate-limit error (429, retry-after) when over a limit. */
  async attempt(address: string | undefined, username: string): Promise<void> {
    if (this.byAddress.enabled && address) {
      const decision = await this.byAddress.check(`auth-ip:${address}`);
      if (decision?.limited) throw Errors.rateLimited(decision.retryAfter);
    }
    if (this.byUsername.enabled) {
      const decision = await this.byUsername.check(`auth-user:${username.trim().toLowerCase()}`);
      if (decision?.limited) throw Errors.rateLimited(decision.retryAfter);
    }
  }

  /** A successful login: the username's failures are forgotten. */
  async succeeded(username: string): Promise<void> {
    if (this.byUsername.enabled) await this.byUsername.clear(`auth-user:${username.trim().toLowerCase()}`);
  }

  async onModuleDestroy(): Promise<void> {
    await this.store.close?.();
  }
}
