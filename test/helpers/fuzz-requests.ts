/**
 * Request generators for the property-based fuzz suite (test/api/fuzz/): for each route the app
 * serves, fast-check arbitraries of whole HTTP requests built from the parameter definitions of
 * Zulip's OpenAPI document (test/fixtures/zulip/openapi.json), mixing plausible values with
 * hostile ones — wrong types, Object.prototype-named keys, huge and deeply nested values, invalid
 * UTF-8 and lone surrogates, NUL bytes, duplicate parameters, odd content types and bad Basic
 * auth. Requests are built as bytes, so that nothing on the client side cleans them up.
 */
import fc from 'fast-check';
import { findOpenApiOperation, loadOpenApiDocument } from './openapi';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete' | 'put';

/** A route as Express registered it. */
export interface ServedRoute {
  method: HttpMethod;
  /** Express pattern, e.g. `/api/v1/messages/:message_id` or `/user_uploads/:realm/*path`. */
  path: string;
}

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Every route of the running app (read from Express's router after `app.init()`). */
export function servedRoutes(expressApp: unknown): ServedRoute[] {
  const stack = (expressApp as { router?: { stack: ExpressLayer[] } }).router?.stack ?? [];
  const routes: ServedRoute[] = [];
  for (const layer of stack) {
    if (!layer.route) continue;
    for (const method of Object.keys(layer.route.methods)) {
      if (['get', 'post', 'patch', 'delete', 'put'].includes(method)) {
        routes.push({ method: method as HttpMethod, path: layer.route.path });
      }
    }
  }
  return routes;
}

export interface ParamDef {
  name: string;
  schema: Json;
  /** Sent as JSON text (every non-string type, as Zulip's clients do). */
  json: boolean;
  required: boolean;
  example?: unknown;
}

export interface PathSegment {
  literal?: string;
  /** `:name` (one segment) or `*name` (one or more). */
  param?: { name: string; wildcard: boolean; schema?: Json; example?: unknown };
}

export interface RouteModel extends ServedRoute {
  /** The OpenAPI operation's template, when Zulip documents the route. */
  template?: string;
  segments: PathSegment[];
  params: ParamDef[];
  /** Answers a file, plain text or JSON that is not Zulip's envelope on success (files, probes, metrics, the API document). */
  raw: boolean;
}

function deref(node: Json): Json {
  const doc = loadOpenApiDocument();
  let current = node;
  for (let i = 0; i < 20 && current && typeof current === 'object' && typeof current.$ref === 'string'; i++) {
    let target: Json = doc;
    for (const key of (current.$ref as string).slice(2).split('/')) target = target?.[key];
    current = target;
  }
  return current;
}

/** A schema with its allOf branches merged (properties, required). */
function flatten(schema: Json): Json {
  const s = deref(schema);
  if (!s || typeof s !== 'object' || !Array.isArray(s.allOf)) return s;
  const out: Json = {
    ...s,
    allOf: undefined,
    properties: { ...(s.properties ?? {}) },
    required: [...(s.required ?? [])],
  };
  for (const branch of s.allOf) {
    const b = flatten(branch);
    Object.assign(out.properties, b?.properties ?? {});
    out.required.push(...(b?.required ?? []));
    if (b?.type && !out.type) out.type = b.type;
  }
  return out;
}

function schemaType(schema: Json): string | undefined {
  const s = flatten(schema);
  if (!s || typeof s !== 'object') return undefined;
  if (typeof s.type === 'string') return s.type;
  for (const alt of [...(s.oneOf ?? []), ...(s.anyOf ?? [])]) {
    const t = schemaType(alt);
    if (t) return t === 'string' ? 'mixed' : t;
  }
  return undefined;
}

/** The route's parameters from Zulip's document (none for undocumented routes). */
export function modelRoute(route: ServedRoute): RouteModel {
  // Not Zulip API answers: files, the probes, the metrics page and the served API document.
  const raw =
    /^\/(user_uploads|health|metrics|static|accounts)\b/.test(route.path) || route.path === '/api/v1/openapi.json';
  const segments: PathSegment[] = route.path
    .split('/')
    .slice(1)
    .map((part) =>
      part.startsWith(':') || part.startsWith('*')
        ? { param: { name: part.slice(1), wildcard: part.startsWith('*') } }
        : { literal: part },
    );
  const model: RouteModel = { ...route, segments, params: [], raw };
  if (!route.path.startsWith('/api/v1/')) return model;
  const sample = segments.map((s) => s.literal ?? (s.param!.wildcard ? 'a' : '1')).join('/');
  const op = findOpenApiOperation(route.method, `/${sample}`);
  if (!op) return model;
  model.template = op.template;
  const operation = op.operation;
  const pathParams: Json[] = [];
  for (const p of (operation.parameters ?? []).map(deref)) {
    if (!p || typeof p !== 'object') continue;
    if (p.in === 'path') {
      pathParams.push(p);
      continue;
    }
    if (p.in !== 'query') continue;
    const jsonContent = p.content?.['application/json'];
    const schema = jsonContent?.schema ?? p.schema ?? {};
    model.params.push({
      name: p.name,
      schema,
      json: Boolean(jsonContent) || schemaType(schema) !== 'string',
      required: Boolean(p.required),
      example: p.example ?? jsonContent?.example,
    });
  }
  // Path parameters in order, matched to Express's by position.
  const routeParams = segments.filter((s) => s.param);
  routeParams.forEach((s, i) => {
    const p = pathParams[i];
    if (p) Object.assign(s.param!, { schema: p.schema, example: p.example });
  });
  const body = deref(operation.requestBody);
  const form = body?.content?.['application/x-www-form-urlencoded'] ?? body?.content?.['multipart/form-data'];
  if (form?.schema) {
    const schema = flatten(form.schema);
    const required = new Set<string>(schema?.required ?? []);
    for (const [name, propSchema] of Object.entries<Json>(schema?.properties ?? {})) {
      const encoding = form.encoding?.[name];
      const prop = deref(propSchema);
      model.params.push({
        name,
        schema: prop,
        json: encoding?.contentType === 'application/json' || schemaType(prop) !== 'string',
        required: required.has(name),
        example: prop?.example,
      });
    }
  }
  return model;
}

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

/** Ids and names that exist in the test database, so plausible requests reach deep code. */
export interface FuzzContext {
  ids: number[];
  names: string[];
  emails: string[];
}

/** A plausible value for a schema: its example, an existing id or name, or a small random one. */
export function plausibleValue(schema: Json, ctx: FuzzContext, depth = 0): fc.Arbitrary<unknown> {
  const s = flatten(schema) ?? {};
  const options: Array<fc.Arbitrary<unknown>> = [];
  if (s.example !== undefined) options.push(fc.constant(s.example));
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = [...(s.oneOf ?? []), ...(s.anyOf ?? [])];
  if (alternatives.length > 0 && depth < 4) {
    return fc.oneof(...options, ...alternatives.map((alt: Json) => plausibleValue(alt, ctx, depth + 1)));
  }
  switch (s.type) {
    case 'integer':
      options.push(fc.constantFrom(...ctx.ids), fc.integer({ min: -2, max: 100 }));
      break;
    case 'number':
      options.push(fc.double({ min: -10, max: 1000, noNaN: true }));
      break;
    case 'boolean':
      options.push(fc.boolean());
      break;
    case 'string':
      options.push(fc.constantFrom(...ctx.names, ...ctx.emails), fc.string({ maxLength: 12 }));
      break;
    case 'array':
      options.push(
        fc.array(depth < 4 ? plausibleValue(s.items ?? {}, ctx, depth + 1) : fc.integer(), { maxLength: 4 }),
      );
      break;
    case 'object': {
      const props = Object.entries<Json>(s.properties ?? {});
      if (props.length > 0 && depth < 4) {
        options.push(
          fc.record(Object.fromEntries(props.map(([k, v]) => [k, plausibleValue(v, ctx, depth + 1)])), {
            requiredKeys: (s.required ?? []) as string[],
          }),
        );
      } else {
        options.push(fc.dictionary(fc.constantFrom(...ctx.names), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }));
      }
      break;
    }
    default:
      options.push(fc.jsonValue({ maxDepth: 2 }));
  }
  return fc.oneof(...options);
}

