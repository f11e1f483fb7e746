import { InMemoryRateLimitStore, parseRateLimitRules, RateLimiter } from './rate-limiter';

describe('parseRateLimitRules', () => {
  it('reads comma-separated requests/seconds rules and "off"', () => {
    expect(parseRateLimitRules('200/60, 2000/3600')).toEqual([
      { max: 200, windowSeconds: 60 },
      { max: 2000, windowSeconds: 3600 },
    ]);
    expect(parseRateLimitRules('off')).toEqual([]);
  });

  it('rejects malformed rules', () => {
    expect(() => parseRateLimitRules('200 per minute')).toThrow(/not a rule/);
    expect(() => parseRateLimitRules('0/60')).toThrow(/not a rule/);
  });
});

describe('RateLimiter', () => {
  const start = 1_700_000_000_000;

  it('admits up to the limit in a window, then refuses until the oldest request ages out', async () => {
    const limiter = new RateLimiter([{ max: 3, windowSeconds: 10 }], new InMemoryRateLimitStore());
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(await limiter.check('u1', start + i * 1000));
    expect(seen.map((d) => d!.remaining)).toEqual([2, 1, 0]);
    expect(seen.every((d) => !d!.limited)).toBe(true);

    const refused = await limiter.check('u1', start + 3000);
    expect(refused).toMatchObject({ limited: true, limit: 3, remaining: 0, resetAt: (start + 10_000) / 1000 });
    expect(refused!.retryAfter).toBeCloseTo(7, 5);

    // Another key has its own budget.
    expect((await limiter.check('u2', start + 3000))!.limited).toBe(false);
    // The first request leaves the window at start + 10 s.
    expect((await limiter.check('u1', start + 10_001))!.limited).toBe(false);
  });

  it('applies every rule and reports the tightest', async () => {
    const limiter = new RateLimiter(
      [
        { max: 100, windowSeconds: 60 },
        { max: 2, windowSeconds: 3600 },
      ],
      new InMemoryRateLimitStore(),
    );
    expect((await limiter.check('u', start))!).toMatchObject({ limit: 2, remaining: 1 });
    await limiter.check('u', start + 1);
    expect((await limiter.check('u', start + 2))!).toMatchObject({ limited: true, limit: 2 });
  });

  it('is disabled without rules', async () => {
    const limiter = new RateLimiter([], new InMemoryRateLimitStore());
    expect(limiter.enabled).toBe(false);
    expect(await limiter.check('u')).toBeUndefined();
  });
});
