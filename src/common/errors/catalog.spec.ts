import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChannelErrors } from '../../channels/channel.errors';
import { EventQueueErrors } from '../../events/event.errors';
import { MessageErrors, NarrowErrors } from '../../messaging/message.errors';
import { UserGroupErrors } from '../../users/user.errors';
import { ParamErrors } from './param.errors';
import { Errors, ZulipError } from './zulip-error';

/**
 * The error catalog (docs/DEVELOPING.md "Errors"): every factory of every `*.errors.ts` file and
 * of `zulip-error.ts` builds a ZulipError with its code, status, text and fields (recorded in the
 * snapshot), and no two factories build the same error.
 */
type Factory = (...args: unknown[]) => ZulipError;

const SRC = path.join(__dirname, '..', '..');
function catalogFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return catalogFiles(p);
    return e.name.endsWith('.errors.ts') || p === path.join(__dirname, 'zulip-error.ts') ? [p] : [];
  });
}

/** Every catalog entry, as `ChannelErrors.invalidId`. */
const entries: Array<[string, Factory]> = catalogFiles(SRC)
  .sort()
  .flatMap((file) =>
    // Every catalog file, found on disk, so a new one cannot be missed.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    Object.entries(require(file) as Record<string, unknown>)
      .filter(([, v]) => v !== null && typeof v === 'object' && Object.values(v).every((f) => typeof f === 'function'))
      .flatMap(([group, factories]) =>
        Object.entries(factories as Record<string, Factory>).map(
          ([name, f]) => [`${group}.${name}`, f] as [string, Factory],
        ),
      ),
  );

/** Placeholder arguments: `‹1›`, `‹2›`, … (lists and counts where a factory needs them). */
const SPECIAL_ARGS: Record<string, unknown[]> = {
  'Errors.rateLimited': [1.5],
  'Errors.httpError': ['‹1›', 413],
  'Errors.methodNotAllowed': [['GET', 'POST']],
  'MessageErrors.moveTimeLimitExceeded': [[{ id: 11 }, { id: 12 }], 5],
  'UserGroupErrors.inUse': [[{ type: 'realm', settings: ['can_create_groups'] }]],
  'ParamErrors.badValue': ['‹1›', 0],
  'LinkifierErrors.validationFailed': [{ pattern: ['‹1›'], __all__: ['‹2›'] }],
};
const marker = (i: number) => `‹${i + 1}›`;
function argsFor(name: string, f: Factory): unknown[] {
  if (SPECIAL_ARGS[name]) return SPECIAL_ARGS[name];
  return Array.from({ length: f.length }, (_, i) => marker(i));
}
function build(name: string, f: Factory): ZulipError {
  try {
    return f(...argsFor(name, f));
  } catch {
    // Factories taking lists (`names.join`) get one-item lists.
    return f(...argsFor(name, f).map((a) => [a]));
  }
}

