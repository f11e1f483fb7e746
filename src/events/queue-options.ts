import type { QueueOptions } from './event-queue';

/**
 * Registration options shared between queues. Most clients register with the same event types,
 * narrow, capabilities and client name, so each distinct value is kept once (frozen: a queue
 * never changes what it asked for) and the queues point at it: an idle queue then costs its own
 * few fields, not copies of arrays and objects every other queue holds too.
 *
 * The tables are bounded: past {@link MAX_SHARED_VALUES} distinct values of a kind (clients may
 * send any capability names), further values are frozen copies that are not shared.
 */
const MAX_SHARED_VALUES = 1_000;

class SharedValues<T> {
  private readonly values = new Map<string, T>();

  get(key: string, make: () => T): T {
    const known = this.values.get(key);
    if (known !== undefined) return known;
    const value = make();
    if (this.values.size < MAX_SHARED_VALUES) this.values.set(key, value);
    return value;
  }
}

const eventTypeLists = new SharedValues<readonly string[]>();
const narrows = new SharedValues<ReadonlyArray<readonly [string, string]>>();
const capabilitySets = new SharedValues<Readonly<Record<string, boolean>>>();
const clientNames = new SharedValues<string>();

function sharedEventTypes(types: string[] | null): string[] | null {
  if (types === null) return null;
  return eventTypeLists.get(JSON.stringify(types), () => Object.freeze([...types])) as string[];
}

function sharedNarrow(narrow: Array<[string, string]>): Array<[string, string]> {
  return narrows.get(JSON.stringify(narrow), () =>
    Object.freeze(narrow.map(([operator, operand]) => Object.freeze([operator, operand] as const))),
  ) as Array<[string, string]>;
}

/** Capabilities are only ever read by name, so sets with the same entries in any order are one. */
function sharedCapabilities(capabilities: Record<string, boolean>): Record<string, boolean> {
  const entries = Object.entries(capabilities).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return capabilitySets.get(JSON.stringify(entries), () => Object.freeze(Object.fromEntries(entries)));
}

/**
 * `options` with its shareable parts replaced by the shared (frozen) equal values. The result is
 * a fresh object with exactly the fields of QueueOptions, in one order (one hidden class).
 */
export function shareQueueOptions(options: QueueOptions): QueueOptions {
  return {
    userId: options.userId,
    realmId: options.realmId,
    eventTypes: sharedEventTypes(options.eventTypes),
    allPublicStreams: options.allPublicStreams,
    applyMarkdown: options.applyMarkdown,
    clientGravatar: options.clientGravatar,
    narrow: sharedNarrow(options.narrow),
    clientCapabilities: sharedCapabilities(options.clientCapabilities),
    // A copy: the name may be a slice of the whole User-Agent header, which it would keep alive.
    clientName: clientNames.get(options.clientName, () => JSON.parse(JSON.stringify(options.clientName)) as string),
  };
}

/**
 * The compact stored form of a queue's options (Redis), without userId and realmId (kept in their
 * own fields) and without defaults, so that a typical queue's record stays small enough for
 * Redis's compact hash encoding (values of at most 64 bytes): `{"t":["message"]}` instead of
 * ~200 bytes of JSON. t: event types (absent: all), a: all_public_streams, m: apply_markdown,
 * g: client_gravatar (absent: true), n: narrow, c: client capabilities, k: client name (absent: API).
 */
interface StoredOptions {
  t?: string[];
  a?: 1;
  m?: 1;
  g?: 0;
  n?: Array<[string, string]>;
  c?: Record<string, boolean>;
  k?: string;
}

const DEFAULT_CLIENT_NAME = 'API';

export function encodeQueueOptions(o: QueueOptions): string {
  const stored: StoredOptions = {};
  if (o.eventTypes !== null) stored.t = o.eventTypes;
  if (o.allPublicStreams) stored.a = 1;
  if (o.applyMarkdown) stored.m = 1;
  if (!o.clientGravatar) stored.g = 0;
  if (o.narrow.length > 0) stored.n = o.narrow;
  if (Object.keys(o.clientCapabilities).length > 0) stored.c = o.clientCapabilities;
  if (o.clientName !== DEFAULT_CLIENT_NAME) stored.k = o.clientName;
  return JSON.stringify(stored);
}

/** Options from their stored form (or from the full JSON that earlier versions stored). */
export function decodeQueueOptions(json: string, userId: number, realmId: number): QueueOptions {
  const parsed = JSON.parse(json) as StoredOptions | QueueOptions;
  if ('userId' in parsed) return shareQueueOptions(parsed);
  return shareQueueOptions({
    userId,
    realmId,
    eventTypes: parsed.t ?? null,
    allPublicStreams: parsed.a === 1,
    applyMarkdown: parsed.m === 1,
    clientGravatar: parsed.g !== 0,
    narrow: parsed.n ?? [],
    clientCapabilities: parsed.c ?? {},
    clientName: parsed.k ?? DEFAULT_CLIENT_NAME,
  });
}
