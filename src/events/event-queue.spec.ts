import { EventQueue, MAX_QUEUE_EVENTS, QueueOptions } from './event-queue';

const options = (extra: Partial<QueueOptions> = {}): QueueOptions => ({
  userId: 10,
  realmId: 2,
  eventTypes: null,
  allPublicStreams: false,
  applyMarkdown: false,
  clientGravatar: true,
  narrow: [],
  clientCapabilities: {},
  clientName: 'test',
  ...extra,
});

describe('EventQueue', () => {
  afterEach(() => jest.useRealTimers());

  it('numbers events from 0 and keeps them until acknowledged', () => {
    const q = new EventQueue('q1', options());
    expect(q.lastEventId).toBe(-1);
    q.push({ type: 'a' });
    q.push({ type: 'b', x: 1 });
    expect(q.lastEventId).toBe(1);
    expect(q.pending()).toEqual([
      { type: 'a', id: 0 },
      { type: 'b', x: 1, id: 1 },
    ]);
    expect(q.newestPrunedId).toBeNull();
  });

  it('does not let callers mutate its storage through pending()', () => {
    const q = new EventQueue('q1', options());
    q.push({ type: 'a' });
    q.pending().pop();
    expect(q.pending()).toHaveLength(1);
  });

  it('prunes through the acknowledged id and remembers the newest pruned id', () => {
    const q = new EventQueue('q1', options());
    for (let i = 0; i < 5; i++) q.push({ type: 't' });
    q.prune(-1);
    expect(q.pending()).toHaveLength(5);
    expect(q.newestPrunedId).toBeNull();
    q.prune(2);
    expect(q.pending().map((e) => e.id)).toEqual([3, 4]);
    expect(q.newestPrunedId).toBe(2);
    q.prune(2);
    expect(q.newestPrunedId).toBe(2);
    // Acknowledging beyond the last event prunes everything; the newest pruned id is the last real one.
    q.prune(100);
    expect(q.pending()).toEqual([]);
    expect(q.newestPrunedId).toBe(4);
  });

  it(`drops the oldest events beyond ${MAX_QUEUE_EVENTS} and records them as pruned`, () => {
    const q = new EventQueue('q1', options());
    for (let i = 0; i < MAX_QUEUE_EVENTS + 3; i++) q.push({ type: 't' });
    const pending = q.pending();
    expect(pending).toHaveLength(MAX_QUEUE_EVENTS);
    expect(pending[0].id).toBe(3);
    expect(q.newestPrunedId).toBe(2);
  });

  it('wants the registered event types, and heartbeats always', () => {
    const all = new EventQueue('q1', options());
    expect(all.wants('message')).toBe(true);
    const some = new EventQueue('q2', options({ eventTypes: ['message'] }));
    expect(some.wants('message')).toBe(true);
    expect(some.wants('realm_user')).toBe(false);
    expect(some.wants('heartbeat')).toBe(true);
    const none = new EventQueue('q3', options({ eventTypes: [] }));
    expect(none.wants('message')).toBe(false);
    expect(none.wants('heartbeat')).toBe(true);
  });

  it('wakes a parked poll when an event arrives', async () => {
    const q = new EventQueue('q1', options());
    const poll = q.wait(60_000);
    expect(q.connected).toBe(true);
    q.push({ type: 'x' });
    await expect(poll.promise).resolves.toEqual([{ type: 'x', id: 0 }]);
    expect(q.connected).toBe(false);
  });

  it('ends a parked poll with a heartbeat after the heartbeat interval', async () => {
    jest.useFakeTimers();
    const q = new EventQueue('q1', options({ eventTypes: ['message'] }));
    const poll = q.wait(45_000);
    jest.advanceTimersByTime(44_999);
    expect(q.connected).toBe(true);
    jest.advanceTimersByTime(1);
    await expect(poll.promise).resolves.toEqual([{ type: 'heartbeat', id: 0 }]);
    // The heartbeat stays queued until acknowledged, like any event.
    expect(q.pending()).toEqual([{ type: 'heartbeat', id: 0 }]);
  });

  it('does not send a heartbeat once the poll has been answered', async () => {
    jest.useFakeTimers();
    const q = new EventQueue('q1', options());
    const poll = q.wait(1000);
    q.push({ type: 'x' });
    await poll.promise;
    jest.advanceTimersByTime(5000);
    expect(q.pending().map((e) => e.type)).toEqual(['x']);
  });

  it('answers an older poll with nothing when a newer one replaces it', async () => {
    const q = new EventQueue('q1', options());
    const first = q.wait(60_000);
    const second = q.wait(60_000);
    await expect(first.promise).resolves.toEqual([]);
    first.cancel(); // no effect on the newer poll
    expect(q.connected).toBe(true);
    q.push({ type: 'y' });
    await expect(second.promise).resolves.toEqual([{ type: 'y', id: 0 }]);
  });

  it('cancel ends the poll with no events and updates lastActivity', async () => {
    const q = new EventQueue('q1', options());
    q.lastActivity = 0;
    const poll = q.wait(60_000);
    poll.cancel();
    await expect(poll.promise).resolves.toEqual([]);
    expect(q.connected).toBe(false);
    expect(q.lastActivity).toBeGreaterThan(0);
  });

  it('close answers a parked poll and empties the queue', async () => {
    const q = new EventQueue('q1', options());
    q.push({ type: 'a' });
    q.prune(0);
    const poll = q.wait(60_000);
    q.close();
    await expect(poll.promise).resolves.toEqual([]);
    expect(q.pending()).toEqual([]);
  });
});