describe('error catalog', () => {
  it('finds the catalog files and their factories', () => {
    expect(entries.length).toBeGreaterThan(200);
    expect(entries.map(([n]) => n)).toEqual(
      expect.arrayContaining(['Errors.missingArgument', 'ChannelErrors.invalidId']),
    );
  });

  it.each(entries)('%s builds a Zulip error envelope', (name, f) => {
    const err = build(name, f);
    expect(err).toBeInstanceOf(ZulipError);
    expect(err.code).toMatch(/^[A-Z_]+$/);
    expect([400, 401, 403, 404, 405, 408, 409, 413, 429, 431, 500, 503]).toContain(err.status);
    expect(err.message.length).toBeGreaterThan(0);
    expect(err.message).not.toMatch(/undefined|\[object/);
    expect(err.toBody()).toEqual({ result: 'error', msg: err.message, code: err.code, ...err.data });
  });

  it('records each factory’s status, code, text, fields and headers', () => {
    const table = Object.fromEntries(
      entries.map(([name, f]) => {
        const e = build(name, f);
        return [name, { status: e.status, code: e.code, msg: e.message, data: e.data, headers: e.headers }];
      }),
    );
    expect(table).toMatchSnapshot();
  });

  it('no two factories build the same error, and a shared text differs by code or status', () => {
    const seen = new Map<string, string>();
    const byText = new Map<string, string[]>();
    for (const [name, f] of entries) {
      const e = build(name, f);
      const key = JSON.stringify([e.status, e.code, e.message, e.data]);
      expect([name, seen.get(key)]).toEqual([name, undefined]);
      seen.set(key, name);
      byText.set(e.message, [...(byText.get(e.message) ?? []), name]);
    }
    const shared = [...byText.entries()]
      .filter(([msg, names]) => names.length > 1 && msg !== marker(0)) // the free-text builders
      .map(([, names]) => names)
      .sort((a, b) => a[0].localeCompare(b[0]));
    // Zulip answers these texts with two codes, statuses or field shapes depending on the endpoint.
    expect(shared).toEqual([
      // 400 for reactions, 404 for DELETE /realm/emoji/{name}.
      ['EmojiErrors.doesNotExist', 'EmojiErrors.customEmojiNotFound'],
      ['Errors.apiKeyRealmDeactivated', 'Errors.realmDeactivated'],
      ['Errors.apiKeyUserDeactivated', 'Errors.userDeactivated'],
      ['Errors.invalidSubdomain', 'Errors.invalidSubdomainBadRequest'],
      ['Errors.missingArgument', 'Errors.missingArgumentPlain'],
      ['ParamErrors.incompatibleParameters', 'ParamErrors.incompatibleParameterList'],
    ]);
  });
});

describe('error catalog examples', () => {
  it('carries Zulip’s extra fields', () => {
    expect(Errors.missingArgument('content').toBody()).toEqual({
      result: 'error',
      msg: "Missing 'content' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'content',
    });
    expect(Errors.missingArgumentPlain('stream_id').toBody()).toEqual({
      result: 'error',
      msg: "Missing 'stream_id' argument",
      code: 'BAD_REQUEST',
    });
    expect(ChannelErrors.doesNotExist('nowhere').toBody()).toEqual({
      result: 'error',
      msg: "Channel 'nowhere' does not exist",
      code: 'STREAM_DOES_NOT_EXIST',
      stream: 'nowhere',
    });
    expect(ChannelErrors.idDoesNotExist(99).data).toEqual({ stream_id: 99 });
    expect(EventQueueErrors.badQueueId('q1').toBody()).toEqual({
      result: 'error',
      msg: 'Bad event queue ID: q1',
      code: 'BAD_EVENT_QUEUE_ID',
      queue_id: 'q1',
    });
    expect(NarrowErrors.unknownOperator('foo').toBody()).toEqual({
      result: 'error',
      msg: 'Invalid narrow operator: unknown operator foo',
      code: 'BAD_NARROW',
      desc: 'unknown operator foo',
    });
    expect(MessageErrors.moveTimeLimitExceeded([{ id: 7 }], 3).toBody()).toEqual({
      result: 'error',
      msg: 'You only have permission to move the 1/3 most recent messages in this topic.',
      code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      first_message_id_allowed_to_move: 7,
      total_messages_in_topic: 3,
      total_messages_allowed_to_move: 1,
    });
    expect(MessageErrors.moveTimeLimitExceeded([], 2).data.first_message_id_allowed_to_move).toBeNull();
    expect(MessageErrors.prevContentMismatch().data).toEqual({ field_name: 'prev_content_sha256' });
    expect(Errors.oldValueMismatch().data).toEqual({});
    expect(UserGroupErrors.inUse([{ type: 'channel' }]).data).toEqual({ objections: [{ type: 'channel' }] });
    expect(ParamErrors.badValue('message_content_edit_limit_seconds', 'soon').toBody()).toEqual({
      result: 'error',
      msg: "Bad value for 'message_content_edit_limit_seconds': soon",
      code: 'REQUEST_VARIABLE_INVALID',
      var_name: 'message_content_edit_limit_seconds',
      bad_value: 'soon',
    });
    expect(ParamErrors.incompatibleParameters(['a', 'b']).data).toEqual({ parameters: 'a, b' });
    expect(ParamErrors.incompatibleParameterList(['a', 'b']).data).toEqual({ parameters: ['a', 'b'] });
  });

  it('uses Zulip’s statuses and headers', () => {
    expect(Errors.invalidApiKey().status).toBe(401);
    expect(Errors.invalidApiKey().headers).toEqual({ 'WWW-Authenticate': 'Basic realm="zulip"' });
    expect(Errors.userDeactivated().headers).toEqual({});
    expect(ChannelErrors.alreadyExists('x').status).toBe(409);
    expect(Errors.invalidSubdomain().status).toBe(404);
    expect(Errors.invalidSubdomainBadRequest().status).toBe(400);
    expect(Errors.routeNotFound().code).toBe('BAD_REQUEST');
    const limited = Errors.rateLimited(2.0004);
    expect([limited.status, limited.data, limited.headers]).toEqual([
      429,
      { 'retry-after': 2 },
      { 'Retry-After': '3' },
    ]);
  });

  it('recognises an entry with ZulipError.is', () => {
    expect(ZulipError.is(Errors.invalidSubdomain(), Errors.invalidSubdomain)).toBe(true);
    expect(ZulipError.is(Errors.invalidSubdomainBadRequest(), Errors.invalidSubdomain)).toBe(false);
    expect(ZulipError.is(new Error('Invalid subdomain'), Errors.invalidSubdomain)).toBe(false);
  });
});
