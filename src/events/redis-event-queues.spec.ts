import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { describeBackendContract } from '../../test/helpers/event-backend-contract';
import type { QueuedEvent, QueueOptions } from './event-queue';
import { eventsJson, shareJson } from './event-json';
import { RedisEventQueues } from './redis-event-queues';

/**
 * Runs against a real Redis (REDIS_URL or 127.0.0.1:6379) when the test run's global setup found
 * one (CI always has one); each backend gets its own key prefix, removed afterwards.
 */
const url = process.env.ZULIP_TEST_REDIS_URL;

const prefixes: string[] = [];
function freshPrefix(): string {
  const p = `zulip-test-${randomBytes(6).toString('hex')}`;
  prefixes.push(p);
  return p;
}

afterAll(async () => {
  if (!url || prefixes.length === 0) return;
  const redis = new Redis(url);
  for (const p of prefixes) {
    const keys = await redis.keys(`${p}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  await redis.quit();
});

(url ? describe : describe.skip)('Redis event queues', () => {
  const redisUrl = url ?? '';
  describeBackendContract('redis queues', (opts) => new RedisEventQueues(redisUrl, freshPrefix(), opts));

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
      const a = new RedisEventQueues(redisUrl, prefix);
      const b = new RedisEventQueues(redisUrl, prefix);
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

    it('wakes every poll parked here that one delivery of another instance pushed to, and records their end', async () => {
      const prefix = freshPrefix();
      const a = new RedisEventQueues(redisUrl, prefix);
      const b = new RedisEventQueues(redisUrl, prefix);
      const watcher = new Redis(redisUrl);
      try {
        // More queues than one push call takes (200), so the wake-ups come in several messages.
        const users = Array.from({ length: 450 }, (_, i) => 1000 + i);
        const queues = await Promise.all(users.map((u) => a.allocate(options(u))));
        await watcher.zadd(`${prefix}:idle`, ...queues.flatMap((q) => [0, q.id]));
        const polls = queues.map((q, i) => a.getEvents(users[i], q.id, -1, false, 60_000, () => undefined));
        await new Promise((r) => setTimeout(r, 50));
        const wakeMessages: string[] = [];
        const sub = watcher.duplicate();
        await sub.subscribe(`${prefix}:wake`);
        sub.on('message', (_channel: string, message: string) => wakeMessages.push(message));
        const before = Date.now();
        await b.deliver(2, { type: 'message', via: 'b' }, users);
        for (const poll of polls) await expect(poll).resolves.toEqual([{ type: 'message', via: 'b', id: 0 }]);
        await new Promise((r) => setTimeout(r, 50));
        await sub.quit();
        // One message per push call (at least 3 of 200 queues; more when the delivery's time
        // slices cut calls short), naming its queues; every queue once.
        expect(wakeMessages.length).toBeGreaterThanOrEqual(3);
        expect(wakeMessages.length).toBeLessThan(users.length / 2);
        expect(wakeMessages.flatMap((m) => m.split(' ')).sort()).toEqual(queues.map((q) => q.id).sort());
        // The end of each answered poll is recorded as the queue's last activity.
        const scores = await watcher.zmscore(`${prefix}:idle`, ...queues.map((q) => q.id));
        for (const score of scores) expect(Number(score)).toBeGreaterThanOrEqual(before);
      } finally {
        watcher.disconnect();
        await a.close();
        await b.close();
      }
    });

    it('collects the queue of a poll parked on an instance that died, once idle', async () => {
      const prefix = freshPrefix();
      const dead = new RedisEventQueues(redisUrl, prefix);
      const alive = new RedisEventQueues(redisUrl, prefix);
      try {
        const orphan = await dead.allocate(options(10));
        const kept = await alive.allocate(options(11));
        void dead.getEvents(10, orphan.id, -1, false, 40, () => undefined);
        const keptPoll = alive.getEvents(11, kept.id, -1, false, 60_000, () => undefined);
        await new Promise((r) => setTimeout(r, 20));
        expect(await alive.hasActiveClient(10, 1)).toBe(true);
        // The instance dies with the poll parked: no heartbeat, no GC pass, no poll end.
        const internals = dead as unknown as { redis: Redis; subscriber: Redis };
        internals.redis.disconnect();
        internals.subscriber.disconnect();
        await new Promise((r) => setTimeout(r, 150));
        // `alive` renews its own parked poll and collects the dead instance's.
        expect(await alive.collectGarbage(50)).toBe(1);
        await expect(alive.getEvents(10, orphan.id, -1, true, 60_000, () => undefined)).rejects.toMatchObject({
          code: 'BAD_EVENT_QUEUE_ID',
        });
        expect(await alive.hasActiveClient(10, 60_000)).toBe(false);
        expect(await alive.hasActiveClient(11, 60_000)).toBe(true);
        await alive.deliver(2, { type: 'x' }, [11]);
        await expect(keptPoll).resolves.toEqual([{ type: 'x', id: 0 }]);
      } finally {
        await dead.close();
        await alive.close();
      }
    });

    it('drops cached queue options when another instance removes the queue', async () => {
      const prefix = freshPrefix();
      const a = new RedisEventQueues(redisUrl, prefix);
      const b = new RedisEventQueues(redisUrl, prefix);
      try {
        const q1 = await a.allocate(options(10));
        const q2 = await a.allocate(options(12));
        await b.deliver(2, { type: 'x' }, [10, 12]); // b caches both queues' options
        expect(b.cachedQueueCount()).toBe(2);
        const poll = b.getEvents(10, q1.id, 0, false, 60_000, () => undefined);
        await new Promise((r) => setTimeout(r, 20));
        await a.deleteQueue(10, q1.id);
        // The poll parked on b is answered; its next poll learns the queue is gone.
        await expect(poll).resolves.toEqual([]);
        await a.deleteQueue(12, q2.id);
        await new Promise((r) => setTimeout(r, 50));
        expect(b.cachedQueueCount()).toBe(0);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('delivers to many queues in several pipelines, in order, and answers every parked poll', async () => {
      const prefix = freshPrefix();
      const a = new RedisEventQueues(redisUrl, prefix);
      const b = new RedisEventQueues(redisUrl, prefix);
      // An instance that knows none of the queues: it reads their lists and options itself, in
      // pipelines of at most 1,000 reads.
      const c = new RedisEventQueues(redisUrl, prefix);
      try {
        const users = Array.from({ length: 1200 }, (_, i) => 100 + i);
        const queues = await Promise.all(users.map((u) => a.allocate(options(u))));
        const answers = new Map<number, unknown>();
        for (const [i, u] of users.entries()) {
          await b.getEvents(
            u,
            queues[i].id,
            -1,
            false,
            60_000,
            () => undefined,
            (events) => answers.set(u, events),
          );
        }
        const shared = { big: 'x'.repeat(2000) };
        await c.deliver(2, { type: 'x', n: 1, shared }, users);
        await a.deliver(2, { type: 'x', n: 2 }, users);
        for (let t = 0; t < 200 && answers.size < users.length; t++) await new Promise((r) => setTimeout(r, 25));
        expect(answers.size).toBe(users.length);
        for (const [i, u] of users.entries()) {
          const [first, ...rest] = answers.get(u) as Array<Record<string, unknown>>;
          expect(first).toEqual({ type: 'x', n: 1, shared, id: 0 });
          // The poll is answered with what was there when woken: the second event, or not yet.
          expect(rest.length <= 1).toBe(true);
          await expect(b.getEvents(u, queues[i].id, 0, true, 60_000, () => undefined)).resolves.toEqual([
            { type: 'x', n: 2, id: 1 },
          ]);
        }
      } finally {
        await a.close();
        await b.close();
        await c.close();
      }
    }, 60_000);

    it('answers polls parked on the delivering instance from the pushes, exactly as read back', async () => {
      const prefix = freshPrefix();
      const a = new RedisEventQueues(redisUrl, prefix);
      const b = new RedisEventQueues(redisUrl, prefix);
      try {
        const users = Array.from({ length: 300 }, (_, i) => 100 + i);
        const queues = await Promise.all(users.map((u) => a.allocate(options(u))));
        const answers = new Map<number, QueuedEvent[]>();
        const park = async (backend: RedisEventQueues, u: number, i: number, last: number) =>
          backend.getEvents(
            u,
            queues[i].id,
            last,
            false,
            60_000,
            () => undefined,
            (e) => answers.set(u, e),
          );
        for (const [i, u] of users.entries()) await park(a, u, i, -1);
        const shared = shareJson({ big: 'é'.repeat(500), n: [1, 2] });
        await a.deliver(2, { type: 'x', shared, skip: undefined }, users, (queue, userId) => ({
          type: 'x',
          shared,
          flags: userId % 2 === 0 ? ['read'] : [],
          skip: undefined,
        }));
        for (let t = 0; t < 200 && answers.size < users.length; t++) await new Promise((r) => setTimeout(r, 10));
        expect(answers.size).toBe(users.length);
        for (const u of users) {
          const got = answers.get(u)!;
          const expected = [
            { type: 'x', shared: { big: 'é'.repeat(500), n: [1, 2] }, flags: u % 2 === 0 ? ['read'] : [], id: 0 },
          ];
          expect(got).toEqual(expected);
          expect(eventsJson(got)).toBe(JSON.stringify(expected));
        }
        // Events pushed by two instances at once: each answer is the queue's events from the first on.
        answers.clear();
        for (const [i, u] of users.entries()) await park(a, u, i, 0);
        await Promise.all([
          b.deliver(2, { type: 'x', from: 'b' }, users),
          a.deliver(2, { type: 'x', from: 'a' }, users),
        ]);
        for (let t = 0; t < 200 && answers.size < users.length; t++) await new Promise((r) => setTimeout(r, 10));
        expect(answers.size).toBe(users.length);
        for (const [i, u] of users.entries()) {
          const all = (await a.getEvents(u, queues[i].id, 0, true, 60_000, () => undefined))!;
          expect(all.map((e) => e.id)).toEqual([1, 2]);
          const got = answers.get(u)!;
          expect(got.length).toBeGreaterThan(0);
          expect(got).toEqual(all.slice(0, got.length));
          expect(eventsJson(got)).toBe(JSON.stringify(got));
        }
      } finally {
        await a.close();
        await b.close();
      }
    }, 60_000);

    it('keeps a queue across an instance restart', async () => {
      const prefix = freshPrefix();
      const first = new RedisEventQueues(redisUrl, prefix);
      const q = await first.allocate(options(10));
      await first.deliver(2, { type: 'x' }, [10]);
      await first.close();
      const second = new RedisEventQueues(redisUrl, prefix);
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
