import type { Response } from 'supertest';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import type { TestApp } from '../../helpers/test-app';

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** Form-encodes params the way Zulip clients do: strings as-is, everything else as JSON. */
export function encodeParams(params: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

/** An authenticated API call (GET: query string; others: urlencoded body). */
export async function call(
  t: TestApp,
  method: Method,
  path: string,
  email: string,
  params: Record<string, unknown> = {},
): Promise<Response> {
  const url = `/api/v1${path}`;
  const encoded = encodeParams(params);
  const auth = await t.auth(email);
  if (method === 'get')
    return t
      .http()
      .get(url)
      .auth(...auth)
      .query(encoded);
  return t
    .http()
    [method](url)
    .auth(...auth)
    .type('form')
    .send(encoded);
}

/** The id of a channel by name, read from the database. */
export async function channelId(t: TestApp, name: string): Promise<number> {
  const rows = await t.dataSource.query<
    Array<{
      id: number;
    }>
  >(`SELECT id FROM stream WHERE upper(name) = upper($1)`, [name]);
  if (rows.length === 0) throw new Error(`no channel ${name}`);
  return rows[0].id;
}

export async function userId(t: TestApp, email: string): Promise<number> {
  const rows = await t.dataSource.query<
    Array<{
      id: number;
    }>
  >(`SELECT id FROM user_profile WHERE lower(delivery_email) = lower($1)`, [email]);
  if (rows.length === 0) throw new Error(`no user ${email}`);
  return rows[0].id;
}

export async function systemGroupId(t: TestApp, name: string): Promise<number> {
  const rows = await t.dataSource.query<Array<{ id: number }>>(
    `SELECT g.id FROM user_group g JOIN realm r ON r.id = g.realm_id WHERE r.string_id = 'zulip' AND g.name = $1`,
    [name],
  );
  return rows[0].id;
}

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

export function expectError(res: Response, status: number, msg: string, code = 'BAD_REQUEST'): void {
  expect({ status: res.status, body: res.body as unknown }).toEqual({
    status,
    body: expect.objectContaining({ result: 'error', msg, code }),
  });
}

export function expectSuccess(res: Response): void {
  expect({ status: res.status, body: res.body as unknown }).toEqual({
    status: 200,
    body: expect.objectContaining({ result: 'success', msg: '' }),
  });
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
