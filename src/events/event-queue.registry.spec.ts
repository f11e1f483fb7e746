import { QueueOptions } from './event-queue';
import { EventQueueRegistry } from './event-queue.registry';

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

describe('EventQueueRegistry', () => {
  it('allocates queues with unique ids and indexes them by user', () => {
    const r = new EventQueueRegistry();
    const a = r.allocate(options(10));
    const b = r.allocate(options(10));
    const c = r.allocate(options(11));
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect(a.id).toMatch(/^\d+:[0-9a-f]+\d+$/);
    expect(r.get(a.id)).toBe(a);
    expect([...r.queuesOfUser(10)]).toEqual([a, b]);
    expect([...r.queuesOfUser(11)]).toEqual([c]);
    expect([...r.queuesOfUser(12)]).toEqual([]);
    expect(r.size).toBe(3);
  });

  it('gives different ids in different registries (processes)', () => {
    expect(new EventQueueRegistry().allocate(options(1)).id).not.toBe(new EventQueueRegistry().allocate(options(1)).id);
  });

  it('deletes a queue, answering its parked poll', async () => {
    const r = new EventQueueRegistry();
    const a = r.allocate(options(10));
    const b = r.allocate(options(10));
    const poll = a.wait(60_000);
    expect(r.delete(a.id)).toBe(true);
    await expect(poll.promise).resolves.toEqual([]);
    expect(r.get(a.id)).toBeUndefined();
    expect([...r.queuesOfUser(10)]).toEqual([b]);
    expect(r.delete(a.id)).toBe(false);
    expect(r.delete(b.id)).toBe(true);
    expect([...r.queuesOfUser(10)]).toEqual([]);
    expect(r.size).toBe(0);
  });

  describe('collectGarbage', () => {
    it('removes queues idle for longer than the timeout, and only those', () => {
      const r = new EventQueueRegistry();
      const old = r.allocate(options(10));
      const recent = r.allocate(options(10));
      const edge = r.allocate(options(11));
      old.lastActivity = 1_000;
      recent.lastActivity = 9_500;
      edge.lastActivity = 5_000;
      expect(r.collectGarbage(5_000, 10_000)).toBe(1);
      expect(r.get(old.id)).toBeUndefined();
      expect(r.get(recent.id)).toBe(recent);
      // Exactly the timeout is not "longer than" it.
      expect(r.get(edge.id)).toBe(edge);
      expect([...r.queuesOfUser(10)]).toEqual([recent]);
      expect(r.collectGarbage(5_000, 10_001)).toBe(1);
      expect(r.get(edge.id)).toBeUndefined();
    });

    it('never removes a queue with a connected long-poll', () => {
      const r = new EventQueueRegistry();
      const q = r.allocate(options(10));
      const poll = q.wait(60_000);
      q.lastActivity = 0;
      expect(r.collectGarbage(1_000, Date.now() + 10 * 60_000)).toBe(0);
      expect(r.get(q.id)).toBe(q);
      poll.cancel();
      expect(r.collectGarbage(1_000, Date.now() + 10 * 60_000)).toBe(1);
    });

    it('counts a finished poll as activity', async () => {
      const r = new EventQueueRegistry();
      const q = r.allocate(options(10));
      q.lastActivity = 0;
      const poll = q.wait(60_000);
      q.push({ type: 'x' });
      await poll.promise;
      const now = Date.now();
      expect(r.collectGarbage(60_000, now)).toBe(0);
    });
  });

  it('closeAll removes every queue', () => {
    const r = new EventQueueRegistry();
    r.allocate(options(1));
    r.allocate(options(2));
    r.closeAll();
    expect(r.size).toBe(0);
    expect([...r.queuesOfUser(1)]).toEqual([]);
  });
});
