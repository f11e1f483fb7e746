import { eventJson, eventJsonKey, eventsJson, shareJson, storedEvent } from './event-json';

describe('event JSON', () => {
  const dict = shareJson({ id: 7, content: '<p>é "quoted" \u2028</p>', sender_id: 3, reactions: [], topic_links: [] });
  const events = [
    { type: 'message', message: dict, flags: ['read'], id: 0 },
    { type: 'message', message: dict, flags: [], local_message_id: undefined, id: 1 },
    { type: 'message', message: dict, flags: ['mentioned'], local_message_id: '12.01', id: 2 },
    { type: 'heartbeat', id: 3 },
    { type: 'x', f: () => 1, s: Symbol('s'), n: null, nested: { a: [1, undefined, 'b'] }, id: 4 },
  ];

  it('is exactly JSON.stringify, shared values spliced', () => {
    for (const e of events) expect(eventJson(e)).toBe(JSON.stringify(e));
    // Again: the shared dict's JSON is now cached.
    for (const e of events) expect(eventJson(e)).toBe(JSON.stringify(e));
    expect(eventsJson(events)).toBe(JSON.stringify(events));
    expect(eventsJson([])).toBe('[]');
    expect(eventJson({})).toBe('{}');
    expect(eventJson({ toJSON: () => ({ a: 1 }) })).toBe('{"a":1}');
  });

  it('reads stored events back with their JSON known', () => {
    for (const e of events) {
      const { id, ...rest } = e;
      const stored = eventJson(rest);
      const read = storedEvent(stored, id);
      expect(read).toEqual(JSON.parse(JSON.stringify(e)));
      expect(eventJson(read)).toBe(JSON.stringify(read));
    }
    // A stored event with an `id` of its own keeps the field in its place.
    const own = storedEvent('{"type":"t","id":5,"z":1}', 9);
    expect(eventJson(own)).toBe(JSON.stringify(own));
    expect(eventJson(own)).toBe('{"type":"t","id":9,"z":1}');
  });
  it('keys events alike only when their JSON is alike', () => {
    const other = shareJson({ id: 8, content: 'x' });
    const same = { id: 7, content: '<p>é "quoted" \u2028</p>', sender_id: 3, reactions: [], topic_links: [] };
    const all: object[] = [
      ...events,
      { type: 'message', message: dict, flags: ['read'], id: 0 },
      { type: 'message', message: other, flags: ['read'], id: 0 },
      { type: 'message', message: same, flags: ['read'], id: 0 },
      { type: 'message', message: dict, flags: ['read'], id: 0, extra: undefined },
      { type: 'message', message: dict, flags: ['read'] },
      { type: 'message', message: dict, flags: 'read', id: 0 },
      storedEvent(eventJson({ type: 'message', message: dict, flags: ['read'] }), 0),
      {},
    ];
    for (const a of all) {
      for (const b of all) {
        // `same` is not shared: its key is its JSON, different from the shared dict's token.
        const sameJson = eventJson(a) === eventJson(b);
        const sameKey = eventJsonKey(a) === eventJsonKey(b);
        if (sameKey) expect(sameJson).toBe(true);
        if (!sameJson) expect(sameKey).toBe(false);
      }
    }
    expect(eventJsonKey(events[0])).toBe(eventJsonKey({ type: 'message', message: dict, flags: ['read'], id: 0 }));
    expect(eventJsonKey(events[0]).length).toBeLessThan(60);
  });
});