/**
 * A value of the right type but at an edge: ids beyond PostgreSQL's integer, blank, long or
 * NUL-laden strings, empty or repeating lists, objects that also carry Object.prototype-named
 * keys. These get past the type checks and reach the code behind them.
 */
export function edgeValue(schema: Json, ctx: FuzzContext, depth = 0): fc.Arbitrary<unknown> {
  const s = flatten(schema) ?? {};
  const alternatives = [...(s.oneOf ?? []), ...(s.anyOf ?? [])];
  if (alternatives.length > 0 && depth < 3)
    return fc.oneof(...alternatives.map((a: Json) => edgeValue(a, ctx, depth + 1)));
  switch (s.type) {
    case 'integer':
    case 'number':
      return fc.constantFrom(0, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 53, -(2 ** 31) - 1, 1e21, 2 ** 63);
    case 'boolean':
      return fc.constantFrom(0, 1, 'true', 'false', 'True');
    case 'string':
      return fc.constantFrom(
        '',
        ' ',
        '\u0000',
        'a\u0000b',
        '\ud800',
        'x'.repeat(61),
        'y'.repeat(1025),
        'z'.repeat(10_001),
        '🙂'.repeat(40),
        '..',
        '@',
        'a@b',
        '*',
        '%',
        'NULL',
        "'; DROP TABLE message; --",
      );
    case 'array': {
      const item = depth < 3 ? plausibleValue(s.items ?? {}, ctx, depth + 1) : fc.integer();
      const edgeItem = depth < 3 ? edgeValue(s.items ?? {}, ctx, depth + 1) : fc.integer();
      return fc.oneof(
        fc.constant([]),
        item.map((v) => [v, v, v]),
        fc.array(edgeItem, { minLength: 1, maxLength: 3 }),
        fc.array(item, { minLength: 1, maxLength: 2 }).chain((list) => edgeItem.map((e) => [...list, e])),
      );
    }
    case 'object':
    default: {
      const base = depth < 3 ? plausibleValue(s, ctx, depth + 1) : fc.constant({});
      return fc
        .tuple(base, fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 1 }))
        .map(([value, key, extra]) =>
          value && typeof value === 'object' && !Array.isArray(value)
            ? { ...value, [key]: extra } // a computed `__proto__` key is an own property, as in JSON
            : { [key]: extra },
        );
    }
  }
}

