/**
 * GET /events and DELETE /events (zerver/tornado/views.py, event_queue.py), and delivery of
 * events only after the transaction that produced them commits.
 */
import { drainEvents, registerQueue, syntheticEvent } from '../../helpers/events';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { runInTransaction } from '../../../src/database/transaction';
import { EventsService, ZulipEvent } from '../../../src/events/events.service';
import { RealmService } from '../../../src/realm/realm.service';

const HAMLET = 'hamlet@zulip.com';
const HAMLET_ID = 10;
const OTHELLO = 'othello@zulip.com';
const TEST_TYPE = 'foundation_test';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('event queues', () => {
  let t: TestApp;
  let realmId: number;
  beforeAll(async () => {
    t = await startTestApp();
    realmId = (await t.app.get(RealmService).findByStringId('zulip'))!.id;
  });
  afterAll(() => t.close());

  const events = () => t.app.get(EventsService);

  /** Sends an event to `userIds` outside any transaction and lets delivery finish. */
  async function send(event: ZulipEvent, userIds: number[] = [HAMLET_ID]): Promise<void> {
    events().sendOnCommit(realmId, syntheticEvent(event), userIds);
    await tick();
  }

  const getEvents = async (as: string, query: Record<string, string>) =>
    t
      .http()
      .get('/api/v1/events')
      .auth(...(await t.auth(as)))
      .query(query);

  describe('GET /events', () => {
    it('returns nothing at once with dont_block on a fresh queue', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const res = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '-1', dont_block: 'true' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: 'success', msg: '', events: [] });
      expectMatchesOpenApi('get', '/events', res.status, res.body);
    });

    it('returns queued events with increasing ids, until acknowledged', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      for (let n = 1; n <= 3; n++) await send({ type: TEST_TYPE, n });
      const first = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '-1', dont_block: 'true' });
      expect(first.status).toBe(200);
      expect(first.body.events).toEqual([
        { type: TEST_TYPE, n: 1, id: 0 },
        { type: TEST_TYPE, n: 2, id: 1 },
        { type: TEST_TYPE, n: 3, id: 2 },
      ]);
      // Not acknowledged yet: the same events again.
      const again = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '-1', dont_block: 'true' });
      expect(again.body.events).toHaveLength(3);
      // Acknowledge through id 1.
      const rest = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '1', dont_block: 'true' });
      expect(rest.body.events).toEqual([{ type: TEST_TYPE, n: 3, id: 2 }]);
      // Acknowledge everything.
      const none = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '2', dont_block: 'true' });
      expect(none.body.events).toEqual([]);
      await send({ type: TEST_TYPE, n: 4 });
      const later = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '2', dont_block: 'true' });
      expect(later.body.events).toEqual([{ type: TEST_TYPE, n: 4, id: 3 }]);
    });

    it('refuses to go back before what was pruned', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      for (let n = 0; n < 3; n++) await send({ type: TEST_TYPE });
      await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '1', dont_block: 'true' });
      for (const id of ['0', '-1']) {
        const res = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: id, dont_block: 'true' });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          result: 'error',
          msg: `An event newer than ${id} has already been pruned!`,
          code: 'BAD_REQUEST',
        });
        expectMatchesOpenApi('get', '/events', res.status, res.body);
      }
    });

    it('refuses to acknowledge an event the queue never had', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      await send({ type: TEST_TYPE });
      const res = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '7', dont_block: 'true' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'Event 7 was not in this queue', code: 'BAD_REQUEST' });
    });

    it('an unknown queue → BAD_EVENT_QUEUE_ID with queue_id', async () => {
      const res = await getEvents(HAMLET, { queue_id: 'no-such-queue', last_event_id: '-1', dont_block: 'true' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'Bad event queue ID: no-such-queue',
        code: 'BAD_EVENT_QUEUE_ID',
        queue_id: 'no-such-queue',
      });
      expectMatchesOpenApi('get', '/events', res.status, res.body);
    });

    it("another user's queue → You are not authorized to get events from this queue", async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      await send({ type: TEST_TYPE });
      const res = await getEvents(OTHELLO, { queue_id: q.queueId, last_event_id: '0', dont_block: 'true' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'You are not authorized to get events from this queue',
        code: 'BAD_REQUEST',
      });
      // Nothing was acknowledged by the refused request.
      const own = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '-1', dont_block: 'true' });
      expect(own.body.events).toHaveLength(1);
    });

    it("a missing last_event_id → Missing 'last_event_id' argument", async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const res = await getEvents(HAMLET, { queue_id: q.queueId, dont_block: 'true' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ result: 'error', msg: "Missing 'last_event_id' argument" });
    });

    it("a missing queue_id (long-poll) → Missing 'queue_id' argument", async () => {
      const res = await getEvents(HAMLET, { last_event_id: '-1' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ result: 'error', msg: "Missing 'queue_id' argument" });
    });

    it.each([
      [{ last_event_id: 'x' }, 'last_event_id is not valid JSON'],
      [{ last_event_id: '"1"' }, 'last_event_id is not an integer'],
      [{ last_event_id: '-1', dont_block: 'yes' }, 'dont_block is not valid JSON'],
      [{ last_event_id: '-1', dont_block: '1' }, 'dont_block is not a boolean'],
    ])('%j → %s', async (query, msg) => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const res = await getEvents(HAMLET, { queue_id: q.queueId, ...query });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
    });

    it('delivers only the event types the queue registered for', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      await send({ type: 'other_type' });
      await send({ type: TEST_TYPE, n: 1 });
      expect(await drainEvents(t, q)).toEqual([{ type: TEST_TYPE, n: 1, id: 0 }]);
    });

    it('delivers only to the recipients, in every queue they have', async () => {
      const a = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const b = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const o = await registerQueue(t, OTHELLO, [TEST_TYPE]);
      await send({ type: TEST_TYPE }, [HAMLET_ID]);
      expect(await drainEvents(t, a)).toHaveLength(1);
      expect(await drainEvents(t, b)).toHaveLength(1);
      expect(await drainEvents(t, o)).toHaveLength(0);
    });

    it('does not deliver to queues of the same user id in another realm', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      events().sendOnCommit(realmId + 1000, syntheticEvent({ type: TEST_TYPE }), [HAMLET_ID]);
      await tick();
      expect(await drainEvents(t, q)).toEqual([]);
    });
  });

  describe('long-polling', () => {
    /**
     * Starts GET /events without dont_block; resolves once the server has taken the request. The
     * parameters go in the query string, or with `inBody` in a form body.
     */
    async function startPoll(queueId: string, lastEventId = '-1', inBody = false) {
      const service = events();
      const entered = new Promise<void>((resolve) => {
        const spy = jest.spyOn(service, 'getEvents').mockImplementation(function (this: EventsService, ...args) {
          spy.mockRestore();
          const result = service.getEvents.apply(this, args);
          resolve();
          return result;
        });
      });
      const auth = await t.auth(HAMLET);
      const params = { queue_id: queueId, last_event_id: lastEventId };
      const request = t
        .http()
        .get('/api/v1/events')
        .auth(...auth);
      const response = (inBody ? request.type('form').send(params) : request.query(params)).then((r) => r);
      await entered;
      await tick();
      // Wrapped: returning the promise itself would make this async function wait for it.
      return { response };
    }

    it('a parked poll is woken by an event', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const { response: poll } = await startPoll(q.queueId);
      events().sendOnCommit(realmId, syntheticEvent({ type: TEST_TYPE, woke: true }), [HAMLET_ID]);
      const res = await poll;
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: 'success', msg: '', events: [{ type: TEST_TYPE, woke: true, id: 0 }] });
    });

    it('a parked poll whose parameters came in a form body parks and is answered', async () => {
      // The server reads a parked poll's request to its end when it parks (not when answering).
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const { response: poll } = await startPoll(q.queueId, '-1', true);
      events().sendOnCommit(realmId, syntheticEvent({ type: TEST_TYPE, body: true }), [HAMLET_ID]);
      const res = await poll;
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: 'success', msg: '', events: [{ type: TEST_TYPE, body: true, id: 0 }] });
    });

    it('a poll with pending events answers at once', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      await send({ type: TEST_TYPE });
      const res = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '-1' });
      expect(res.status).toBe(200);
      expect(res.body.events).toEqual([{ type: TEST_TYPE, id: 0 }]);
    });

    it('an event of a type the queue did not register for does not wake the poll', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const { response: poll } = await startPoll(q.queueId);
      events().sendOnCommit(realmId, syntheticEvent({ type: 'other_type' }), [HAMLET_ID]);
      events().sendOnCommit(realmId, syntheticEvent({ type: TEST_TYPE, n: 2 }), [HAMLET_ID]);
      const res = await poll;
      expect(res.body.events).toEqual([{ type: TEST_TYPE, n: 2, id: 0 }]);
    });

    it('DELETE /events ends a parked poll', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const { response: poll } = await startPoll(q.queueId);
      const del = await t
        .http()
        .delete('/api/v1/events')
        .auth(...(await t.auth(HAMLET)))
        .query({ queue_id: q.queueId });
      expect(del.status).toBe(200);
      const res = await poll;
      expect(res.status).toBe(200);
      expect(res.body.events).toEqual([]);
    });
  });

  describe('delivery after commit', () => {
    it('an event sent inside a transaction arrives only after COMMIT', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      await runInTransaction(t.dataSource, async (manager) => {
        events().sendOnCommit(realmId, syntheticEvent({ type: TEST_TYPE, phase: 'tx' }), [HAMLET_ID]);
        await manager.query('SELECT 1');
        await tick();
        expect(await drainEvents(t, q)).toEqual([]);
      });
      await tick();
      expect(await drainEvents(t, q)).toEqual([{ type: TEST_TYPE, phase: 'tx', id: 0 }]);
    });

    it('an event sent inside a transaction that fails is never delivered', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      await expect(
        runInTransaction(t.dataSource, async () => {
          events().sendOnCommit(realmId, syntheticEvent({ type: TEST_TYPE, phase: 'rolled back' }), [HAMLET_ID]);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      await tick();
      expect(await drainEvents(t, q)).toEqual([]);
      await send({ type: TEST_TYPE, phase: 'after' });
      // The rolled-back event never took an id in the queue.
      expect(await drainEvents(t, q)).toEqual([{ type: TEST_TYPE, phase: 'after', id: 0 }]);
    });

    it('nested transactions deliver once, after the outer COMMIT', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      await runInTransaction(t.dataSource, async () => {
        await runInTransaction(t.dataSource, async () => {
          events().sendOnCommit(realmId, syntheticEvent({ type: TEST_TYPE, phase: 'inner' }), [HAMLET_ID]);
        });
        await tick();
        expect(await drainEvents(t, q)).toEqual([]);
      });
      await tick();
      expect(await drainEvents(t, q)).toEqual([{ type: TEST_TYPE, phase: 'inner', id: 0 }]);
    });
  });

  describe('DELETE /events', () => {
    it('deletes the queue; then GET /events → BAD_EVENT_QUEUE_ID', async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const res = await t
        .http()
        .delete('/api/v1/events')
        .auth(...(await t.auth(HAMLET)))
        .type('form')
        .send({ queue_id: q.queueId });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: 'success', msg: '' });
      expectMatchesOpenApi('delete', '/events', res.status, res.body);
      const gone = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '-1', dont_block: 'true' });
      expect(gone.status).toBe(400);
      expect(gone.body).toEqual({
        result: 'error',
        msg: `Bad event queue ID: ${q.queueId}`,
        code: 'BAD_EVENT_QUEUE_ID',
        queue_id: q.queueId,
      });
    });

    it('an unknown queue → BAD_EVENT_QUEUE_ID', async () => {
      const res = await t
        .http()
        .delete('/api/v1/events')
        .auth(...(await t.auth(HAMLET)))
        .query({ queue_id: 'nope' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'Bad event queue ID: nope',
        code: 'BAD_EVENT_QUEUE_ID',
        queue_id: 'nope',
      });
      expectMatchesOpenApi('delete', '/events', res.status, res.body);
    });

    it("another user's queue is refused and survives", async () => {
      const q = await registerQueue(t, HAMLET, [TEST_TYPE]);
      const res = await t
        .http()
        .delete('/api/v1/events')
        .auth(...(await t.auth(OTHELLO)))
        .query({ queue_id: q.queueId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'You are not authorized to get events from this queue',
        code: 'BAD_REQUEST',
      });
      const still = await getEvents(HAMLET, { queue_id: q.queueId, last_event_id: '-1', dont_block: 'true' });
      expect(still.status).toBe(200);
    });

    it('a missing queue_id → REQUEST_VARIABLE_MISSING', async () => {
      const res = await t
        .http()
        .delete('/api/v1/events')
        .auth(...(await t.auth(HAMLET)));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: "Missing 'queue_id' argument",
        code: 'REQUEST_VARIABLE_MISSING',
        var_name: 'queue_id',
      });
    });
  });
});

describe('heartbeats', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ EVENTS_HEARTBEAT_MS: '200', EVENTS_HEARTBEAT_JITTER_MS: '0' });
  });
  afterAll(() => t.close());

  it('an idle long-poll ends with a heartbeat event, which is acknowledged like any event', async () => {
    const q = await registerQueue(t, HAMLET, ['message']);
    const auth = await t.auth(HAMLET);
    const res = await t
      .http()
      .get('/api/v1/events')
      .auth(...auth)
      .query({ queue_id: q.queueId, last_event_id: '-1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', events: [{ type: 'heartbeat', id: 0 }] });
    expectMatchesOpenApi('get', '/events', res.status, res.body);
    const next = await t
      .http()
      .get('/api/v1/events')
      .auth(...auth)
      .query({ queue_id: q.queueId, last_event_id: '0', dont_block: 'true' });
    expect(next.body.events).toEqual([]);
  });
});
