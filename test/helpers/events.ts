import type { ClientEvent } from '../../src/events/client-events';
import type { EventCustomizer, QueueInfo } from '../../src/events/events.service';
import { call } from './api';
import { expectMatchesOpenApi } from './openapi';
import type { TestApp } from './test-app';

export interface Queue {
  email: string;
  queueId: string;
  lastEventId: number;
}

/**
 * Registers an event queue for `email` (POST /register with only the given event types, fetching
 * no state; `extra`: more register parameters such as client_capabilities or apply_markdown).
 */
export async function registerQueue(
  t: TestApp,
  email: string,
  eventTypes?: string[],
  extra: Record<string, unknown> = {},
): Promise<Queue> {
  const params = eventTypes ? { event_types: eventTypes, fetch_event_types: [], ...extra } : extra;
  const res = await call(t, 'post', '/register', email, params);
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as { queue_id: string; last_event_id: number };
  return { email, queueId: body.queue_id, lastEventId: body.last_event_id };
}

/** Events waiting in the queue (no long-poll), acknowledging what was read before. */
export async function drainEvents(t: TestApp, q: Queue, validate = false): Promise<Array<Record<string, unknown>>> {
  const res = await call(t, 'get', '/events', q.email, {
    queue_id: q.queueId,
    last_event_id: q.lastEventId,
    dont_block: true,
  });
  if (res.status !== 200) throw new Error(`events failed: ${res.status} ${JSON.stringify(res.body)}`);
  if (validate) expectMatchesOpenApi('get', '/events', 200, res.body);
  const events = (res.body as { events: Array<Record<string, unknown> & { id: number }> }).events;
  if (events.length > 0) q.lastEventId = events[events.length - 1].id;
  return events.filter((e) => e.type !== 'heartbeat');
}

/**
 * Events waiting in the queue without their ids, acknowledging what was read. The whole GET
 * /events response is validated against Zulip's OpenAPI event schemas unless `validate` is false.
 */
export async function takeEvents(t: TestApp, q: Queue, validate = true): Promise<Array<Record<string, unknown>>> {
  return (await drainEvents(t, q, validate)).map(({ id: _id, ...rest }) => rest);
}

/**
 * A synthetic event (a made-up type such as `foundation_test`) for tests of the queue machinery
 * itself. The server's own events are typed by ClientEvent (src/events/client-events.ts); these
 * are not, so they are cast at this one place.
 */
export function syntheticEvent(event: { type: string } & Record<string, unknown>): ClientEvent {
  return event as unknown as ClientEvent;
}

/** A per-queue customizer returning synthetic events (see {@link syntheticEvent}). */
export function syntheticCustomizer(
  customize: ((queue: QueueInfo, userId: number) => { type: string } & Record<string, unknown>) | undefined,
): EventCustomizer | undefined {
  return customize && ((queue, userId) => syntheticEvent(customize(queue, userId)));
}
