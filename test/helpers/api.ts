import type { Response } from 'supertest';
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
): Promise<Response> {
  const url = `/api/v1${path}`;
  const encoded = encodeParams(params);
  const auth = await t.auth(email);
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

/** Asserts an error envelope with this status, message and code. */
export function expectError(res: Response, status: number, msg: string, code = 'BAD_REQUEST'): void {
  expect({ status: res.status, body: res.body as unknown }).toEqual({
    status,
    body: expect.objectContaining({ result: 'error', msg, code }),
  });
}

/** Asserts a success envelope. */
export function expectSuccess(res: Response): void {
  expect({ status: res.status, body: res.body as unknown }).toEqual({
    status: 200,
    body: expect.objectContaining({ result: 'success', msg: '' }),
  });
}
