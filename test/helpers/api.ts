import type { Response } from 'supertest';
import { expectMatchesOpenApi, findOpenApiOperation } from './openapi';
import type { TestApp } from './test-app';

/** Shared helpers for API tests: demo-realm users, form encoding, authenticated calls, lookups. */

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

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
export function encodeParams(params: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

/** An authenticated API call (GET: query string; others: urlencoded body), with extra headers. */
export async function call(
  t: TestApp,
  method: Method,
  path: string,
  email: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  realm?: string,
): Promise<Response> {
  const url = `/api/v1${path}`;
  const encoded = encodeParams(params);
  const auth = await t.auth(email, realm);
  let req =
    method === 'get'
      ? t
          .http()
          .get(url)
          .auth(...auth)
          .query(encoded)
      : t
          .http()
          [method](url)
          .auth(...auth)
          .type('form');
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  return method === 'get' ? req : req.send(encoded);
}

/** {@link call} as a user of another realm, on that realm's host (`<realm>.zulip.testserver`). */
export function callInRealm(
  t: TestApp,
  realm: string,
  method: Method,
  path: string,
  email: string,
  params: Record<string, unknown> = {},
): Promise<Response> {
  return call(t, method, path, email, params, { Host: `${realm}.zulip.testserver` }, realm);
}

/** The id of a channel by name, read from the database. */
export async function channelId(t: TestApp, name: string): Promise<number> {
  const rows = await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM stream WHERE upper(name) = upper($1)`, [
    name,
  ]);
  if (rows.length === 0) throw new Error(`no channel ${name}`);
  return rows[0].id;
}

/** The id of a user by delivery email (the newest, if several realms have it). */
export async function userId(t: TestApp, email: string): Promise<number> {
  const rows = await t.dataSource.query<Array<{ id: number }>>(
    `SELECT id FROM user_profile WHERE lower(delivery_email) = lower($1) ORDER BY id DESC`,
    [email],
  );
  if (rows.length === 0) throw new Error(`no user ${email}`);
  return rows[0].id;
}

/** The id of a named group (system groups included) of a realm (default: the demo realm). */
export async function groupId(t: TestApp, name: string, realm = 'zulip'): Promise<number> {
  const rows = await t.dataSource.query<Array<{ id: number }>>(
    `SELECT g.id FROM user_group g JOIN realm r ON r.id = g.realm_id WHERE r.string_id = $2 AND g.name = $1`,
    [name, realm],
  );
  if (rows.length === 0) throw new Error(`no group ${name}`);
  return rows[0].id;
}

/** The ids of a realm's system groups (default: the demo realm), by name without `role:`. */
export async function systemGroupIds(t: TestApp, realm = 'zulip'): Promise<Record<string, number>> {
  const rows = await t.dataSource.query<Array<{ id: number; name: string }>>(
    `SELECT g.id, g.name FROM user_group g JOIN realm r ON r.id = g.realm_id
      WHERE r.string_id = $1 AND g.is_system_group AND g.name LIKE 'role:%'`,
    [realm],
  );
  return Object.fromEntries(rows.map((r) => [r.name.slice('role:'.length), r.id]));
}

/** Checks the body against Zulip's OpenAPI document when it documents the operation. */
export function checkShape(method: Method, path: string, res: Response): void {
  if (findOpenApiOperation(method, path)) expectMatchesOpenApi(method, path, res.status, res.body);
}

/**
 * Asserts an error envelope: status, `result: "error"`, message and code. Two forms:
 * `expectError(res, status, msg, code?)`, or `expectError(res, method, path, msg, code?, status?)`
 * which also checks the body against Zulip's document for `method path` (status 400 unless given).
 */
export function expectError(res: Response, status: number, msg: string, code?: string): void;
export function expectError(
  res: Response,
  method: Method,
  path: string,
  msg: string,
  code?: string,
  status?: number,
): void;
export function expectError(
  res: Response,
  ...args: [number, string, string?] | [Method, string, string, string?, number?]
): void {
  const [status, msg, code, shape] =
    typeof args[0] === 'number'
      ? [args[0], args[1], args[2] ?? 'BAD_REQUEST', undefined]
      : [args[4] ?? 400, args[2], args[3] ?? 'BAD_REQUEST', { method: args[0], path: args[1] }];
  const body = (res.body ?? {}) as { result?: unknown; msg?: unknown; code?: unknown };
  expect({ status: res.status, result: body.result, msg: body.msg, code: body.code }).toEqual({
    status,
    result: 'error',
    msg,
    code,
  });
  if (shape) checkShape(shape.method, shape.path, res);
}

/**
 * Asserts a success envelope (status 200, `result: "success"`, empty `msg`) and returns the body;
 * given `method` and `path`, also checks it against Zulip's document for that operation.
 */
export function expectSuccess(res: Response, method?: Method, path?: string): Record<string, unknown> {
  if (res.status !== 200) throw new Error(`expected success, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body).toMatchObject({ result: 'success', msg: '' });
  if (method && path) checkShape(method, path, res);
  return res.body as Record<string, unknown>;
}
