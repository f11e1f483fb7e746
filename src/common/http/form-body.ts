import type { NextFunction, Request, RequestHandler, Response } from 'express';
import read from 'body-parser/lib/read';
import { normalizeOptions } from 'body-parser/lib/utils';
import qs from 'qs';

/**
 * The urlencoded body parser: `express.urlencoded({ extended: false, limit, parameterLimit })`
 * with the same results, made cheaper for the forms clients really send.
 *
 * The body is read by body-parser's own `read` (charset check, Content-Encoding, size limit,
 * errors), exactly as `express.urlencoded` reads it. Parsing is where the cost was: qs's general
 * machinery (bracket keys, merging, compaction) took about 20 µs of a POST /messages (issue 15).
 * A form whose keys have no brackets (every Zulip client's: `type=stream&to=12&content=…`) is
 * parsed here directly with qs's rules; anything else goes to qs with the options body-parser gives
 * it, so the result is the same either way (form-body.spec.ts checks the two against each other).
 */
export function urlencodedForms(opts: { limit: number; parameterLimit: number }): RequestHandler {
  const readOptions = {
    ...normalizeOptions({ limit: opts.limit, type: isUrlencodedForm }, 'application/x-www-form-urlencoded'),
    isValidCharset: (charset: string) => charset === 'utf-8' || charset === 'iso-8859-1',
  };
  const parse = (body: string, encoding: string) => parseUrlencoded(body, encoding, opts.parameterLimit);
  return (req: Request, res: Response, next: NextFunction) => read(req, res, next, parse, noDebug, readOptions);
}

const noDebug = () => undefined;

/** Content-Type values seen, and whether each is a urlencoded form (a server sees few). */
const urlencodedByType = new Map<string, boolean>();
const MAX_REMEMBERED_TYPES = 256;

/**
 * Whether the request carries a urlencoded form, as `req.is()` (type-is) decides it, null when it
 * has no body: remembered per Content-Type value, since parsing and matching the header took a few
 * µs and each form request asked twice (the body limits, then the parser's own check).
 */
export function urlencodedFormMatch(req: Request): boolean | null {
  const type = req.headers['content-type'];
  if (type !== undefined) {
    const known = urlencodedByType.get(type);
    // The header decides, once the request has a body (type-is's own test, which comes first).
    if (known !== undefined && typeIsHasBody(req)) return known;
  }
  const matched = req.is('application/x-www-form-urlencoded');
  if (matched === null) return null;
  if (type !== undefined) {
    if (urlencodedByType.size >= MAX_REMEMBERED_TYPES) urlencodedByType.clear();
    urlencodedByType.set(type, matched !== false);
  }
  return matched !== false;
}

/** type-is's hasBody: a Transfer-Encoding, or a Content-Length that is a number. */
function typeIsHasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || !isNaN(req.headers['content-length'] as unknown as number);
}

/** body-parser's check of the type, `Boolean(typeis(req, type))`, from the remembered answer. */
const isUrlencodedForm = (req: Request): boolean => urlencodedFormMatch(req) === true;

/** What body-parser's urlencoded parser (extended: false) returns for `body`, or throws. */
export function parseUrlencoded(body: string, encoding: string, parameterLimit: number): Record<string, unknown> {
  if (body.length === 0) return {};
  const count = parameterCount(body, parameterLimit);
  if (count === undefined) {
    // body-parser's error for it (http-errors' shape: the exception filter reads status and type).
    throw Object.assign(new Error('too many parameters'), {
      status: 413,
      statusCode: 413,
      expose: true,
      type: 'parameters.too.many',
    });
  }
  return (encoding === 'utf-8' ? simpleForm(body) : undefined) ?? qsParse(body, encoding, count, parameterLimit);
}

/** body-parser's count of `&`-separated parameters, undefined above `limit`. */
function parameterCount(body: string, limit: number): number | undefined {
  let count = 0;
  let index = -1;
  do {
    count++;
    if (count > limit) return undefined;
    index = body.indexOf('&', index + 1);
  } while (index !== -1);
  return count;
}

/** body-parser's call of qs for extended: false (depth 0, prototypes allowed, strict depth). */
function qsParse(body: string, encoding: string, count: number, parameterLimit: number): Record<string, unknown> {
  try {
    return qs.parse(body, {
      allowPrototypes: true,
      arrayLimit: count,
      depth: 0,
      charset: encoding as 'utf-8' | 'iso-8859-1',
      parameterLimit,
      strictDepth: true,
    });
  } catch (err) {
    if (err instanceof RangeError) {
      throw Object.assign(new Error('The input exceeded the depth'), {
        status: 400,
        statusCode: 400,
        expose: true,
        type: 'querystring.parse.rangeError',
      });
    }
    throw err;
  }
}

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** qs's decoder for UTF-8: `+` is a space; text that is not valid percent-encoding stays as it is. */
function decode(s: string): string {
  const spaced = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * qs's result for a UTF-8 body none of whose keys involve brackets, or undefined when a part could
 * mean something else to qs (a bracket in a key, `]=`, a `__proto__` key). The rules followed, from
 * qs's parseValues and parseObject: `%5B`/`%5D` are turned into brackets in the whole body first;
 * parts are split at `&`, key and value at the first `=` (no `=`: the value is empty); an empty key
 * is dropped; a repeated key collects its values in an array, in order.
 */
export function simpleForm(body: string): Record<string, unknown> | undefined {
  const clean = body.includes('%5') ? body.replace(/%5B/gi, '[').replace(/%5D/gi, ']') : body;
  const out: Record<string, unknown> = {};
  let start = 0;
  while (start <= clean.length) {
    let end = clean.indexOf('&', start);
    if (end === -1) end = clean.length;
    const part = clean.slice(start, end);
    start = end + 1;
    if (part.includes(']=')) return undefined;
    const eq = part.indexOf('=');
    const rawKey = eq === -1 ? part : part.slice(0, eq);
    if (rawKey.includes('[') || rawKey.includes(']')) return undefined;
    const key = decode(rawKey);
    if (key === '') continue;
    if (key === '__proto__') return undefined;
    const value = eq === -1 ? '' : decode(part.slice(eq + 1));
    if (!hasOwn(out, key)) out[key] = value;
    else {
      const existing = out[key];
      out[key] = Array.isArray(existing) ? [...(existing as unknown[]), value] : [existing, value];
    }
  }
  return out;
}
