/**
 * OpenAPI response validation for tests.
 *
 * Checks a response body against Zulip's own OpenAPI document (its shapes, kept in
 * test/fixtures/zulip/openapi.json by scripts/import-zulip-reference.js), the way Zulip's test
 * suite does with zerver/openapi/openapi.py `validate_against_openapi_schema`.
 *
 * Usage (in a Jest spec):
 *
 *   import { expectMatchesOpenApi, expectResponseMatchesOpenApi } from '../helpers/openapi';
 *
 *   const res = await request(app.getHttpServer()).get('/api/v1/messages/12').auth(email, key);
 *   expectMatchesOpenApi('get', '/messages/{message_id}', res.status, res.body);
 *   expectMatchesOpenApi('get', '/api/v1/messages/12', res.status, res.body);   // same thing
 *   expectResponseMatchesOpenApi(res);   // method/path taken from the supertest request
 *
 * Semantics:
 *  - The path may be templated ('/messages/{message_id}') or concrete
 *    ('/messages/12', '/api/v1/messages/12?apply_markdown=false', '/json/messages/12').
 *  - The response is chosen as exact status ('200') -> range ('4XX') -> 'default'.
 *    An error status (>= 400) that the operation does not document is checked
 *    against Zulip's generic error shape {result: 'error', msg, code, ...}
 *    (Zulip's own validator skips every 4xx body; we are stricter).
 *    An undocumented non-error status is a failure.
 *  - `additionalProperties: false` in the document is honoured, so unknown
 *    fields fail, as in Zulip's suite. Where the document omits
 *    additionalProperties, extra fields are allowed (JSON-schema default, and
 *    what openapi-core does for Zulip).
 *  - OpenAPI 3.0 `nullable: true` is converted to a JSON-schema type union.
 *  - `oneOf` is validated as `anyOf`: Zulip's document lists error variants that
 *    differ only in their `example` (e.g. CodedError vs InvalidMessageError), so a
 *    valid body matches several branches and strict oneOf would reject it.
 *  - `example`, `examples`, `description`, `x-*`, `discriminator`... are stripped
 *    before compiling.
 *  - A few places where the document contradicts its own examples are
 *    corrected (see applyErrata()).
 *  - A failed oneOf is reported through the errors of its closest alternative.
 *
 * The document is parsed lazily once per process (Jest: once per test file).
 *
 * Location of the document: env ZULIP_OPENAPI_PATH (a JSON document, e.g. one generated from
 * a newer Zulip with the import script into a scratch file), else
 * `<repo root>/test/fixtures/zulip/openapi.json`.
 */
import * as fs from 'fs';
import * as path from 'path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete' | 'put';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const COMPONENTS_ID = 'zulip-openapi-components.json';
const GENERIC_ERROR_KEY = '<generic error>';

// ---------------------------------------------------------------------------
// Locating and loading the document
// ---------------------------------------------------------------------------

const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Candidate locations of the OpenAPI document, in order of preference. */
export function openApiDocumentCandidates(): string[] {
  const fromEnv = process.env.ZULIP_OPENAPI_PATH;
  if (fromEnv) return [path.resolve(fromEnv)];
  return [path.resolve(REPO_ROOT, 'test', 'fixtures', 'zulip', 'openapi.json')];
}

/** Absolute path of the OpenAPI document in use (throws if none is found). */
export function openApiDocumentPath(): string {
  const candidates = openApiDocumentCandidates();
  for (const candidate of candidates) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(
    `Zulip OpenAPI document not found. Tried:\n  ${candidates.join('\n  ')}\n` +
      'Regenerate it with scripts/import-zulip-reference.js, or set ZULIP_OPENAPI_PATH to a JSON document.',
  );
}

let cachedDoc: { file: string; doc: Json } | undefined;

