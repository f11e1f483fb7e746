import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '../common/config/config';

/** Readiness of Redis (when REDIS_URL is set): a PING on a connection of its own. */
@Injectable()
export class RedisHealthIndicator implements OnApplicationShutdown {
  private client: Redis | undefined;

  constructor(
    private readonly indicator: HealthIndicatorService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get configured(): boolean {
    return this.config.redisUrl !== undefined;
  }

  private connection(): Redis {
    // No offline queue: while Redis is away a PING fails at once instead of waiting.
    if (!this.client) {
      this.client = new Redis(this.config.redisUrl!, {
        lazyConnect: false,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: 2000,
        retryStrategy: (attempt) => Math.min(attempt * 200, 1000),
      });
      // Connection errors are what readiness reports; ioredis reconnects by itself.
      this.client.on('error', () => undefined);
    }
    return this.client;
  }

  pingCheck(key: string, timeoutMs: number) {
    return this.indicator
      .check(key)
      .attempt(async () => {
        const client = this.connection();
        if (client.status !== 'ready') throw new Error(`redis connection is ${client.status}`);
        await client.ping();
      })
      .withTimeout(timeoutMs);
  }

  onApplicationShutdown(): void {
    this.client?.disconnect();
    this.client = undefined;
  }
}
