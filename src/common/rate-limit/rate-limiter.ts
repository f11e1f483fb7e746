/** One rule: at most `max` requests in any `windowSeconds`-long window. */
export interface RateLimitRule {
  windowSeconds: number;
  max: number;
}

/** The state of the tightest rule after counting a request. */
export interface RateLimitDecision {
  limited: boolean;
  limit: number;
  remaining: number;
  /** UNIX time (seconds) when the oldest counted request leaves the window. */
  resetAt: number;
  /** Seconds until a request would be allowed again (only meaningful when limited). */
  retryAfter: number;
}

/**
 * Where request timestamps are kept. The in-memory store serves one process; a shared store
 * (Redis) makes the limit hold across instances.
 */
export interface RateLimitStore {
  /**
   * Records a request at `now` (ms) for `key` under `rule` unless the window is full; returns the
   * timestamps (ms) in the window after the attempt and whether it was recorded.
   */
  hit(key: string, rule: RateLimitRule, now: number): Promise<{ recorded: boolean; timestamps: number[] }>;
  /** Forgets the key's log (a successful login clears its failures, as Zulip's clear_history). */
  clear(key: string): Promise<void>;
  close?(): Promise<void>;
}

/** Parses `RATE_LIMIT`: `off`, or rules like `200/60,2000/3600` (requests/seconds). */
export function parseRateLimitRules(spec: string): RateLimitRule[] {
  const trimmed = spec.trim().toLowerCase();
  if (trimmed === 'off' || trimmed === '0' || trimmed === 'false') return [];
  return trimmed.split(',').map((part) => {
    const m = /^(\d+)\s*\/\s*(\d+)$/.exec(part.trim());
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) {
      throw new Error(`'${part}' is not a rule of the form <requests>/<seconds>`);
    }
    return { max: Number(m[1]), windowSeconds: Number(m[2]) };
  });
}

/** Sliding-log limiter (as Zulip's RateLimitedObject): every rule must admit the request. */
export class RateLimiter {
  constructor(
    private readonly rules: RateLimitRule[],
    private readonly store: RateLimitStore,
  ) {}

  get enabled(): boolean {
    return this.rules.length > 0;
  }

  /** Nest lifecycle hook (the limiter is a provider): release the store's connection. */
  async onModuleDestroy(): Promise<void> {
    await this.store.close?.();
  }

  /** Forgets what was counted for `key` under every rule. */
  async clear(key: string): Promise<void> {
    for (const rule of this.rules) await this.store.clear(`${key}:${rule.windowSeconds}`);
  }

  async check(key: string, now = Date.now()): Promise<RateLimitDecision | undefined> {
    let tightest: RateLimitDecision | undefined;
    for (const rule of this.rules) {
      const { recorded, timestamps } = await this.store.hit(`${key}:${rule.windowSeconds}`, rule, now);
      const oldest = timestamps.length > 0 ? Math.min(...timestamps) : now;
      const resetMs = oldest + rule.windowSeconds * 1000;
      const decision: RateLimitDecision = {
        limited: !recorded,
        limit: rule.max,
        remaining: Math.max(0, rule.max - timestamps.length),
        resetAt: Math.ceil(resetMs / 1000),
        retryAfter: Math.max(0, (resetMs - now) / 1000),
      };
      if (decision.limited) return decision;
      if (!tightest || decision.remaining < tightest.remaining) tightest = decision;
    }
    return tightest;
  }
}

/** Per-process store: a timestamp log per key, trimmed to the window on every hit. */
export class InMemoryRateLimitStore implements RateLimitStore {
  private readonly logs = new Map<string, number[]>();

  async hit(key: string, rule: RateLimitRule, now: number): Promise<{ recorded: boolean; timestamps: number[] }> {
    const from = now - rule.windowSeconds * 1000;
    const log = (this.logs.get(key) ?? []).filter((t) => t > from);
    const recorded = log.length < rule.max;
    if (recorded) log.push(now);
    if (log.length > 0) this.logs.set(key, log);
    else this.logs.delete(key);
    return { recorded, timestamps: log };
  }

  async clear(key: string): Promise<void> {
    this.logs.delete(key);
  }
}
