import { ZulipError } from '../../src/common/errors/zulip-error';
import type { QueueOptions } from '../../src/events/event-queue';
import type { EventQueueBackend } from '../../src/events/event-queue-backend';

/**
 * The behaviour every event-queue backend must have (in-process and Redis), as Jest tests.
 * Call inside a spec file with a factory for fresh backends.
 */
export function describeBackendContract(
  name: string,
  makeBackend: (opts?: { maxQueuesPerUser?: number }) => EventQueueBackend,
): void {
  describe(`${name}: event queue contract`, () => {
    let backend: EventQueueBackend;
    const realm = 2;
    const options = (userId: number, extra: Partial<QueueOptions> = {}): QueueOptions => ({
      userId,
      realmId: realm,
      eventTypes: null,
      allPublicStreams: false,
      applyMarkdown: false,
      clientGravatar: true,
      narrow: [],
      clientCapabilities: {},
      clientName: 'test',
      ...extra,
    });
    const noClose = () => undefined;
    const read = (userId: number, id: string, last = -1) => backend.getEvents(userId, id, last, true, 60_000, noClose);
    async function zulipError(p: Promise<unknown>): Promise<ZulipError> {
      try {
        await p;
      } catch (err) {
        expect(err).toBeInstanceOf(ZulipError);
        return err as ZulipError;
      }
      throw new Error('expected a ZulipError');
    }

    beforeEach(() => {
      backend = makeBackend();
    });
    afterEach(() => backend.close());

    it('allocates queues that start empty at last_event_id -1', async () => {
      const q = await backend.allocate(options(10));
      expect(q.lastEventId).toBe(-1);
      await expect(read(10, q.id)).resolves.toEqual([]);
    });

    it("delivers to every queue of each recipient in the realm that wants the event's type, once", async () => {
      const a1 = await backend.allocate(options(10));
      const a2 = await backend.allocate(options(10, { eventTypes: ['other'] }));
      const b = await backend.allocate(options(11));
      const otherRealm = await backend.allocate(options(10, { realmId: 3 }));
      const c = await backend.allocate(options(12));
      await backend.deliver(realm, { type: 'message', n: 1 }, [10, 11, 11]);
      await expect(read(10, a1.id)).resolves.toEqual([{ type: 'message', n: 1, id: 0 }]);
      await expect(read(10, a2.id)).resolves.toEqual([]);
      await expect(read(11, b.id)).resolves.toEqual([{ type: 'message', n: 1, id: 0 }]);
      await expect(read(10, otherRealm.id)).resolves.toEqual([]);
      await expect(read(12, c.id)).resolves.toEqual([]);
    });

    it('applies a per-queue customizer', async () => {
      const a = await backend.allocate(options(10));
      const b = await backend.allocate(options(11));
      await backend.deliver(realm, { type: 'message' }, [10, 11], (q, userId) =>
        q.id === a.id ? { type: 'message', local_message_id: '1', for: userId } : { type: 'message', for: userId },
      );
      await expect(read(10, a.id)).resolves.toEqual([{ type: 'message', local_message_id: '1', for: 10, id: 0 }]);
      await expect(read(11, b.id)).resolves.toEqual([{ type: 'message', for: 11, id: 0 }]);
    });

    it('acknowledges through last_event_id with Zulip’s pruning errors', async () => {
      const q = await backend.allocate(options(10));
      for (let i = 0; i < 3; i++) await backend.deliver(realm, { type: 't', i }, [10]);
      await expect(read(10, q.id)).resolves.toHaveLength(3);
      await expect(read(10, q.id, 1)).resolves.toEqual([{ type: 't', i: 2, id: 2 }]);
      expect((await zulipError(read(10, q.id, 0))).toBody()).toEqual({
        result: 'error',
        msg: 'An event newer than 0 has already been pruned!',
        code: 'BAD_REQUEST',
      });
      // Re-sending the same acknowledgement is fine.
      await expect(read(10, q.id, 1)).resolves.toEqual([{ type: 't', i: 2, id: 2 }]);
      expect((await zulipError(read(10, q.id, 7))).message).toBe('Event 7 was not in this queue');
    });

    it('refuses unknown queues and other users’ queues', async () => {
      const unknown = await zulipError(read(10, 'nope'));
      expect(unknown.toBody()).toEqual({
        result: 'error',
        msg: 'Bad event queue ID: nope',
        code: 'BAD_EVENT_QUEUE_ID',
        queue_id: 'nope',
      });
      const q = await backend.allocate(options(10));
      expect((await zulipError(read(11, q.id))).message).toBe('You are not authorized to get events from this queue');
      expect((await zulipError(backend.deleteQueue(11, q.id))).message).toBe(
        'You are not authorized to get events from this queue',
      );
      await expect(read(10, q.id)).resolves.toEqual([]);
    });

    it('long-polls until an event arrives', async () => {
      const q = await backend.allocate(options(10));
      const poll = backend.getEvents(10, q.id, -1, false, 60_000, noClose);
      await new Promise((r) => setTimeout(r, 20));
      await backend.deliver(realm, { type: 'x' }, [10]);
      await expect(poll).resolves.toEqual([{ type: 'x', id: 0 }]);
    });

    it('ends a long-poll with a heartbeat', async () => {
      const q = await backend.allocate(options(10, { eventTypes: ['message'] }));
      await expect(backend.getEvents(10, q.id, -1, false, 30, noClose)).resolves.toEqual([
        { type: 'heartbeat', id: 0 },
      ]);
    });

    it('ends the poll when the client goes away', async () => {
      const q = await backend.allocate(options(10));
      let closed: (() => void) | undefined;
      const poll = backend.getEvents(10, q.id, -1, false, 60_000, (cb) => {
        closed = cb;
      });
      await new Promise((r) => setTimeout(r, 20));
      closed?.();
      await expect(poll).resolves.toEqual([]);
    });

    it('deletes queues', async () => {
      const q = await backend.allocate(options(10));
      await backend.deleteQueue(10, q.id);
      expect((await zulipError(read(10, q.id))).code).toBe('BAD_EVENT_QUEUE_ID');
      expect((await zulipError(backend.deleteQueue(10, q.id))).code).toBe('BAD_EVENT_QUEUE_ID');
    });

    it("keeps at most maxQueuesPerUser queues per user: a new one removes the user's oldest", async () => {
      await backend.close();
      backend = makeBackend({ maxQueuesPerUser: 2 });
      const first = await backend.allocate(options(10));
      await new Promise((r) => setTimeout(r, 5));
      const second = await backend.allocate(options(10));
      const other = await backend.allocate(options(11));
      // A poll parked on the oldest queue is answered when the queue goes.
      const parked = backend.getEvents(10, first.id, -1, false, 60_000, noClose);
      await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 5));
      const third = await backend.allocate(options(10));
      await expect(parked).resolves.toEqual([]);
      expect((await zulipError(read(10, first.id))).toBody()).toEqual({
        result: 'error',
        msg: `Bad event queue ID: ${first.id}`,
        code: 'BAD_EVENT_QUEUE_ID',
        queue_id: first.id,
      });
      await backend.deliver(realm, { type: 'x' }, [10, 11]);
      await expect(read(10, second.id)).resolves.toEqual([{ type: 'x', id: 0 }]);
      await expect(read(10, third.id)).resolves.toEqual([{ type: 'x', id: 0 }]);
      await expect(read(11, other.id)).resolves.toEqual([{ type: 'x', id: 0 }]);
      expect((await backend.stats()).queues).toBe(3);
    });

    it('garbage-collects idle queues but not one being polled', async () => {
      const idle = await backend.allocate(options(10));
      const polled = await backend.allocate(options(11));
      let closed: (() => void) | undefined;
      const poll = backend.getEvents(11, polled.id, -1, false, 60_000, (cb) => {
        closed = cb;
      });
      await new Promise((r) => setTimeout(r, 30));
      expect(await backend.hasActiveClient(11, 1)).toBe(true);
      expect(await backend.collectGarbage(10)).toBeGreaterThanOrEqual(1);
      expect((await zulipError(read(10, idle.id))).code).toBe('BAD_EVENT_QUEUE_ID');
      expect(await backend.hasActiveClient(10, 60_000)).toBe(false);
      closed?.();
      await poll;
      await expect(read(11, polled.id)).resolves.toEqual([]);
    });
  });
}
