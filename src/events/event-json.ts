/**
 * JSON of events as GET /events answers them, with the parts shared by many queues serialised
 * once (issue 15: one message to 10,000 parked long-polls serialised its message dict 10,000 times,
 * the largest part of each answer).
 *
 * A value marked with {@link shareJson} (the message dict of a message event, one object for every
 * queue with the same client options) is serialised the first time an event holding it is, and its
 * JSON is spliced into every other event holding it. The output is exactly JSON.stringify's: the
 * same keys in the same order, values that JSON.stringify omits (undefined, functions, symbols)
 * omitted. A shared value must not change once an event holding it is queued (queued events are
 * never changed: they are shared by queues already).
 */

/** Shared values → their JSON (null until first serialised). Weak: gone with the events. */
const shared = new WeakMap<object, string | null>();

/** Shared values → a short token standing for them in {@link eventJsonKey} (made when first asked). */
const sharedTokens = new WeakMap<object, string>();
let nextToken = 0;

/** Marks `value` as shared by the events of many queues (see above); returns it. */
export function shareJson<T extends object>(value: T): T {
  if (!shared.has(value)) shared.set(value, null);
  return value;
}

function valueJson(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object') {
    const json = shared.get(value);
    if (json !== undefined) {
      if (json !== null) return json;
      const made = JSON.stringify(value);
      shared.set(value, made);
      return made;
    }
  }
  return JSON.stringify(value);
}

/** Events whose whole JSON is known already (read from Redis as JSON) → that JSON. */
const known = new WeakMap<object, string>();

/**
 * An event read back from its stored JSON: `stored` is eventJson of the event without its `id`,
 * `id` the queue's id for it; returns the event ({...parsed, id}) with its JSON known, so that
 * answering a poll with it does not serialise it again. The event must not be changed afterwards.
 */
export function storedEvent(
  stored: string,
  id: number,
  parsedCache?: Map<string, { type: string; [key: string]: unknown }>,
): { id: number; type: string; [key: string]: unknown } {
  // `parsedCache`: the events of one delivery read back for many queues are mostly the same JSON
  // (a message's event differs by its flags only); it is parsed once and each queue's event is a
  // shallow copy (events are never changed once queued, so sharing their parts is safe).
  let parsed = parsedCache?.get(stored);
  if (parsed === undefined) {
    parsed = JSON.parse(stored) as { type: string; [key: string]: unknown };
    parsedCache?.set(stored, parsed);
  }
  const event = { ...parsed, id };
  // {...parsed, id} puts `id` last unless the stored event had one (then it keeps its place).
  if (!Object.prototype.hasOwnProperty.call(parsed, 'id') && stored.endsWith('}') && stored !== '{}') {
    known.set(event, `${stored.slice(0, -1)},"id":${JSON.stringify(id)}}`);
  }
  return event;
}

/** Top-level keys of events → `"key":` (JSON.stringify(key) + ':'), for the few keys events have. */
const keyPrefixes = new Map<string, string>();
const MAX_KEY_PREFIXES = 1000;

function keyPrefix(key: string): string {
  let prefix = keyPrefixes.get(key);
  if (prefix === undefined) {
    prefix = `${JSON.stringify(key)}:`;
    if (keyPrefixes.size < MAX_KEY_PREFIXES) keyPrefixes.set(key, prefix);
  }
  return prefix;
}

/** JSON.stringify(event), with the shared values of its top level spliced in. */
export function eventJson(event: object): string {
  const whole = known.get(event);
  if (whole !== undefined) return whole;
  if (typeof (event as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(event);
  let out = '';
  for (const key in event) {
    if (!Object.prototype.hasOwnProperty.call(event, key)) continue;
    const value = (event as Record<string, unknown>)[key];
    // Integers (an event's id, most of its numbers) as JSON.stringify writes them, without the call.
    const json = typeof value === 'number' && Number.isSafeInteger(value) ? `${value}` : valueJson(value);
    if (json === undefined) continue;
    out += out === '' ? `{${keyPrefix(key)}${json}` : `,${keyPrefix(key)}${json}`;
  }
  return out === '' ? '{}' : `${out}}`;
}

/**
 * A short string such that events with the same key have the same {@link eventJson}: eventJson
 * with each shared value's JSON replaced by a token for that value (a control character, which
 * JSON text never holds raw, and a number). Equal values that are different shared objects get
 * different keys. For finding the events of a delivery that are the same without making (and
 * comparing) their JSON, which is mostly the shared message dict.
 */
export function eventJsonKey(event: object): string {
  if (known.has(event) || typeof (event as { toJSON?: unknown }).toJSON === 'function') return eventJson(event);
  let out = '';
  for (const key in event) {
    if (!Object.prototype.hasOwnProperty.call(event, key)) continue;
    const value = (event as Record<string, unknown>)[key];
    let json: string | undefined;
    if (typeof value === 'number' && Number.isSafeInteger(value)) json = `${value}`;
    else if (value !== null && typeof value === 'object' && shared.has(value)) {
      json = sharedTokens.get(value);
      if (json === undefined) {
        json = `\u0000${nextToken++}`;
        sharedTokens.set(value, json);
      }
    } else json = JSON.stringify(value);
    if (json === undefined) continue;
    out += out === '' ? `{${keyPrefix(key)}${json}` : `,${keyPrefix(key)}${json}`;
  }
  return out === '' ? '{}' : `${out}}`;
}

/** JSON.stringify(events) for an array of events. */
export function eventsJson(events: readonly object[]): string {
  if (events.length === 0) return '[]';
  let out = '[';
  for (let i = 0; i < events.length; i++) {
    if (i > 0) out += ',';
    out += eventJson(events[i]);
  }
  return `${out}]`;
}