export function encodePlausible(def: ParamDef, value: unknown): Buffer {
  const text = !def.json && typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return Buffer.from(text, 'utf8');
}

/** Keys named like Object.prototype members (and other names special to JavaScript objects). */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'toJSON',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'length',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  'then',
];

const bytes = (...b: number[]) => Buffer.from(b);
const text = (s: string) => Buffer.from(s, 'utf8');

/** Nested JSON text: arrays or objects `depth` deep. */
function nested(depth: number, kind: 'array' | 'object' | 'mixed'): string {
  if (kind === 'array') return '['.repeat(depth) + ']'.repeat(depth);
  if (kind === 'object') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  return '[{"a":'.repeat(depth) + '1' + '}]'.repeat(depth);
}

/** A JSON object or list whose keys name Object.prototype members, at some depth. */
const prototypeShaped: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.constantFrom(...PROTOTYPE_KEYS),
    fc.jsonValue({ maxDepth: 2 }),
    fc.integer({ min: 0, max: 3 }),
    fc.boolean(),
  )
  .map(([key, value, depth, inList]) => {
    let json = `{${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}}`;
    for (let i = 0; i < depth; i++) json = i % 2 === 0 ? `[${json}]` : `{"x":${json}}`;
    return text(inList ? `[${json}]` : json);
  });

