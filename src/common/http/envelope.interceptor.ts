import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import type { Response } from 'express';
import { encodeWithRawJsonParts, RawJson } from './raw-json';
import { ignoredParams, ZulipRequest } from './request-params';

/** Marks a handler whose return value is sent as-is (not wrapped in Zulip's envelope). */
export const RAW_RESPONSE = Symbol('zulip:raw-response');

/**
 * The prototype of a handler's result on its way to the response, tagged to be wrapped in the
 * envelope. It has no `constructor`: Nest's plain-object test, which each response goes through,
 * compares a class's printed source with Object's, and stops at once without one.
 */
const TAGGED: object = Object.create(null) as object;

interface Tagged {
  data: unknown;
}

function isTagged(value: unknown): value is Tagged {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === TAGGED;
}

/** A handler that calls another one (settings.controller) gets its result tagged already. */
function wrap(data: unknown): Tagged {
  if (isTagged(data)) return data;
  const tagged = Object.create(TAGGED) as Tagged;
  tagged.data = data;
  return tagged;
}

/** The envelope's own members, which a result serialised ahead of time must not hold. */
const ENVELOPE_KEYS = ['result', 'msg', 'ignored_parameters_unsupported'];

/**
 * A handler's result serialised ahead of time (an answer a cache keeps): `data` is the result and
 * `membersJson` is `JSON.stringify(data)` without its braces. Where the response goes out as
 * Express would send it, the JSON is written as it is; anywhere else `data` is rendered as usual.
 */
export class SerializedResult {
  constructor(
    readonly data: Record<string, unknown>,
    readonly membersJson: string,
  ) {}

  static of(data: Record<string, unknown>): SerializedResult {
    for (const key of ENVELOPE_KEYS) {
      if (key in data) throw new Error(`a serialised result cannot hold the envelope's "${key}"`);
    }
    const json = JSON.stringify(data);
    return new SerializedResult(data, json.slice(1, -1));
  }
}

/** The envelope of a result, and whether it holds values serialised ahead of time (RawJson). */
interface Rendered {
  body: Record<string, unknown>;
  raw: boolean;
}

function render({ data }: Tagged, req: ZulipRequest): Rendered {
  const body: Record<string, unknown> = { result: 'success', msg: '' };
  let raw = false;
  const members = data instanceof SerializedResult ? data.data : data;
  if (members && typeof members === 'object') {
    // Copied key by key (as Object.assign would) while looking for RawJson values.
    const source = members as Record<string, unknown>;
    for (const key of Object.keys(source)) {
      const value = source[key];
      if (value instanceof RawJson) raw = true;
      body[key] = value;
    }
  }
  const ignored = ignoredParams(req);
  if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
  return { body, raw };
}

/** Set on the replacement handlers: an app created again in the same process wraps nothing twice. */
const ENVELOPED = Symbol('zulip:enveloped');

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Wraps every handler result in Zulip's success envelope:
 * `{result: "success", msg: "", ...data, ignored_parameters_unsupported?}`.
 *
 * Done without a Nest interceptor, which costs an rxjs pipeline (defer, mergeAll, lastValueFrom,
 * AsyncResource.bind) on every request: before routes are registered, each route handler but the
 * RAW_RESPONSE ones is replaced on its controller's prototype by one that tags its result (all of
 * the handler's metadata copied over), and the HTTP adapter's `reply` renders a tagged result
 * against the request (the parameters it did not read). Handlers that answer through `@Res()`
 * themselves are unaffected, as they were by the interceptor. Call before `app.init()`.
 */
export function installEnvelope(app: INestApplication): void {
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const proto = (wrapper.metatype as { prototype?: object } | null)?.prototype as
        Record<string, unknown> | undefined;
      if (!proto) continue;
      for (const name of Object.getOwnPropertyNames(proto)) {
        if (name === 'constructor') continue;
        const handler = proto[name];
        if (typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined || Reflect.getMetadata(RAW_RESPONSE, handler)) continue;
        if ((handler as { [ENVELOPED]?: true })[ENVELOPED]) continue;
        const original = handler as (...args: unknown[]) => unknown;
        const enveloped = function (this: unknown, ...args: unknown[]): unknown {
          const result = original.apply(this, args);
          return isThenable(result) ? Promise.resolve(result).then(wrap) : wrap(result);
        };
        Object.defineProperty(enveloped, 'name', { value: original.name });
        Object.defineProperty(enveloped, ENVELOPED, { value: true });
        for (const key of Reflect.getMetadataKeys(original) as unknown[]) {
          Reflect.defineMetadata(key, Reflect.getMetadata(key, original), enveloped);
        }
        proto[name] = enveloped;
      }
    }
  }
  const adapter = app.getHttpAdapter() as unknown as {
    reply(response: Response, body: unknown, statusCode?: number): unknown;
  };
  const reply = adapter.reply.bind(adapter);
  adapter.reply = (response: Response, body: unknown, statusCode?: number) => {
    if (!isTagged(body)) return reply(response, body, statusCode);
    if (statusCode !== undefined && statusCode !== null) response.status(statusCode);
    if (!sendsAsExpressWould(response)) return reply(response, render(body, response.req as ZulipRequest).body);
    if (body.data instanceof SerializedResult) return writeEnvelopeJson(response, body.data.membersJson);
    return sendJson(response, render(body, response.req as ZulipRequest));
  };
}