/** The parsed OpenAPI document (parsed once per process). */
export function loadOpenApiDocument(): Json {
  const file = openApiDocumentPath();
  if (cachedDoc && cachedDoc.file === file) return cachedDoc.doc;
  const doc: Json = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!doc || typeof doc !== 'object' || !doc.paths) {
    throw new Error(`${file} does not look like an OpenAPI document (no "paths")`);
  }
  cachedDoc = { file, doc };
  resetCompiled();
  return doc;
}

// ---------------------------------------------------------------------------
// Path / operation lookup
// ---------------------------------------------------------------------------

export interface OpenApiOperation {
  /** Templated path as written in the document, e.g. '/messages/{message_id}'. */
  template: string;
  method: HttpMethod;
  operation: Json;
}

/** Strip origin, query string, fragment and the /api/v1 or /json prefix. */
export function normalizeApiPath(input: string): string {
  let p = input.trim();
  p = p.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]+/i, ''); // absolute URL
  p = p.replace(/[?#].*$/, '');
  if (!p.startsWith('/')) p = `/${p}`;
  if (p === '/api/v1' || p.startsWith('/api/v1/')) p = p.slice('/api/v1'.length);
  else if (p === '/json' || p.startsWith('/json/')) p = p.slice('/json'.length);
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p || '/';
}

interface PathMatcher {
  template: string;
  literalSegments: number;
  strict: RegExp;
  loose: RegExp;
}

let pathMatchers: PathMatcher[] | undefined;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function buildPathMatchers(doc: Json): PathMatcher[] {
  const matchers: PathMatcher[] = [];
  for (const template of Object.keys(doc.paths)) {
    if (!template.includes('{')) continue;
    const segments = template.split('/');
    let literalSegments = 0;
    const strictParts: string[] = [];
    const looseParts: string[] = [];
    for (const segment of segments) {
      if (!segment.includes('{')) {
        literalSegments += 1;
        strictParts.push(escapeRegExp(segment));
        looseParts.push(escapeRegExp(segment));
        continue;
      }
      // Like Zulip's find_openapi_endpoint: `..._id` parameters are numeric,
      // `email` parameters are e-mail addresses; anything else is one segment.
      const strict = segment.replace(
        /\{([^}]*)\}|([^{]+)/g,
        (_m, name: string | undefined, lit: string | undefined) => {
          if (lit !== undefined) return escapeRegExp(lit);
          const n = name ?? '';
          if (/(^|_)id$/.test(n)) return '-?[0-9]+';
          if (n === 'email') return '[^/]*@[^/]*';
          return '[^/]+';
        },
      );
      const loose = segment.replace(/\{[^}]*\}|([^{]+)/g, (_m, lit: string | undefined) =>
        lit !== undefined ? escapeRegExp(lit) : '[^/]+',
      );
      strictParts.push(strict);
      looseParts.push(loose);
    }
    matchers.push({
      template,
      literalSegments,
      strict: new RegExp(`^${strictParts.join('/')}$`),
      loose: new RegExp(`^${looseParts.join('/')}$`),
    });
  }
  // Most specific (most literal segments) first.
  matchers.sort((a, b) => b.literalSegments - a.literalSegments || a.template.localeCompare(b.template));
  return matchers;
}

/**
 * Find the documented operation for a method and a (templated or concrete) path.
 * Returns undefined when the document has no such operation.
 */
export function findOpenApiOperation(method: string, apiPath: string): OpenApiOperation | undefined {
  const doc = loadOpenApiDocument();
  const m = method.toLowerCase() as HttpMethod;
  const p = normalizeApiPath(apiPath);
  const exact = doc.paths[p];
  if (exact && exact[m]) return { template: p, method: m, operation: exact[m] };

  pathMatchers ??= buildPathMatchers(doc);
  let decoded = p;
  try {
    decoded = decodeURI(p);
  } catch {
    // keep the raw path
  }
  for (const kind of ['strict', 'loose'] as const) {
    for (const matcher of pathMatchers) {
      if (!doc.paths[matcher.template][m]) continue;
      if (matcher[kind].test(p) || matcher[kind].test(decoded)) {
        return { template: matcher.template, method: m, operation: doc.paths[matcher.template][m] };
      }
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Response selection
// ---------------------------------------------------------------------------

function resolveRef(doc: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`Unsupported external $ref ${ref}`);
  let node: Json = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = node?.[key];
    if (node === undefined) throw new Error(`Unresolvable $ref ${ref}`);
  }
  return node;
}

function deref(doc: Json, node: Json): Json {
  let current = node;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    if (seen.has(current.$ref)) throw new Error(`Circular $ref ${current.$ref}`);
    seen.add(current.$ref);
    current = resolveRef(doc, current.$ref);
  }
  return current;
}

/** The key of `responses` used for a status: '200', '4XX', 'default', or undefined. */
function pickResponseKey(responses: Json, status: number): string | undefined {
  const exact = String(status);
  if (responses[exact]) return exact;
  const range = `${exact[0]}XX`;
  for (const key of Object.keys(responses)) {
    if (key.toUpperCase() === range) return key;
  }
  if (responses.default) return 'default';
  return undefined;
}

function jsonMediaType(content: Json): Json | undefined {
  if (!content || typeof content !== 'object') return undefined;
  if (content['application/json']) return content['application/json'];
  const key = Object.keys(content).find((k) => /^application\/([a-z0-9.+-]+\+)?json\b/i.test(k));
  return key ? content[key] : undefined;
}

interface ResponseSelection {
  /** 'responses["200"]' or the generic-error fallback. */
  label: string;
  cacheKey: string;
  /** Raw (untransformed) schema, or undefined when the response has no JSON content. */
  schema: Json | undefined;
  mediaType: Json | undefined;
}

function selectResponse(op: OpenApiOperation, status: number): ResponseSelection {
  const doc = loadOpenApiDocument();
  const responses = op.operation.responses ?? {};
  const key = pickResponseKey(responses, status);
  const where = `${op.method.toUpperCase()} ${op.template}`;
  if (key === undefined) {
    if (status >= 400) {
      return {
        label: `generic Zulip error shape (status ${status} is not documented for ${where}; documented: ${
          Object.keys(responses).join(', ') || 'none'
        })`,
        cacheKey: GENERIC_ERROR_KEY,
        schema: genericErrorSchema(doc),
        mediaType: undefined,
      };
    }
    throw new OpenApiMismatchError(
      `Status ${status} is not documented for ${where} in the Zulip OpenAPI document ` +
        `(documented: ${Object.keys(responses).join(', ') || 'none'}).`,
    );
  }
  const response = deref(doc, responses[key]);
  const mediaType = jsonMediaType(response?.content);
  return {
    label: `responses["${key}"]`,
    cacheKey: `${op.method} ${op.template} ${key}`,
    schema: mediaType?.schema,
    mediaType,
  };
}

function genericErrorSchema(doc: Json): Json {
  if (doc.components?.schemas?.CodedErrorBase) return { $ref: '#/components/schemas/CodedErrorBase' };
  return {
    type: 'object',
    required: ['result', 'msg', 'code'],
    properties: { result: { type: 'string', enum: ['error'] }, msg: { type: 'string' }, code: { type: 'string' } },
  };
}

// ---------------------------------------------------------------------------
// OpenAPI 3.0 schema -> JSON schema (draft-07, as Ajv expects)
// ---------------------------------------------------------------------------

/** Schema keywords that are annotations only (or OpenAPI-specific) and are dropped. */
const DROPPED_KEYWORDS = new Set([
  'example',
  'examples',
  'description',
  'title',
  'deprecated',
  'discriminator',
  'externalDocs',
  'xml',
  'readOnly',
  'writeOnly',
  'nullable',
]);

/** Keywords whose value is a schema. */
const SCHEMA_KEYWORDS = ['not', 'additionalItems', 'contains', 'propertyNames', 'if', 'then', 'else'];
/** Keywords whose value is an array of schemas. */
const SCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf'];
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependencies'];

function rewriteRef(ref: string): string {
  if (ref.startsWith('#/')) return `${COMPONENTS_ID}${ref}`;
  return ref;
}

/** Convert one OpenAPI 3.0 schema object into a draft-07 JSON schema (pure, deep copy). */
export function toJsonSchema(schema: Json): Json {
  if (schema === true || schema === false) return schema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;

  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key) || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = rewriteRef(value);
    } else if (key === 'oneOf' && Array.isArray(value)) {
      // See header: Zulip's oneOf branches overlap; treat as anyOf.
      out.anyOf = [...(out.anyOf ?? []), ...value.map(toJsonSchema)];
    } else if (SCHEMA_ARRAY_KEYWORDS.includes(key) && Array.isArray(value)) {
      out[key] = [...(out[key] ?? []), ...value.map(toJsonSchema)];
    } else if (SCHEMA_MAP_KEYWORDS.includes(key) && value && typeof value === 'object') {
      const mapped: Json = {};
      for (const [name, sub] of Object.entries(value)) mapped[name] = Array.isArray(sub) ? sub : toJsonSchema(sub);
      out[key] = mapped;
    } else if (key === 'items') {
      out.items = Array.isArray(value) ? value.map(toJsonSchema) : toJsonSchema(value);
    } else if (key === 'additionalProperties' && value && typeof value === 'object') {
      out.additionalProperties = toJsonSchema(value);
    } else if (SCHEMA_KEYWORDS.includes(key)) {
      out[key] = toJsonSchema(value);
    } else {
      out[key] = value;
    }
  }

  if (schema.nullable === true) return makeNullable(out);
  return out;
}

