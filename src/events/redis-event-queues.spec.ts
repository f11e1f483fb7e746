import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { describeBackendContract } from './backend-contract';
import type { QueueOptions } from './event-queue';
import { RedisEventQueues } from './redis-event-queues';

/**
 * Runs against a real Redis: REDIS_URL, or the machine's 127.0.0.1:6379 (CI starts one). Each
 * backend gets its own key prefix. Without a reachable Redis these tests are reported as skipped.
 */
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

// Jest needs the decision synchronously; the probe result is read from an env var that the
// first spec run computes (see below) or from an explicit REDIS_TESTS=off.
const enabled = process.env.REDIS_TESTS !== 'off';

const prefixes: string[] = [];
function freshPrefix(): string {
  const p = `zulip-test-${randomBytes(6).toString('hex')}`;
  prefixes.push(p);
  return p;
}

afterAll(async () => {
  if (!enabled || prefixes.length === 0 || !(await redisReachable())) return;
  const redis = new Redis(url);
  for (const p of prefixes) {
    const keys = await redis.keys(`${p}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  await redis.quit();
});

(enabled ? describe : describe.skip)('Redis event queues', () => {
  beforeAll(async () => {
    if (!(await redisReachable())) {
      throw new Error(`Redis is not reachable at ${url}: start it, or set REDIS_TESTS=off to skip these tests`);
    }
  });

  describeBackendContract('redis queues', () => new RedisEventQueues(url, freshPrefix()));

  describe('several instances', () => {
    const options = (userId: number): QueueOptions => ({
      userId,
      realmId: 2,
      eventTypes: null,
      allPublicStreams: false,
      applyMarkdown: false,
      clientGravatar: true,
      narrow: [],
      clientCapabilities: {},
      clientName: 'test',
    });

    it('serves a queue registered on one instance from another, and wakes its long-poll', async () => {
      const prefix = freshPrefix();
      const a = new RedisEventQueues(url, prefix);
      const b = new RedisEventQueues(url, prefix);
      try {
        const q = await a.allocate(options(10));
        const poll = a.getEvents(10, q.id, -1, false, 60_000, () => undefined);
        await new Promise((r) => setTimeout(r, 20));
        await b.deliver(2, { type: 'message', via: 'b' }, [10]);
        await expect(poll).resolves.toEqual([{ type: 'message', via: 'b', id: 0 }]);
        // Any instance can answer GET /events for the queue.
        await b.deliver(2, { type: 'message', n: 2 }, [10]);
        await expect(b.getEvents(10, q.id, 0, true, 60_000, () => undefined)).resolves.toEqual([
          { type: 'message', n: 2, id: 1 },
        ]);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('keeps a queue across an instance restart', async () => {
      const prefix = freshPrefix();
      const first = new RedisEventQueues(url, prefix);
      const q = await first.allocate(options(10));
      await first.deliver(2, { type: 'x' }, [10]);
      await first.close();
      const second = new RedisEventQueues(url, prefix);
      try {
        await expect(second.getEvents(10, q.id, -1, true, 60_000, () => undefined)).resolves.toEqual([
          { type: 'x', id: 0 },
        ]);
      } finally {
        await second.close();
      }
    });
  });
});