/**
 * For a handler answering through `@Res()` itself: sends `data` in the success envelope with
 * status 200, exactly as a handler returning `data` would be answered (the adapter's `reply`
 * above, whose fallback for a plain object is `res.json`). GET /events answers its woken
 * long-polls this way, without a promise chain through Nest per poll (issue 15).
 */
export function sendEnvelope(response: Response, data: Record<string, unknown>): void {
  const envelope = render(wrap(data), response.req as ZulipRequest);
  response.statusCode = 200;
  if (sendsAsExpressWould(response)) sendJson(response, envelope);
  else response.json(envelope.body);
}

/**
 * {@link sendEnvelope} for data whose JSON the caller makes itself (GET /events: the events' shared
 * parts serialised once for every queue, event-json.ts): `membersJson` is JSON.stringify(data)
 * without its braces (nothing for no members). The body is exactly the one sendEnvelope sends.
 */
export function sendEnvelopeJson(response: Response, data: Record<string, unknown>, membersJson: string): void {
  response.statusCode = 200;
  if (!sendsAsExpressWould(response)) {
    sendEnvelope(response, data);
    return;
  }
  writeEnvelopeJson(response, membersJson);
}

/**
 * The envelope around members serialised already, exactly as render() + sendJson would write it:
 * `{result, msg, ...data, ignored_parameters_unsupported?}` (the data never holds the others).
 */
function writeEnvelopeJson(response: Response, membersJson: string): void {
  const ignored = ignoredParams(response.req as ZulipRequest);
  let json = '{"result":"success","msg":""';
  if (membersJson !== '') json += `,${membersJson}`;
  if (ignored.length > 0) json += `,"ignored_parameters_unsupported":${JSON.stringify(ignored)}`;
  sendJsonText(response, `${json}}`);
}

/**
 * Whether Express's `res.json` would send the body as it is, with nothing but its Content-Type and
 * Content-Length (no JSON settings, no ETag: bootstrap.ts): no type or transfer encoding chosen
 * already, not a HEAD request, no conditional request (its freshness check), not a status without
 * a body. Otherwise `res.json` itself answers.
 */
function sendsAsExpressWould(response: Response): boolean {
  const req = response.req;
  const status = response.statusCode;
  return (
    req.method !== 'HEAD' &&
    req.headers['if-none-match'] === undefined &&
    req.headers['if-modified-since'] === undefined &&
    status !== 204 &&
    status !== 205 &&
    status !== 304 &&
    !response.hasHeader('Content-Type') &&
    !response.hasHeader('Transfer-Encoding')
  );
}

/** Above this many characters a JSON body is encoded once to a Buffer before it is sent. */
const ENCODE_ONCE_CHARS = 64 * 1024;

/**
 * What `res.json` sends in that case, without its per-response look-ups (issue 15). A large body
 * is encoded once: measuring the string's UTF-8 length and then encoding it to write walks it
 * twice, which for a 5 MB POST /register (a non-Latin-1 name makes the JSON a two-byte string)
 * cost as much CPU as JSON.stringify itself. A small one stays a string, which Node's HTTP code
 * sends in one write with the headers.
 */
function sendJson(response: Response, { body, raw }: Rendered): void {
  // Values serialised ahead of time (RawJson: GET /streams' cached channel dicts) go as they are.
  const spliced = raw ? encodeWithRawJsonParts(body) : null;
  if (spliced) {
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', String(spliced.length));
    // Written as they are (no copy into one buffer), in one writev once uncorked.
    response.cork();
    for (const part of spliced.parts) response.write(part);
    response.end();
    return;
  }
  sendJsonText(response, JSON.stringify(body));
}

function sendJsonText(response: Response, json: string): void {
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (json.length > ENCODE_ONCE_CHARS) {
    const bytes = Buffer.from(json, 'utf8');
    response.setHeader('Content-Length', String(bytes.length));
    response.end(bytes);
    return;
  }
  response.setHeader('Content-Length', String(Buffer.byteLength(json, 'utf8')));
  response.end(json, 'utf8');
}
