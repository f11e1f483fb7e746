import { Logger } from '@nestjs/common';
import { AppConfig } from '../common/config/config';
import { ZulipError } from '../common/errors/zulip-error';
import { QueueOptions } from './event-queue';
import { EventsService } from './events.service';

const config = {
  heartbeatMinMs: 45_000,
  heartbeatJitterMs: 0,
  queueIdleTimeoutMs: 1_000,
  queueGcIntervalMs: 100,
} as AppConfig;

const options = (userId: number, extra: Partial<QueueOptions> = {}): QueueOptions => ({
  userId,
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

const noClose = () => undefined;

async function zulipError(p: Promise<unknown>): Promise<ZulipError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ZulipError);
    return err as ZulipError;
  }
  throw new Error('expected a ZulipError');
}

describe('EventsService', () => {
  let service: EventsService;
  beforeEach(() => {
    service = new EventsService(config);
  });
  afterEach(() => {
    service.onModuleDestroy();
    jest.useRealTimers();
  });

  describe('deliver', () => {
    it('pushes to every queue of each recipient in the realm that wants the type', () => {
      const a1 = service.allocateQueue(options(10));
      const a2 = service.allocateQueue(options(10, { eventTypes: ['other'] }));
      const b = service.allocateQueue(options(11));
      const otherRealm = service.allocateQueue(options(10, { realmId: 3 }));
      const c = service.allocateQueue(options(12));
      service.deliver(2, { type: 'message', n: 1 }, [10, 11, 11]);
      expect(a1.pending()).toEqual([{ type: 'message', n: 1, id: 0 }]);
      expect(a2.pending()).toEqual([]);
      expect(b.pending()).toEqual([{ type: 'message', n: 1, id: 0 }]);
      expect(otherRealm.pending()).toEqual([]);
      expect(c.pending()).toEqual([]);
    });

    it('applies a per-queue customizer', () => {
      const a = service.allocateQueue(options(10));
      const b = service.allocateQueue(options(11));
      service.deliver(2, { type: 'message' }, [10, 11], (q, userId) =>
        q === a ? { type: 'message', local_message_id: '1', for: userId } : { type: 'message', for: userId },
      );
      expect(a.pending()).toEqual([{ type: 'message', local_message_id: '1', for: 10, id: 0 }]);
      expect(b.pending()).toEqual([{ type: 'message', for: 11, id: 0 }]);
    });

    it('sendOnCommit outside a transaction delivers at once, to each recipient once', () => {
      const a = service.allocateQueue(options(10));
      service.sendOnCommit(2, { type: 'x' }, [10, 10]);
      expect(a.pending()).toEqual([{ type: 'x', id: 0 }]);
    });
  });

  describe('getEvents', () => {
    it('returns pending events without blocking and acknowledges through last_event_id', async () => {
      const q = service.allocateQueue(options(10));
      for (let i = 0; i < 3; i++) q.push({ type: 't', i });
      await expect(service.getEvents(10, q.id, -1, true, noClose)).resolves.toHaveLength(3);
      const after = await service.getEvents(10, q.id, 1, true, noClose);
      expect(after).toEqual([{ type: 't', i: 2, id: 2 }]);
      expect(q.newestPrunedId).toBe(1);
    });

    it('returns an empty list at once with dont_block and nothing pending', async () => {
      const q = service.allocateQueue(options(10));
      await expect(service.getEvents(10, q.id, -1, true, noClose)).resolves.toEqual([]);
    });

    it('refuses an acknowledgement older than what was already pruned', async () => {
      const q = service.allocateQueue(options(10));
      for (let i = 0; i < 3; i++) q.push({ type: 't' });
      await service.getEvents(10, q.id, 1, true, noClose);
      const err = await zulipError(service.getEvents(10, q.id, 0, true, noClose));
      expect(err.toBody()).toEqual({
        result: 'error',
        msg: 'An event newer than 0 has already been pruned!',
        code: 'BAD_REQUEST',
      });
      expect((await zulipError(service.getEvents(10, q.id, -1, true, noClose))).message).toBe(
        'An event newer than -1 has already been pruned!',
      );
      // Re-sending the same acknowledgement is fine.
      await expect(service.getEvents(10, q.id, 1, true, noClose)).resolves.toEqual([{ type: 't', id: 2 }]);
    });

    it('refuses an acknowledgement of an event the queue never had', async () => {
      const q = service.allocateQueue(options(10));
      q.push({ type: 't' });
      const err = await zulipError(service.getEvents(10, q.id, 5, true, noClose));
      expect(err.toBody()).toEqual({ result: 'error', msg: 'Event 5 was not in this queue', code: 'BAD_REQUEST' });
    });

    it('refuses an unknown queue with BAD_EVENT_QUEUE_ID and the queue id', async () => {
      const err = await zulipError(service.getEvents(10, 'nope', -1, true, noClose));
      expect(err.status).toBe(400);
      expect(err.toBody()).toEqual({
        result: 'error',
        msg: 'Bad event queue ID: nope',
        code: 'BAD_EVENT_QUEUE_ID',
        queue_id: 'nope',
      });
    });

    it("refuses another user's queue", async () => {
      const q = service.allocateQueue(options(10));
      const err = await zulipError(service.getEvents(11, q.id, -1, true, noClose));
      expect(err.toBody()).toEqual({
        result: 'error',
        msg: 'You are not authorized to get events from this queue',
        code: 'BAD_REQUEST',
      });
      await expect(Promise.resolve().then(() => service.deleteQueue(11, q.id))).rejects.toThrow(
        'You are not authorized to get events from this queue',
      );
      expect(service.registry.get(q.id)).toBe(q);
    });

    it('long-polls until an event arrives', async () => {
      const q = service.allocateQueue(options(10));
      const poll = service.getEvents(10, q.id, -1, false, noClose);
      expect(q.connected).toBe(true);
      service.deliver(2, { type: 'x' }, [10]);
      await expect(poll).resolves.toEqual([{ type: 'x', id: 0 }]);
    });

    it('ends a long-poll with a heartbeat after the configured interval', async () => {
      jest.useFakeTimers();
      const q = service.allocateQueue(options(10, { eventTypes: ['message'] }));
      const poll = service.getEvents(10, q.id, -1, false, noClose);
      jest.advanceTimersByTime(config.heartbeatMinMs);
      await expect(poll).resolves.toEqual([{ type: 'heartbeat', id: 0 }]);
    });

    it('cancels the poll when the client goes away', async () => {
      const q = service.allocateQueue(options(10));
      let onClose: (() => void) | undefined;
      const poll = service.getEvents(10, q.id, -1, false, (cb) => {
        onClose = cb;
      });
      expect(q.connected).toBe(true);
      onClose?.();
      await expect(poll).resolves.toEqual([]);
      expect(q.connected).toBe(false);
    });
  });

  it('deleteQueue removes the queue', async () => {
    const q = service.allocateQueue(options(10));
    service.deleteQueue(10, q.id);
    expect((await zulipError(service.getEvents(10, q.id, -1, true, noClose))).code).toBe('BAD_EVENT_QUEUE_ID');
  });

  it('garbage-collects idle queues on its timer', () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.useFakeTimers();
    service.onModuleInit();
    const idle = service.allocateQueue(options(10));
    const polling = service.allocateQueue(options(11));
    void polling.wait(60_000).promise;
    jest.advanceTimersByTime(config.queueIdleTimeoutMs + config.queueGcIntervalMs);
    expect(service.registry.get(idle.id)).toBeUndefined();
    expect(service.registry.get(polling.id)).toBe(polling);
    expect(log).toHaveBeenCalledWith('garbage-collected 1 idle event queue(s)');
    log.mockRestore();
  });
});