/** Very large or very deep values: each request that carries one is refused early (413/431/400). */
const hugeValue: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(70_000, 300_000, 1_200_000).map((n) => text('x'.repeat(n))),
  fc.constant(text(JSON.stringify(Array.from({ length: 10_001 }, (_, i) => i)))),
  fc
    .tuple(fc.constantFrom(64, 3000), fc.constantFrom('array' as const, 'object' as const, 'mixed' as const))
    .map(([depth, kind]) => text(nested(depth, kind))),
);

/** Values no well-behaved client sends. */
export const hostileValue: fc.Arbitrary<Buffer> = fc.oneof(
  // Wrong types and edge numbers, as JSON text.
  {
    weight: 4,
    arbitrary: fc
      .constantFrom(
        '',
        ' ',
        'null',
        'true',
        'false',
        '0',
        '-1',
        '-0',
        '1.5',
        '1e309',
        '-1e309',
        'NaN',
        'Infinity',
        '2147483648',
        '-2147483649',
        '9007199254740993',
        '9223372036854775808',
        '18446744073709551616',
        '9'.repeat(40),
        '"abc"',
        '""',
        '[]',
        '{}',
        '[null]',
        '[[]]',
        '[{}]',
        '["a"]',
        '[1.5]',
        '[-1]',
        '[0]',
        '[2147483648]',
        '[9223372036854775808]',
        '{"a":[1e400]}',
        '[1,',
        '{"a":',
        "'single'",
        '[1,2,3]',
        '[1,1,1]',
        'x'.repeat(2000),
        JSON.stringify('y'.repeat(12_000)),
        '[[[[[[[[[1]]]]]]]]]',
      )
      .map(text),
  },
  { weight: 4, arbitrary: prototypeShaped },
  { weight: 1, arbitrary: hugeValue },
  // Invalid UTF-8, surrogates (CESU), overlong forms; lone surrogates escaped in JSON.
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      bytes(0xff),
      bytes(0xc3, 0x28),
      bytes(0xe2, 0x82),
      bytes(0xed, 0xa0, 0x80),
      bytes(0xed, 0xbf, 0xbf),
      bytes(0xc0, 0x80),
      bytes(0xf4, 0x90, 0x80, 0x80),
      bytes(0x22, 0xff, 0x22),
      bytes(0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d),
      text('"\\ud800"'),
      text('["\\udfff"]'),
      text('{"\\ud800":1}'),
      text('[{"operator":"search","operand":"\\ud800"}]'),
      text('"\\ud83d\\ude00"'),
    ),
  },
  // NUL and control characters.
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      text('\u0000'),
      text('a\u0000b'),
      text('"\\u0000"'),
      text('["\\u0000"]'),
      text('{"\\u0000":1}'),
      text('[{"operator":"\\u0000","operand":"\\u0000"}]'),
      text('\r\n\t\u001b[31m'),
      text('\u202e\u0301\ufeff'),
    ),
  },
  // Arbitrary JSON and arbitrary strings.
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => text(JSON.stringify(v) ?? 'null')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(text) },
);

/** Parameter names no client should send: prototype names, brackets, odd bytes. */
export const hostileName: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(...PROTOTYPE_KEYS).map(text),
  fc
    .constantFrom('method', '', 'a[b]', 'a[]', 'a[0][__proto__]', '%', '.', 'x'.repeat(300), 'subject', 'topic')
    .map(text),
  fc.constantFrom(bytes(0), bytes(0xff), bytes(0xed, 0xa0, 0x80)),
);

