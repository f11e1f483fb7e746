import { EventsService } from '../../../src/events/events.service';
import { call, Method } from '../../helpers/api';
import { expectMatchesOpenApi, expectRegisterMatchesOpenApi } from '../../helpers/openapi';
import type { TestApp } from '../../helpers/test-app';

export {
  call,
  CORDELIA,
  DESDEMONA,
  encodeParams as encode,
  HAMLET,
  IAGO,
  type Method,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  SHIVA,
} from '../../helpers/api';
export { expectRegisterMatchesOpenApi };

/** A successful call's body (throws with the response otherwise). */
export async function ok(
  t: TestApp,
  method: Method,
  path: string,
  email: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const res = await call(t, method, path, email, params);
  if (res.status !== 200) throw new Error(`${method.toUpperCase()} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
}

/** POST /register, checked against the OpenAPI document. */
export async function register(
  t: TestApp,
  email: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const body = await ok(t, 'post', '/register', email, params);
  expectRegisterMatchesOpenApi(body);
  return body;
}

/** The events waiting in a queue (no long-poll), heartbeats left out. */
export async function queuedEvents(
  t: TestApp,
  email: string,
  queueId: string,
): Promise<Array<Record<string, unknown> & { type: string }>> {
  await t.app.get(EventsService).flush();
  const res = await call(t, 'get', '/events', email, { queue_id: queueId, last_event_id: -1, dont_block: true });
  if (res.status !== 200) throw new Error(`GET /events: ${res.status} ${JSON.stringify(res.body)}`);
  expectMatchesOpenApi('get', '/events', 200, res.body);
  return (res.body as { events: Array<Record<string, unknown> & { type: string }> }).events.filter(
    (e) => e.type !== 'heartbeat',
  );
}

export async function userId(t: TestApp, email: string): Promise<number> {
  const rows = await t.dataSource.query<Array<{ id: number }>>(
    `SELECT u.id FROM user_profile u JOIN realm r ON r.id = u.realm_id
      WHERE r.string_id = 'zulip' AND lower(u.delivery_email) = lower($1)`,
    [email],
  );
  if (rows.length === 0) throw new Error(`no user ${email}`);
  return rows[0].id;
}

export async function channelId(t: TestApp, name: string): Promise<number> {
  const rows = await t.dataSource.query<Array<{ id: number }>>(
    `SELECT s.id FROM stream s JOIN realm r ON r.id = s.realm_id WHERE r.string_id = 'zulip' AND s.name = $1`,
    [name],
  );
  if (rows.length === 0) throw new Error(`no channel ${name}`);
  return rows[0].id;
}

export async function groupId(t: TestApp, name: string): Promise<number> {
  const rows = await t.dataSource.query<Array<{ id: number }>>(
    `SELECT g.id FROM user_group g JOIN realm r ON r.id = g.realm_id WHERE r.string_id = 'zulip' AND g.name = $1`,
    [name],
  );
  if (rows.length === 0) throw new Error(`no group ${name}`);
  return rows[0].id;
}
