import { describeBackendContract } from '../../test/helpers/event-backend-contract';
import { InMemoryEventQueues } from './in-memory-event-queues';

describeBackendContract('in-process queues', (opts) => new InMemoryEventQueues(opts));

describe('in-process queues: a delivery finished over several turns of the loop', () => {
  const realm = 2;
  const options = (userId: number) => ({
    userId,
    realmId: realm,
    eventTypes: null,
    allPublicStreams: false,
    applyMarkdown: false,
    clientGravatar: true,
    narrow: [],
    clientCapabilities: {},
    clientName: 'test',
  });
  const noClose = () => undefined;
  // One recipient per turn: everything but the first waits for later turns.
  let backend: InMemoryEventQueues;
  let ids: Map<number, string>;
  const users = [1, 2, 3, 4, 5];
  const peek = (userId: number) => backend.registry.get(ids.get(userId)!)!.pending();
  const read = (userId: number, last = -1) => backend.getEvents(userId, ids.get(userId)!, last, true, 60_000, noClose);

  beforeEach(async () => {
    backend = new InMemoryEventQueues({ syncRecipients: 1, sliceMs: 0 });
    ids = new Map();
    for (const u of users) ids.set(u, (await backend.allocate(options(u))).id);
  });
  afterEach(() => backend.close());

  it('reaches the first recipients at once, the others in later turns, each once', async () => {
    backend.deliverNow(realm, { type: 't', n: 1 }, users);
    expect(peek(1)).toEqual([{ type: 't', n: 1, id: 0 }]);
    expect(peek(5)).toEqual([]);
    await backend.drained();
    for (const u of users) expect(peek(u)).toEqual([{ type: 't', n: 1, id: 0 }]);
  });

  it('a read of a queue completes what is owed to its user first, in order, and only once', async () => {
    backend.deliverNow(realm, { type: 't', n: 1 }, users);
    backend.deliverNow(realm, { type: 't', n: 2 }, [5, 3]);
    expect(peek(5)).toEqual([]);
    await expect(read(5)).resolves.toEqual([
      { type: 't', n: 1, id: 0 },
      { type: 't', n: 2, id: 1 },
    ]);
    await backend.drained();
    expect(peek(5)).toEqual([
      { type: 't', n: 1, id: 0 },
      { type: 't', n: 2, id: 1 },
    ]);
    expect(peek(3)).toEqual([
      { type: 't', n: 1, id: 0 },
      { type: 't', n: 2, id: 1 },
    ]);
    expect(peek(4)).toEqual([{ type: 't', n: 1, id: 0 }]);
  });

  it('a queue registered while a delivery is under way does not get its event', async () => {
    backend.deliverNow(realm, { type: 't', n: 1 }, users);
    const fresh = await backend.allocate(options(4));
    expect(peek(4)).toEqual([{ type: 't', n: 1, id: 0 }]);
    await backend.drained();
    await expect(backend.getEvents(4, fresh.id, -1, true, 60_000, noClose)).resolves.toEqual([]);
    expect(peek(4)).toEqual([{ type: 't', n: 1, id: 0 }]);
  });

  it('answers the polls parked on queues reached in later turns', async () => {
    const answers: unknown[] = [];
    for (const u of [4, 5]) {
      await expect(
        backend.getEvents(u, ids.get(u)!, -1, false, 60_000, noClose, (events) => answers.push([u, events])),
      ).resolves.toBeNull();
    }
    backend.deliverNow(realm, { type: 't', n: 1 }, users);
    await backend.drained();
    await new Promise((r) => setImmediate(r));
    expect(answers).toEqual([
      [4, [{ type: 't', n: 1, id: 0 }]],
      [5, [{ type: 't', n: 1, id: 0 }]],
    ]);
  });
});