/** OpenAPI 3.0 `nullable: true` -> allow null. */
function makeNullable(s: Json): Json {
  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? [...s.type] : [s.type];
    if (!types.includes('null')) types.push('null');
    s.type = types;
    if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
    return s;
  }
  if (Array.isArray(s.enum)) {
    if (!s.enum.includes(null)) s.enum = [...s.enum, null];
    return s;
  }
  const constraining = Object.keys(s).some((k) => ['$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'const'].includes(k));
  if (!constraining) {
    // e.g. Zulip's `avatar_url: {nullable: true}` placeholders inside an allOf
    // branch: they constrain nothing, and null is fine.
    return s;
  }
  return { anyOf: [{ type: 'null' }, s] };
}

// ---------------------------------------------------------------------------
// Errata: places where the document's schema contradicts its own examples
// (Zulip's suite never notices, because it skips 4xx/429 bodies).
// ---------------------------------------------------------------------------

const CODED_ERROR_REF = '#/components/schemas/CodedError';
const CODED_ERROR_BASE_REF = '#/components/schemas/CodedErrorBase';

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Returns a corrected copy of a component schema (or the schema itself):
 *  1. RateLimitedError documents `retry-after` as integer, but its example
 *     (and Zulip's server) sends fractional seconds: accept any number.
 *  2. oneOf error variants written as `allOf: [CodedError]` (which forbids any
 *     field but result/msg/code) whose example carries more fields, e.g.
 *     MOVE_MESSAGES_TIME_LIMIT_EXCEEDED (first_message_id_allowed_to_move, ...)
 *     in update_message_400_response and CANNOT_DEACTIVATE_GROUP_IN_USE
 *     (objections) in deactivate_user_group_400_response: the example's extra
 *     fields are allowed, typed like the example's values (or null).
 */
function applyErrata(name: string, schema: Json): Json {
  if (!schema || typeof schema !== 'object') return schema;
  let out = schema;
  if (name === 'RateLimitedError' && Array.isArray(schema.allOf)) {
    out = {
      ...schema,
      allOf: schema.allOf.map((branch: Json) =>
        branch?.properties?.['retry-after']?.type === 'integer'
          ? {
              ...branch,
              properties: {
                ...branch.properties,
                'retry-after': { ...branch.properties['retry-after'], type: 'number' },
              },
            }
          : branch,
      ),
    };
  }
  if (Array.isArray(out.oneOf)) {
    out = { ...out, oneOf: out.oneOf.map(widenCodedErrorBranch) };
  }
  return out;
}

function widenCodedErrorBranch(branch: Json): Json {
  const example = branch?.example;
  if (
    !Array.isArray(branch?.allOf) ||
    branch.allOf.length !== 1 ||
    branch.allOf[0]?.$ref !== CODED_ERROR_REF ||
    !example ||
    typeof example !== 'object'
  ) {
    return branch;
  }
  const extra = Object.keys(example).filter((k) => !['result', 'msg', 'code'].includes(k));
  if (extra.length === 0) return branch;
  const properties: Json = { result: {}, msg: {}, code: {} };
  for (const key of extra) {
    const type = jsonTypeOf(example[key]);
    properties[key] = { type: type === 'null' ? ['null'] : type === 'integer' ? ['integer', 'null'] : [type, 'null'] };
  }
  return {
    ...branch,
    allOf: [{ $ref: CODED_ERROR_BASE_REF }, { type: 'object', additionalProperties: false, properties }],
  };
}

// ---------------------------------------------------------------------------
// Ajv
// ---------------------------------------------------------------------------

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function resetCompiled(): void {
  ajv = undefined;
  pathMatchers = undefined;
  compiled.clear();
}

function getAjv(): Ajv {
  if (ajv) return ajv;
  const doc = loadOpenApiDocument();
  const instance = new Ajv({
    strict: false,
    allErrors: true,
    validateFormats: true,
    // Ajv's own `nullable` support would reject `nullable` without `type`;
    // toJsonSchema() converts it instead.
    inlineRefs: true,
    // error.schema (the alternatives of a failed anyOf) is used to explain failures.
    verbose: true,
  });
  addFormats(instance);
  // OpenAPI-specific formats: no checks beyond `type`.
  for (const format of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) {
    instance.addFormat(format, true);
  }
  const schemas: Json = {};
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    schemas[name] = toJsonSchema(applyErrata(name, schema));
  }
  instance.addSchema({ $id: COMPONENTS_ID, components: { schemas } });
  ajv = instance;
  return instance;
}

function compileFor(selection: ResponseSelection): ValidateFunction {
  const hit = compiled.get(selection.cacheKey);
  if (hit) return hit;
  const validator = getAjv().compile(toJsonSchema(selection.schema));
  compiled.set(selection.cacheKey, validator);
  return validator;
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

export class OpenApiMismatchError extends Error {
  constructor(
    message: string,
    readonly ajvErrors: ErrorObject[] = [],
  ) {
    super(message);
    this.name = 'OpenApiMismatchError';
  }
}

export interface OpenApiValidationResult {
  valid: boolean;
  /** Templated path of the operation, e.g. '/messages/{message_id}'. */
  template: string;
  /** Which response was used: 'responses["200"]', or the generic error shape. */
  response: string;
  errors: ErrorObject[];
}

/**
 * Validate `body` against the documented response; never throws for a
 * mismatch (throws only for an unknown operation or an undocumented non-error status).
 */
export function validateAgainstOpenApi(
  method: HttpMethod | string,
  apiPath: string,
  status: number,
  body: unknown,
): OpenApiValidationResult {
  const op = findOpenApiOperation(method, apiPath);
  if (!op) {
    throw new OpenApiMismatchError(
      `No operation ${method.toUpperCase()} ${normalizeApiPath(apiPath)} (from ${apiPath}) in the Zulip OpenAPI document.`,
    );
  }
  const selection = selectResponse(op, status);
  if (selection.schema === undefined) {
    // Documented without a JSON body (e.g. POST /real-time).
    const empty =
      body === undefined ||
      body === null ||
      body === '' ||
      (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
    return {
      valid: empty,
      template: op.template,
      response: selection.label,
      errors: empty
        ? []
        : [
            {
              instancePath: '',
              schemaPath: '#',
              keyword: 'content',
              params: {},
              message: 'the document describes no JSON body for this response',
            } as ErrorObject,
          ],
    };
  }
  const validate = compileFor(selection);
  const valid = validate(body);
  return { valid, template: op.template, response: selection.label, errors: valid ? [] : [...(validate.errors ?? [])] };
}

/**
 * Assert that `body` is what Zulip's OpenAPI document says `method path`
 * returns with `status`. Throws an OpenApiMismatchError listing Ajv's errors
 * and an excerpt of the body otherwise.
 */
export function expectMatchesOpenApi(
  method: HttpMethod | string,
  apiPath: string,
  status: number,
  body: unknown,
): void {
  const result = validateAgainstOpenApi(method, apiPath, status, body);
  if (result.valid) return;
  const header =
    `Response does not match the Zulip OpenAPI document for ${method.toUpperCase()} ${result.template}` +
    (normalizeApiPath(apiPath) !== result.template ? ` (requested as ${apiPath})` : '') +
    `, status ${status}, schema ${result.response}:`;
  throw new OpenApiMismatchError(
    `${header}\n${formatAjvErrors(result.errors, body)}\n\nBody:\n${excerpt(body, 4000)}`,
    result.errors,
  );
}

/** The /register keys that are ours, not Zulip's (DECISIONS #2). */
export const SERVICE_KEYS = ['service_feature_level', 'service_version', 'service_merge_base'];

/**
 * A POST /register body checked against Zulip's document. DECISIONS #2: our service_* keys are
 * removed first (the document forbids unknown keys).
 */
export function expectRegisterMatchesOpenApi(body: unknown): void {
  const copy = { ...(body as Record<string, unknown>) };
  for (const k of SERVICE_KEYS) delete copy[k];
  // Zulip's document gives /register's `reminders` the scheduled-message schema, but its server
  // sends reminder dicts (get_undelivered_reminders), as GET /reminders does: checked as those.
  if (Array.isArray(copy.reminders) && copy.reminders.length > 0) {
    expectMatchesOpenApi('get', '/reminders', 200, { result: 'success', msg: '', reminders: copy.reminders });
    copy.reminders = [];
  }
  expectMatchesOpenApi('post', '/register', 200, copy);
}

/** Minimal shape of a supertest/superagent response. */
export interface ResponseLike {
  status: number;
  body: unknown;
  req?: { method?: string; path?: string };
  request?: { method?: string; url?: string };
}

/**
 * expectMatchesOpenApi() with method and path taken from a supertest response:
 *   expectResponseMatchesOpenApi(await request(server).get('/api/v1/users/me').auth(e, k));
 */
export function expectResponseMatchesOpenApi(res: ResponseLike): void {
  const method = res.req?.method ?? res.request?.method;
  const urlPath = res.req?.path ?? res.request?.url;
  if (!method || !urlPath) {
    throw new Error('expectResponseMatchesOpenApi: cannot tell the request method/path; use expectMatchesOpenApi()');
  }
  expectMatchesOpenApi(method.toLowerCase(), urlPath, res.status, res.body);
}

/**
 * The examples the document gives for a response, as Zulip's docs render them
 * (media-type `example`/`examples`, else the schema's `example` with allOf
 * branches merged like Zulip's naively_merge_allOf, one per oneOf branch).
 */
export function getOpenApiExamples(method: HttpMethod | string, apiPath: string, status: number): unknown[] {
  const doc = loadOpenApiDocument();
  const op = findOpenApiOperation(method, apiPath);
  if (!op) throw new Error(`No operation ${method.toUpperCase()} ${apiPath} in the Zulip OpenAPI document`);
  const responses = op.operation.responses ?? {};
  const key = pickResponseKey(responses, status);
  if (key === undefined) return [];
  const mediaType = jsonMediaType(deref(doc, responses[key])?.content);
  if (!mediaType) return [];
  const found: unknown[] = [];
  if (mediaType.example !== undefined) found.push(mediaType.example);
  for (const ex of Object.values(mediaType.examples ?? {})) {
    const value = deref(doc, ex as Json)?.value;
    if (value !== undefined) found.push(value);
  }
  if (found.length > 0) return found;
  const schema = deref(doc, mediaType.schema);
  const branches: Json[] = Array.isArray(schema?.oneOf) ? schema.oneOf : [schema];
  for (const branch of branches) {
    const example = schemaExample(doc, branch, 0);
    if (example !== undefined) found.push(example);
  }
  return found;
}

/**
 * Example of a schema: its own example, else the last allOf branch's (as in
 * Zulip's naively_merge_allOf). Placeholder examples that the document's
 * generator added to shared components ({result: "", msg: "", code: ""},
 * {api_key: "api_key", user_id: 0, ...}) are skipped.
 */
function schemaExample(doc: Json, schema: Json, depth: number): unknown {
  if (depth > 20 || !schema || typeof schema !== 'object') return undefined;
  const s = deref(doc, schema);
  if (s?.example !== undefined && !isPlaceholderExample(s.example)) return s.example;
  let example: unknown;
  if (Array.isArray(s?.allOf)) {
    for (const sub of s.allOf) {
      const subExample = schemaExample(doc, sub, depth + 1);
      if (subExample !== undefined) example = subExample;
    }
  }
  return example;
}

/**
 * Examples the document's generator synthesised beside `allOf` (Zulip's real
 * examples sit inside the allOf branches): a response example whose `result`
 * is not "success"/"error" (typically ""), or an object whose every value is
 * "", 0, false, null, [] or its own key name.
 */
export function isPlaceholderExample(example: unknown): boolean {
  if (!example || typeof example !== 'object' || Array.isArray(example)) return false;
  const record = example as Record<string, unknown>;
  if ('result' in record && record.result !== 'success' && record.result !== 'error') return true;
  const entries = Object.entries(record);
  return (
    entries.length > 0 &&
    entries.every(
      ([key, value]) =>
        value === '' ||
        value === 0 ||
        value === false ||
        value === null ||
        value === key ||
        (Array.isArray(value) && value.length === 0),
    )
  );
}

// ---------------------------------------------------------------------------
// Error formatting
// ---------------------------------------------------------------------------

function excerpt(value: unknown, max: number): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value, null, 2);
  } catch {
    text = String(value);
  }
  if (text === undefined) text = String(value);
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

function valueAt(body: unknown, pointer: string): unknown {
  if (!pointer) return body;
  let node: any = body;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = node[key];
  }
  return node;
}

