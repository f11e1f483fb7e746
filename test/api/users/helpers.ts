import type { Response } from 'supertest';
import { drainEvents, Queue, registerQueue } from '../../helpers/events';
import { expectMatchesOpenApi, findOpenApiOperation } from '../../helpers/openapi';
import type { TestApp } from '../../helpers/test-app';

export {
  AARON,
  call as api,
  CORDELIA,
  DEFAULT_BOT,
  DESDEMONA,
  encodeParams as encode,
  groupId,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  SHIVA,
  userId,
  ZOE,
} from '../../helpers/api';
import type { Method } from '../../helpers/api';
export type { Method };

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
