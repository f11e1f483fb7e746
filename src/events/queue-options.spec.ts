import type { QueueOptions } from './event-queue';
import { decodeQueueOptions, encodeQueueOptions, shareQueueOptions } from './queue-options';

const options = (over: Partial<QueueOptions> = {}): QueueOptions => ({
  userId: 10,
  realmId: 2,
  eventTypes: ['message'],
  allPublicStreams: false,
  applyMarkdown: false,
  clientGravatar: true,
  narrow: [],
  clientCapabilities: {},
  clientName: 'API',
  ...over,
});

describe('queue options', () => {
  it('shares equal parts between queues, frozen', () => {
    const a = shareQueueOptions(options({ userId: 10, clientCapabilities: { a: true, b: false } }));
    const b = shareQueueOptions(options({ userId: 11, clientCapabilities: { b: false, a: true } }));
    expect(a).toEqual(options({ userId: 10, clientCapabilities: { a: true, b: false } }));
    expect(b.userId).toBe(11);
    expect(a.eventTypes).toBe(b.eventTypes);
    expect(a.narrow).toBe(b.narrow);
    expect(a.clientCapabilities).toBe(b.clientCapabilities);
    expect(Object.isFrozen(a.eventTypes)).toBe(true);
    expect(Object.isFrozen(a.clientCapabilities)).toBe(true);
    const narrowed = shareQueueOptions(options({ narrow: [['stream', 'Denmark']] }));
    expect(narrowed.narrow).toEqual([['stream', 'Denmark']]);
    expect(narrowed.narrow).not.toBe(a.narrow);
    expect(shareQueueOptions(options({ eventTypes: null })).eventTypes).toBeNull();
  });

  it('stores a typical queue in a few bytes and reads back what was stored', () => {
    expect(encodeQueueOptions(options())).toBe('{"t":["message"]}');
    const all = options({
      eventTypes: null,
      allPublicStreams: true,
      applyMarkdown: true,
      clientGravatar: false,
      narrow: [['is', 'dm']],
      clientCapabilities: { empty_topic_name: true },
      clientName: 'ZulipMobile',
    });
    for (const o of [options(), all, options({ eventTypes: [] })]) {
      expect(decodeQueueOptions(encodeQueueOptions(o), o.userId, o.realmId)).toEqual(o);
    }
  });

  it('reads the full JSON that earlier versions stored', () => {
    const o = options({ userId: 7, realmId: 3, narrow: [['topic', 'x']] });
    expect(decodeQueueOptions(JSON.stringify(o), 0, 0)).toEqual(o);
  });
});