function describeError(error: ErrorObject, body: unknown, prefix: string): string {
  const where = prefix + error.instancePath || '(root)';
  let detail = error.message ?? error.keyword;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties')
    detail = `unexpected property "${String(params.additionalProperty)}" (additionalProperties: false)`;
  else if (error.keyword === 'required') detail = `missing required property "${String(params.missingProperty)}"`;
  else if (error.keyword === 'enum') detail += ` ${JSON.stringify(params.allowedValues)}`;
  const value =
    error.keyword === 'required' || error.keyword === 'additionalProperties'
      ? undefined
      : valueAt(body, error.instancePath);
  const shown = value === undefined ? '' : `, got ${excerpt(value, 120).replace(/\s*\n\s*/g, ' ')}`;
  return `${where}: ${detail}${shown}   [schema ${error.schemaPath}]`;
}

function isUnder(pointer: string, parent: string): boolean {
  return pointer === parent || pointer.startsWith(`${parent}/`);
}

function branchName(branch: Json, index: number): string {
  const refName = (ref: unknown) => (typeof ref === 'string' ? ref.split('/').pop() : undefined);
  const name =
    refName(branch?.$ref) ??
    (Array.isArray(branch?.allOf)
      ? branch.allOf
          .map((b: Json) => refName(b?.$ref))
          .filter(Boolean)
          .join(' + ')
      : '') ??
    '';
  if (name) return `#${index} (${name})`;
  if (typeof branch?.type === 'string' || Array.isArray(branch?.type)) return `#${index} (${String(branch.type)})`;
  return `#${index}`;
}