/** A path segment for a `:param` of the route. */
function pathValue(param: NonNullable<PathSegment['param']>, ctx: FuzzContext): fc.Arbitrary<Buffer> {
  const type = param.schema ? schemaType(param.schema) : undefined;
  const plausible: Array<fc.Arbitrary<Buffer>> = [
    fc.constantFrom(...ctx.ids).map((n) => text(String(n))),
    fc.constantFrom(...ctx.emails, ...ctx.names).map(text),
  ];
  if (param.example !== undefined)
    plausible.push(
      fc.constant(text(typeof param.example === 'string' ? param.example : JSON.stringify(param.example))),
    );
  if (type === 'integer') plausible.unshift(fc.constantFrom(...ctx.ids).map((n) => text(String(n))));
  const hostile = fc.oneof(
    fc.constantFrom('0', '-1', '1.5', '2147483648', '9'.repeat(30), 'abc', '..', '.', 'me', 'x'.repeat(3000)).map(text),
    fc.constantFrom(bytes(0), bytes(0xff), bytes(0xed, 0xa0, 0x80), text('a/b'), text('\\'), text('%')),
  );
  const one = fc.oneof({ weight: 3, arbitrary: fc.oneof(...plausible) }, { weight: 2, arbitrary: hostile });
  if (!param.wildcard) return one;
  return fc.array(one, { minLength: 1, maxLength: 3 }).map((parts) => Buffer.from(parts.map(percentEncode).join('/')));
}

