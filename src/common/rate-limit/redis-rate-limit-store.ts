import Redis from 'ioredis';
import type { RateLimitRule, RateLimitStore } from './rate-limiter';

/**
 * KEYS: the log key. ARGV: now (ms), window (ms), max, member.
 * Trims the log to the window, records the request if there is room, returns {recorded, ...log}.
 */
const HIT_SCRIPT = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
local recorded = 0
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  recorded = 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local out = {recorded}
for _, score in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')) do table.insert(out, score) end
return out
`;

/** Rate-limit logs in Redis (a sorted set per key and rule), so the limit holds across instances. */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;
  private seq = 0;

  constructor(
    url: string,
    private readonly prefix = 'zulip',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 });
    this.redis.defineCommand('zrlHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async hit(key: string, rule: RateLimitRule, now: number): Promise<{ recorded: boolean; timestamps: number[] }> {
    const member = `${now}:${process.pid}:${++this.seq}:${Math.random().toString(36).slice(2, 8)}`;
    const hit = (this.redis as unknown as { zrlHit: (...a: unknown[]) => Promise<Array<number | string>> }).zrlHit;
    const [recorded, ...rest] = await hit.call(
      this.redis,
      `${this.prefix}:rl:${key}`,
      now,
      rule.windowSeconds * 1000,
      rule.max,
      member,
    );
    // ZRANGE WITHSCORES alternates member, score.
    const timestamps = rest.filter((_, i) => i % 2 === 1).map(Number);
    return { recorded: Number(recorded) === 1, timestamps };
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(`${this.prefix}:rl:${key}`);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