/** Errors of `data` against one anyOf alternative, and how bad they look. */
function branchErrors(branch: Json, data: unknown): { errors: ErrorObject[]; score: number } {
  let validate: ValidateFunction;
  try {
    validate = getAjv().compile(branch);
  } catch {
    return { errors: [], score: Number.POSITIVE_INFINITY };
  }
  if (validate(data)) return { errors: [], score: 0 };
  const errors = [...(validate.errors ?? [])];
  let score = 0;
  for (const error of errors) {
    score += 1;
    // A wrong type at the top, or a wrong discriminator-like value (`type`,
    // `op`, ...: an enum/const on a direct property) means "wrong alternative".
    if (error.instancePath === '' && error.keyword === 'type') score += 1000;
    if ((error.keyword === 'enum' || error.keyword === 'const') && error.instancePath.split('/').length === 2)
      score += 100;
  }
  return { errors, score };
}

/**
 * Readable lines for Ajv errors: a failed anyOf (OpenAPI oneOf) is explained
 * by the errors of its closest alternative instead of every alternative's noise.
 */
function explainErrors(errors: ErrorObject[], body: unknown, prefix: string, depth: number, indent: string): string[] {
  // Outermost anyOf failures: shortest path; for one path the last one (Ajv
  // reports an enclosing anyOf after the ones nested in it).
  const anyOfs: ErrorObject[] = [];
  for (const error of errors) {
    if (error.keyword !== 'anyOf' || !Array.isArray(error.schema) || depth > 6) continue;
    if (anyOfs.some((a) => isUnder(error.instancePath, a.instancePath) && a.instancePath !== error.instancePath))
      continue;
    for (let i = anyOfs.length - 1; i >= 0; i -= 1) {
      if (isUnder(anyOfs[i].instancePath, error.instancePath)) anyOfs.splice(i, 1);
    }
    anyOfs.push(error);
  }

  const lines: string[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (anyOfs.some((a) => isUnder(error.instancePath, a.instancePath))) continue;
    const line = describeError(error, body, prefix);
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(`${indent}- ${line}`);
  }
  for (const anyOf of anyOfs) {
    const alternatives = anyOf.schema as Json[];
    const data = valueAt(body, anyOf.instancePath);
    const where = prefix + anyOf.instancePath || '(root)';
    let best: { index: number; errors: ErrorObject[]; score: number } | undefined;
    alternatives.forEach((branch, index) => {
      const result = branchErrors(branch, data);
      if (!best || result.score < best.score) best = { index, ...result };
    });
    lines.push(
      `${indent}- ${where}: matches none of the ${alternatives.length} alternatives (oneOf/anyOf)` +
        (best && best.errors.length > 0 ? `; closest is ${branchName(alternatives[best.index], best.index)}:` : ''),
    );
    if (best && best.errors.length > 0) {
      lines.push(...explainErrors(best.errors, data, prefix + anyOf.instancePath, depth + 1, `${indent}    `));
    }
  }
  return lines;
}

/** Ajv errors as readable lines (deduplicated, anyOf failures explained, capped). */
export function formatAjvErrors(errors: ErrorObject[], body: unknown, limit = 40): string {
  const lines = explainErrors(errors, body, '', 0, '  ');
  const shown = lines.slice(0, limit);
  if (lines.length > limit) shown.push(`  … and ${lines.length - limit} more`);
  return shown.join('\n');
}
