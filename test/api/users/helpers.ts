import type { Response } from 'supertest';
import { drainEvents, Queue, registerQueue } from '../../helpers/events';
import { expectMatchesOpenApi, findOpenApiOperation } from '../../helpers/openapi';
import type { TestApp } from '../../helpers/test-app';

export type Method = 'get' | 'post' | 'patch' | 'delete';

export const IAGO = 'iago@zulip.com';
export const DESDEMONA = 'desdemona@zulip.com';
export const SHIVA = 'shiva@zulip.com';
export const HAMLET = 'hamlet@zulip.com';
export const OTHELLO = 'othello@zulip.com';
export const CORDELIA = 'cordelia@zulip.com';
export const PROSPERO = 'prospero@zulip.com';
export const POLONIUS = 'polonius@zulip.com';
export const AARON = 'AARON@zulip.com';
export const ZOE = 'ZOE@zulip.com';
export const DEFAULT_BOT = 'default-bot@zulip.com';

/** Form-encodes params the way Zulip clients do: strings as-is, everything else as JSON. */
export function encode(params: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

/** An authenticated API call: GET parameters in the query string, others as a form body. */
export async function api(
  t: TestApp,
  method: Method,
  path: string,
  email: string,
  params: Record<string, unknown> = {},
): Promise<Response> {
  const url = `/api/v1${path}`;
  const auth = await t.auth(email);
  if (method === 'get')
    return t
      .http()
      .get(url)
      .auth(...auth)
      .query(encode(params));
  return t
    .http()
    [method](url)
    .auth(...auth)
    .type('form')
    .send(encode(params));
}

/** Checks the body against Zulip's OpenAPI document when it documents the operation. */
export function checkShape(method: Method, path: string, res: Response): void {
  if (findOpenApiOperation(method, path)) expectMatchesOpenApi(method, path, res.status, res.body);
}

export function expectSuccess(res: Response, method: Method, path: string): Record<string, unknown> {
  if (res.status !== 200) throw new Error(`expected success, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body).toMatchObject({ result: 'success', msg: '' });
  checkShape(method, path, res);
  return res.body as Record<string, unknown>;
}

export function expectError(
  res: Response,
  method: Method,
  path: string,
  msg: string,
  code = 'BAD_REQUEST',
  status = 400,
): void {
  expect({
    status: res.status,
    code: (res.body as { code?: string }).code,
    msg: (res.body as { msg?: string }).msg,
  }).toEqual({
    status,
    code,
    msg,
  });
  expect((res.body as { result?: string }).result).toBe('error');
  checkShape(method, path, res);
}

/** Events waiting in `q`, each validated against the OpenAPI event schemas of GET /events. */
export async function events(t: TestApp, q: Queue): Promise<Array<Record<string, unknown>>> {
  const evs = await drainEvents(t, q);
  expectMatchesOpenApi('get', '/events', 200, { result: 'success', msg: '', events: evs });
  return evs.map((e) => {
    const { id: _id, ...rest } = e;
    return rest;
  });
}

export async function queue(t: TestApp, email: string, eventTypes?: string[]): Promise<Queue> {
  return registerQueue(t, email, eventTypes);
}

export async function userId(t: TestApp, email: string): Promise<number> {
  const rows = await t.dataSource.query<Array<{ id: number }>>(
    `SELECT id FROM user_profile WHERE lower(delivery_email) = lower($1)`,
    [email],
  );
  if (rows.length === 0) throw new Error(`no user ${email}`);
  return rows[0].id;
}

/** Id of a named group (system groups included) of the demo realm. */
export async function groupId(t: TestApp, name: string): Promise<number> {
  const rows = await t.dataSource.query<Array<{ id: number }>>(
    `SELECT g.id FROM user_group g JOIN realm r ON r.id = g.realm_id WHERE r.string_id = 'zulip' AND g.name = $1`,
    [name],
  );
  if (rows.length === 0) throw new Error(`no group ${name}`);
  return rows[0].id;
}