/** Percent-encodes every byte but the unreserved ones (RFC 3986). */
export function percentEncode(value: Buffer): string {
  let out = '';
  for (const b of value) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Whole requests
// ---------------------------------------------------------------------------

export type Encoding =
  | 'query'
  | 'urlencoded'
  | 'multipart'
  | 'multipart-with-file'
  | 'urlencoded-and-query'
  | 'json'
  | 'text'
  | 'no-content-type'
  | 'multipart-no-boundary'
  | 'urlencoded-latin1'
  | 'xml';

export type AuthKind =
  | 'owner'
  | 'admin'
  | 'member'
  | 'guest'
  | 'none'
  | 'wrong-key'
  | 'unknown-user'
  | 'empty-key'
  | 'no-colon'
  | 'bad-base64'
  | 'bearer'
  | 'huge'
  | 'binary-user';

export interface FuzzCase {
  route: RouteModel;
  /** Raw (percent-encoded) path values, one per path parameter. */
  path: Buffer[];
  params: Array<[Buffer, Buffer]>;
  encoding: Encoding;
  auth: AuthKind;
}

/** How a case departs from a plausible request: which parameter, and how. */
interface Mutation {
  index: number;
  mode: 'replace' | 'duplicate' | 'drop';
  value: Buffer;
}

export function caseArbitrary(route: RouteModel, ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const pathParams = route.segments.filter((s) => s.param).map((s) => pathValue(s.param!, ctx));
  // A plausible request: every required parameter, and a few of the optional ones (or all of them)…
  const documented = route.params.map((def) =>
    (def.example === undefined
      ? plausibleValue(def.schema, ctx)
      : fc.oneof(fc.constant(def.example), plausibleValue(def.schema, ctx))
    ).map((v) => [encodePlausible(def, v)]),
  );
  const optional = route.params.flatMap((def, i) => (def.required ? [] : [i]));
  const chosen = fc.oneof(
    { weight: 3, arbitrary: fc.subarray(optional, { maxLength: Math.min(2, optional.length) }) },
    { weight: 1, arbitrary: fc.subarray(optional) },
  );
  // …with a few parameters made hostile, sent twice or dropped, so that most cases get past the
  // first check and reach the code behind it.
  const mutation: fc.Arbitrary<Mutation> = fc
    .record({
      index: fc.nat(Math.max(0, route.params.length - 1)),
      mode: fc.constantFrom<Mutation['mode']>('replace', 'replace', 'replace', 'duplicate', 'drop'),
      hostile: hostileValue,
      edge: fc.boolean(),
    })
    .chain(({ index, mode, hostile, edge }) => {
      const def = route.params[index];
      if (!edge || !def) return fc.constant({ index, mode, value: hostile });
      return edgeValue(def.schema, ctx).map((v) => ({ index, mode, value: encodePlausible(def, v) }));
    });
  const mutations = fc.oneof(
    { weight: 2, arbitrary: fc.constant([] as Mutation[]) },
    { weight: 3, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 4 }) },
  );
  const extras = fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as Array<[Buffer, Buffer]>) },
    { weight: 1, arbitrary: fc.array(fc.tuple(hostileName, hostileValue), { minLength: 1, maxLength: 2 }) },
  );
  const isGet = route.method === 'get';
  const encoding: fc.Arbitrary<Encoding> = fc.oneof(
    { weight: isGet ? 12 : 2, arbitrary: fc.constant('query' as const) },
    { weight: isGet ? 1 : 8, arbitrary: fc.constant('urlencoded' as const) },
    { weight: isGet ? 1 : 4, arbitrary: fc.constant('multipart' as const) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Encoding>(
        'multipart-with-file',
        'urlencoded-and-query',
        'json',
        'text',
        'no-content-type',
        'multipart-no-boundary',
        'urlencoded-latin1',
        'xml',
      ),
    },
  );
  const auth: fc.Arbitrary<AuthKind> = fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom<AuthKind>('owner', 'admin', 'member', 'guest') },
    {
      weight: 2,
      arbitrary: fc.constantFrom<AuthKind>(
        'none',
        'wrong-key',
        'unknown-user',
        'empty-key',
        'no-colon',
        'bad-base64',
        'bearer',
        'huge',
        'binary-user',
      ),
    },
  );
  return fc
    .record({
      path: pathParams.length > 0 ? fc.tuple(...pathParams) : fc.constant([] as Buffer[]),
      documented: documented.length > 0 ? fc.tuple(...documented) : fc.constant([] as Buffer[][]),
      chosen,
      mutations,
      extras,
      encoding,
      auth,
    })
    .map(
      ({ path, documented: values, chosen: picked, mutations: changes, extras: extra, encoding: enc, auth: who }) => {
        const lists = values.map((list, i) => (route.params[i].required || picked.includes(i) ? [...list] : []));
        for (const m of route.params.length > 0 ? changes : []) {
          const list = lists[m.index];
          if (m.mode === 'replace') lists[m.index] = [m.value];
          else if (m.mode === 'duplicate') list.splice(Math.min(1, list.length), 0, m.value);
          else lists[m.index] = [];
        }
        const params: Array<[Buffer, Buffer]> = [];
        lists.forEach((list, i) => {
          for (const v of list) params.push([text(route.params[i].name), v]);
        });
        params.push(...extra);
        return { route, path, params, encoding: enc, auth: who };
      },
    );
}

export interface Credentials {
  owner: [string, string];
  admin: [string, string];
  member: [string, string];
  guest: [string, string];
}

export interface WireRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

function basic(user: Buffer | string, password: string): string {
  const u = typeof user === 'string' ? Buffer.from(user) : user;
  return `Basic ${Buffer.concat([u, Buffer.from(`:${password}`)]).toString('base64')}`;
}

function authorization(kind: AuthKind, creds: Credentials): string | undefined {
  switch (kind) {
    case 'owner':
    case 'admin':
    case 'member':
    case 'guest':
      return basic(creds[kind][0], creds[kind][1]);
    case 'none':
      return undefined;
    case 'wrong-key':
      return basic(creds.member[0], 'x'.repeat(32));
    case 'unknown-user':
      return basic('nobody@zulip.com', creds.member[1]);
    case 'empty-key':
      return basic(creds.member[0], '');
    case 'no-colon':
      return `Basic ${Buffer.from(creds.member[0]).toString('base64')}`;
    case 'bad-base64':
      return 'Basic !!!not*base64';
    case 'bearer':
      return `Bearer ${creds.member[1]}`;
    case 'huge':
      return basic('a'.repeat(20_000), 'b');
    case 'binary-user':
      return basic(Buffer.from([0x00, 0xff, 0xed, 0xa0, 0x80, 0x40]), creds.member[1]);
  }
}

