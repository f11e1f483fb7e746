import { expectMatchesOpenApi } from '../../helpers/openapi';
import type { TestApp } from '../../helpers/test-app';

import { call } from '../../helpers/api';
export {
  call,
  channelId,
  encodeParams,
  expectError,
  expectSuccess,
  groupId as systemGroupId,
  userId,
  type Method,
} from '../../helpers/api';

/** Names of the channels `email` is actively subscribed to. */
export async function subscribedNames(t: TestApp, email: string): Promise<string[]> {
  const rows = await t.dataSource.query<Array<{ name: string }>>(
    `SELECT s.name FROM subscription sub JOIN stream s ON s.recipient_id = sub.recipient_id
       JOIN user_profile u ON u.id = sub.user_profile_id
      WHERE lower(u.delivery_email) = lower($1) AND sub.active ORDER BY s.name`,
    [email],
  );
  return rows.map((r) => r.name);
}

export interface EventQueue {
  email: string;
  queueId: string;
  lastEventId: number;
}

/** POST /register for `email` with only `eventTypes` (and optional client capabilities). */
export async function openQueue(
  t: TestApp,
  email: string,
  eventTypes: string[],
  capabilities: Record<string, boolean> = {},
): Promise<EventQueue> {
  const res = await call(t, 'post', '/register', email, {
    event_types: eventTypes,
    fetch_event_types: [],
    client_capabilities: capabilities,
  });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as { queue_id: string; last_event_id: number };
  return { email, queueId: body.queue_id, lastEventId: body.last_event_id };
}

/**
 * Events waiting in the queue (no long-poll), acknowledging what was read. The whole GET /events
 * response is validated against Zulip's OpenAPI event schemas.
 */
export async function takeEvents(t: TestApp, q: EventQueue): Promise<Array<Record<string, unknown>>> {
  const res = await call(t, 'get', '/events', q.email, {
    queue_id: q.queueId,
    last_event_id: q.lastEventId,
    dont_block: true,
  });
  if (res.status !== 200) throw new Error(`events failed: ${res.status} ${JSON.stringify(res.body)}`);
  expectMatchesOpenApi('get', '/events', 200, res.body);
  const events = (res.body as { events: Array<Record<string, unknown> & { id: number }> }).events;
  if (events.length > 0) q.lastEventId = events[events.length - 1].id;
  return events.filter((e) => e.type !== 'heartbeat').map(({ id: _id, ...rest }) => rest);
}

/** POST /register body checked against Zulip's OpenAPI; the service_* keys (DECISIONS #2) aside. */
export function expectRegisterMatchesOpenApi(body: unknown): void {
  const copy = { ...(body as Record<string, unknown>) };
  for (const key of ['service_feature_level', 'service_version', 'service_merge_base']) delete copy[key];
  expectMatchesOpenApi('post', '/register', 200, copy);
}
