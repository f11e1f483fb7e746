/**
 * The core of verify_action (zerver/tests/test_events.py), shared by the API tier
 * (test/api/register/verify-actions.e2e-spec.ts: /register and /events over HTTP) and the service
 * tier (test/service/harness.ts: RegisterService and EventsService called directly).
 *
 * For each client profile: take a /register snapshot, run the action, apply the events queued for
 * that snapshot's queue as a client would (apply-events.ts, after Zulip's apply_event), take a
 * fresh snapshot, and compare. A difference is a bug in the events or in the state the server
 * computes. How snapshots and events are obtained is the caller's {@link VerifyDriver}.
 */
import { applyEvents, ApplyContext, keysRecomputedByServer, normalizeState, State } from './apply-events';

export type { State };
export type Events = Array<Record<string, unknown> & { type: string }>;

/** A client's register parameters and what they mean for applying events. */
export interface Profile {
  name: string;
  params: Record<string, unknown>;
  ctx: Omit<ApplyContext, 'userId'>;
}

/** zulip-flutter's client_capabilities at /register. */
export const FLUTTER_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: true,
  user_settings_object: true,
  include_deactivated_groups: true,
  empty_topic_name: true,
};

/**
 * Every action is checked for three client profiles (one queue each): zulip-flutter's register
 * parameters, a "modern" client with every capability and subscriber lists, and a legacy client
 * with no capabilities (as zulip-terminal registers, with subscribers).
 */
export const PROFILES: Profile[] = [
  {
    name: 'flutter',
    params: {
      apply_markdown: true,
      slim_presence: true,
      client_gravatar: false,
      client_capabilities: FLUTTER_CAPABILITIES,
    },
    ctx: {
      includeSubscribers: false,
      clientGravatar: false,
      emptyTopicName: true,
      includeDeactivatedGroups: true,
      notificationSettingsNull: true,
    },
  },
  {
    name: 'modern',
    params: {
      apply_markdown: true,
      client_gravatar: true,
      include_subscribers: 'true',
      client_capabilities: {
        ...FLUTTER_CAPABILITIES,
        archived_channels: true,
        user_list_incomplete: true,
        linkifier_url_template: true,
      },
    },
    ctx: {
      includeSubscribers: true,
      clientGravatar: true,
      emptyTopicName: true,
      includeDeactivatedGroups: true,
      notificationSettingsNull: true,
      userListIncomplete: true,
    },
  },
  {
    name: 'legacy',
    params: { apply_markdown: true, client_gravatar: true, include_subscribers: 'true' },
    ctx: {
      includeSubscribers: true,
      clientGravatar: true,
      emptyTopicName: false,
      includeDeactivatedGroups: false,
      notificationSettingsNull: false,
    },
  },
];

/** What a verified action is expected to emit. */
export interface VerifyOptions {
  /** Event types that must be among the events of every profile that gets events. */
  expectedEvents?: string[];
  /** The action emits nothing for this user. */
  noEvents?: boolean;
  /** Only these profiles get events (the others none). */
  eventsOnlyFor?: string[];
}

/** How one tier registers the observing user and reads a queue. */
export interface VerifyDriver {
  /** The observing user's id. */
  userId: number;
  /** A /register snapshot (with a fresh queue) for these register parameters. */
  register(params: Record<string, unknown>): Promise<State>;
  /** The events waiting in the snapshot's queue, heartbeats left out. */
  queuedEvents(snapshot: State): Promise<Events>;
}

/** Key-order-independent JSON. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The paths where two states differ, with both values (short). */
export function diff(a: unknown, b: unknown, path: string, out: string[]): void {
  if (canonical(a) === canonical(b)) return;
  const short = (v: unknown) => (v === undefined ? '(absent)' : canonical(v).slice(0, 300));
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path}: ${a.length} items ≠ ${b.length} items`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) diff(a[i], b[i], `${path}[${i}]`, out);
    if (a.length !== b.length) out.push(`  hybrid ${short(a)}\n  fresh  ${short(b)}`);
    return;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], path ? `${path}.${k}` : k, out);
    }
    return;
  }
  out.push(`${path}: ${short(a)} ≠ ${short(b)}`);
}

/** Fails, listing the differences, unless the updated snapshot equals the fresh one. */
export function expectSameState(profile: string, hybrid: State, fresh: State, events: Events): void {
  const lines: string[] = [];
  diff(hybrid, fresh, '', lines);
  if (lines.length === 0) return;
  throw new Error(
    `[${profile}] state after applying the events differs from a fresh /register (hybrid ≠ fresh):\n` +
      `${lines.slice(0, 40).join('\n')}\nevents: ${JSON.stringify(events).slice(0, 3000)}`,
  );
}

/**
 * Registers the driver's user once per profile, runs `action`, applies each queue's events to its
 * snapshot, and compares with a fresh snapshot. `onEvents` sees each profile's events (coverage
 * bookkeeping). Returns the events of the first profile.
 */
export async function verifyActionWith(
  driver: VerifyDriver,
  action: () => Promise<unknown>,
  opts: VerifyOptions = {},
  onEvents?: (events: Events) => void,
  profiles: Profile[] = PROFILES,
): Promise<Events> {
  const before: State[] = [];
  for (const p of profiles) before.push(await driver.register(p.params));
  await action();
  let first: Events = [];
  for (const [i, p] of profiles.entries()) {
    const snapshot = before[i];
    const events = await driver.queuedEvents(snapshot);
    if (i === 0) first = events;
    onEvents?.(events);
    const expectsEvents = opts.eventsOnlyFor ? opts.eventsOnlyFor.includes(p.name) : !opts.noEvents;
    if (expectsEvents || opts.eventsOnlyFor) {
      expect({ profile: p.name, events: events.length > 0 }).toEqual({ profile: p.name, events: expectsEvents });
    }
    for (const type of expectsEvents ? (opts.expectedEvents ?? []) : []) {
      expect({ profile: p.name, types: events.map((e) => e.type) }).toEqual({
        profile: p.name,
        types: expect.arrayContaining([type]),
      });
    }
    const hybrid = applyEvents(structuredClone(snapshot), events, { ...p.ctx, userId: driver.userId });
    const fresh = await driver.register(p.params);
    // What Zulip's apply_event itself re-reads from the database (deletions).
    for (const key of keysRecomputedByServer(events)) hybrid[key] = fresh[key];
    expectSameState(p.name, normalizeState(hybrid), normalizeState(fresh), events);
  }
  return first;
}
