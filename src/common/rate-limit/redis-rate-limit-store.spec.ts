import { randomBytes } from 'node:crypto';
import { RateLimiter } from './rate-limiter';
import { RedisRateLimitStore } from './redis-rate-limit-store';

const url = process.env.ZULIP_TEST_REDIS_URL;

(url ? describe : describe.skip)('RedisRateLimitStore', () => {
  const prefix = `zulip-test-${randomBytes(6).toString('hex')}`;
  const stores: RedisRateLimitStore[] = [];
  const store = () => {
    const s = new RedisRateLimitStore(url ?? '', prefix);
    stores.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of stores) await s.close();
  });

  it('shares one limit between instances', async () => {
    const rule = { max: 3, windowSeconds: 60 };
    const a = new RateLimiter([rule], store());
    const b = new RateLimiter([rule], store());
    const now = Date.now();
    expect((await a.check('user:1', now))!.remaining).toBe(2);
    expect((await b.check('user:1', now + 1))!.remaining).toBe(1);
    expect((await a.check('user:1', now + 2))!.limited).toBe(false);
    const refused = await b.check('user:1', now + 3);
    expect(refused).toMatchObject({ limited: true, remaining: 0, resetAt: Math.ceil((now + 60_000) / 1000) });
    expect((await a.check('user:2', now + 3))!.limited).toBe(false);
  });

  it('lets requests through again once the window has passed', async () => {
    const limiter = new RateLimiter([{ max: 1, windowSeconds: 1 }], store());
    const now = Date.now();
    expect((await limiter.check('user:9', now))!.limited).toBe(false);
    expect((await limiter.check('user:9', now + 500))!.limited).toBe(true);
    expect((await limiter.check('user:9', now + 1001))!.limited).toBe(false);
  });
});