function formEncode(params: Array<[Buffer, Buffer]>): string {
  return params.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&');
}

function multipartBody(params: Array<[Buffer, Buffer]>, boundary: string, withFile: boolean): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of params) {
    // A field name cannot carry a quote or a line break in a header; everything else goes as is.
    const name = Buffer.from(k.toString('latin1').replace(/["\r\n]/g, '_'), 'latin1');
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="`), name, Buffer.from('"\r\n\r\n'));
    parts.push(v, Buffer.from('\r\n'));
  }
  if (withFile) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.txt"\r\n` +
          'Content-Type: text/plain\r\n\r\nfile content\r\n',
      ),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

/** The bytes on the wire for a case. */
export function toWire(c: FuzzCase, creds: Credentials): WireRequest {
  let i = 0;
  const path = c.route.segments
    .map((s) => {
      if (s.literal !== undefined) return s.literal;
      const value = c.path[i++];
      return s.param!.wildcard ? value.toString('latin1') : percentEncode(value);
    })
    .join('/');
  const headers: Record<string, string> = { Host: 'zulip.testserver' };
  const auth = authorization(c.auth, creds);
  if (auth !== undefined) headers.Authorization = auth;
  const form = formEncode(c.params);
  let query = '';
  let body: Buffer | undefined;
  switch (c.encoding) {
    case 'query':
      query = form;
      break;
    case 'urlencoded':
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = Buffer.from(form);
      break;
    case 'urlencoded-and-query': {
      const half = Math.ceil(c.params.length / 2);
      query = formEncode(c.params.slice(half));
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = Buffer.from(formEncode(c.params.slice(0, half)));
      break;
    }
    case 'urlencoded-latin1':
      headers['Content-Type'] = 'application/x-www-form-urlencoded; charset=latin1';
      body = Buffer.from(form);
      break;
    case 'multipart':
    case 'multipart-with-file':
      headers['Content-Type'] = 'multipart/form-data; boundary=fuzzBoundary7MA4YWxk';
      body = multipartBody(c.params, 'fuzzBoundary7MA4YWxk', c.encoding === 'multipart-with-file');
      break;
    case 'multipart-no-boundary':
      headers['Content-Type'] = 'multipart/form-data';
      body = multipartBody(c.params, 'b', false);
      break;
    case 'json':
      headers['Content-Type'] = 'application/json';
      body = Buffer.from(
        JSON.stringify(Object.fromEntries(c.params.map(([k, v]) => [k.toString('utf8'), v.toString('utf8')]))),
      );
      break;
    case 'text':
      headers['Content-Type'] = 'text/plain';
      body = Buffer.from(form);
      break;
    case 'xml':
      headers['Content-Type'] = 'application/xml; charset=utf-8';
      body = Buffer.from(`<a>${form}</a>`);
      break;
    case 'no-content-type':
      body = Buffer.from(form);
      break;
  }
  if (body) headers['Content-Length'] = String(body.length);
  return { method: c.route.method.toUpperCase(), path: `/${path}${query ? `?${query}` : ''}`, headers, body };
}

/** A short, readable account of a case for failure messages. */
export function describeCase(c: FuzzCase, wire: WireRequest): string {
  const shown = (b: Buffer) => {
    const s = JSON.stringify(b.toString('utf8'));
    return s.length > 120 ? `${s.slice(0, 120)}…(${b.length} bytes)` : s;
  };
  const params = c.params.map(([k, v]) => `${shown(k)}=${shown(v)}`).join(' ');
  const path = wire.path.length > 200 ? `${wire.path.slice(0, 200)}…(${wire.path.length} chars)` : wire.path;
  return `${wire.method} ${path} [${c.encoding}, auth ${c.auth}] ${params}`;
}
