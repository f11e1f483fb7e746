import 'reflect-metadata';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { plainToInstance, TransformationType } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage, validateSync, ValidationError } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import secureJsonParse from 'secure-json-parse';
import { ParamErrors } from '../errors/param.errors';
import { Errors, ZulipError } from '../errors/zulip-error';
import { requestParams, markParamsRead, ZulipRequest } from './request-params';

/**
 * Zulip's request-parameter protocol (zerver/lib/typed_endpoint.py), written once:
 *
 * - a DTO class lists its parameters with `@Arg()` in declaration order (Zulip checks them in
 *   that order and reports the first failure);
 * - values come from the form body, then the query string; aliases (`subject` for `topic`)
 *   count as the same parameter, and sending both is REQUEST_CONFUSING_VAR;
 * - parameters whose TypeScript type is not `string` arrive as JSON text and are decoded with a
 *   prototype-poisoning-safe parser (`x is not valid JSON`);
 * - class-validator decorators on the DTO check types and constraints; the first failure is
 *   turned into Zulip's text by {@link messageForConstraint};
 * - every name the DTO read is recorded so the envelope can list `ignored_parameters_unsupported`.
 */
export interface ParamOptions {
  /** Decode the raw text as JSON. Default: true unless the declared type is `string`. */
  json?: boolean;
  /** Deprecated names that mean the same parameter. */
  aliases?: string[];
  /** Absent is fine (the property stays undefined unless `default` is given). */
  optional?: boolean;
  default?: unknown;
  /** Name on the wire when it differs from the property name. */
  name?: string;
}

interface ParamSpec extends Required<Pick<ParamOptions, 'json' | 'aliases' | 'optional'>> {
  property: string;
  name: string;
  default: unknown;
  hasDefault: boolean;
}

const PARAMS_KEY = Symbol('zulip:params');

export function Arg(options: ParamOptions = {}): PropertyDecorator {
  return (target, propertyKey) => {
    const property = String(propertyKey);
    const designType = Reflect.getMetadata('design:type', target, propertyKey) as unknown;
    const ctor = target.constructor;
    const own: ParamSpec[] = Reflect.hasOwnMetadata(PARAMS_KEY, ctor)
      ? (Reflect.getOwnMetadata(PARAMS_KEY, ctor) as ParamSpec[])
      : [...((Reflect.getMetadata(PARAMS_KEY, ctor) as ParamSpec[] | undefined) ?? [])];
    own.push({
      property,
      name: options.name ?? property,
      json: options.json ?? designType !== String,
      aliases: options.aliases ?? [],
      optional: options.optional ?? 'default' in options,
      default: options.default,
      hasDefault: 'default' in options,
    });
    Reflect.defineMetadata(PARAMS_KEY, own, ctor);
  };
}

/** Shorthand for an optional parameter. */
export function OptionalArg(options: Omit<ParamOptions, 'optional'> = {}): PropertyDecorator {
  return Arg({ ...options, optional: true });
}

export function paramSpecs(dto: new () => object): ParamSpec[] {
  return (Reflect.getMetadata(PARAMS_KEY, dto) as ParamSpec[] | undefined) ?? [];
}

function limitOf(args: Record<string, unknown>): string {
  return typeof args.limit === 'number' ? String(args.limit) : '?';
}

/** Zulip's message for a class-validator constraint failure on parameter `name`. */
export function messageForConstraint(name: string, constraint: string, error: ValidationError): string {
  const args = { limit: constraintArgs(error, constraint)[0], ...(error.contexts?.[constraint] ?? {}) } as Record<
    string,
    unknown
  >;
  switch (constraint) {
    case 'isBoolean':
      return ParamErrors.notABoolean(name).message;
    case 'isInt':
      return ParamErrors.notAnInteger(name).message;
    case 'isNumber':
      return ParamErrors.notAFloat(name).message;
    case 'isString':
      return ParamErrors.notAString(name).message;
    case 'isArray':
      return ParamErrors.notAList(name).message;
    case 'isObject':
      return ParamErrors.notADict(name).message;
    case 'isIn':
    case 'isEnum':
      return ParamErrors.invalid(name).message;
    case 'maxLength':
      return ParamErrors.tooLong(name, limitOf(args)).message;
    case 'isNotEmpty':
    case 'minLength':
      return ParamErrors.cannotBeBlank(name).message;
    case 'matches':
      return ParamErrors.invalidFormat(name).message;
    case 'min':
      return ParamErrors.tooSmall(name).message;
    case 'max':
      return ParamErrors.tooLarge(name).message;
    case 'arrayMaxSize':
      return ParamErrors.tooManyItems(name, limitOf(args)).message;
    default: {
      // Custom validators carry their full Zulip text as the message.
      const custom = error.constraints?.[constraint];
      return custom ?? ParamErrors.invalid(name).message;
    }
  }
}

type TargetMetadatas = (
  target: object,
  schema: string,
  always: boolean,
  strictGroups: boolean,
  groups?: string[],
) => ValidationMetadata[];

/**
 * class-validator looks up a class's validation metadata on every validation by walking every
 * validated class of the process (an `instanceof` test each, ~80 DTOs here) and filtering their
 * decorators: the larger part of validating a request's parameters (issue 15). The result
 * depends only on the arguments and on the metadata declared so far, which decorators add at
 * class definition: it is kept per class and argument set, and forgotten whenever metadata is
 * added. Validation with groups (which we never use) is not cached.
 */
function cacheTargetMetadatas(): void {
  const storage = getMetadataStorage() as unknown as {
    getTargetValidationMetadatas: TargetMetadatas;
    addValidationMetadata: (metadata: ValidationMetadata) => void;
  };
  if (
    typeof storage.getTargetValidationMetadatas !== 'function' ||
    typeof storage.addValidationMetadata !== 'function'
  ) {
    return;
  }
  const lookup: TargetMetadatas = storage.getTargetValidationMetadatas.bind(storage);
  const add: (metadata: ValidationMetadata) => void = storage.addValidationMetadata.bind(storage);
  let cache = new Map<object, Map<string, ValidationMetadata[]>>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups && groups.length > 0) return lookup(target, schema, always, strictGroups, groups);
    const key = `${schema}\u0000${always}\u0000${strictGroups}`;
    let perTarget = cache.get(target);
    if (!perTarget) cache.set(target, (perTarget = new Map<string, ValidationMetadata[]>()));
    let found = perTarget.get(key);
    if (!found) perTarget.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
  storage.addValidationMetadata = (metadata) => {
    cache = new Map();
    add(metadata);
  };
}
cacheTargetMetadatas();

/** The arguments a class-validator decorator was declared with (`@MaxLength(60)` → [60]). */
function constraintArgs(error: ValidationError, constraint: string): unknown[] {
  const target = error.target?.constructor;
  if (!target) return [];
  const meta = getMetadataStorage()
    .getTargetValidationMetadatas(target, '', true, false)
    .find((m) => m.propertyName === error.property && m.name === constraint);
  return (meta?.constraints as unknown[] | undefined) ?? [];
}

function decodeJson(name: string, raw: string): unknown {
  try {
    return secureJsonParse.parse(raw, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    throw ParamErrors.notValidJson(name);
  }
}

/** Largest nesting depth accepted in a JSON parameter. */
export const MAX_JSON_DEPTH = 8;
/** Longest list accepted anywhere inside a JSON parameter. */
export const MAX_JSON_LIST_LENGTH = 10_000;

function checkShape(name: string, value: unknown, depth = 0): void {
  if (value === null || typeof value !== 'object') return;
  if (depth >= MAX_JSON_DEPTH) throw ParamErrors.nestedTooDeeply(name);
  if (Array.isArray(value)) {
    if (value.length > MAX_JSON_LIST_LENGTH) {
      throw ParamErrors.tooManyItems(name, MAX_JSON_LIST_LENGTH);
    }
    for (const item of value) checkShape(name, item, depth + 1);
    return;
  }
  for (const item of Object.values(value)) checkShape(name, item, depth + 1);
}

/**
 * Reads, decodes and validates the parameters of `dto` from `source` (body wins over query).
 * Returns the DTO instance and the names that were read.
 */
export function parseParams<T extends object>(
  dto: new () => T,
  source: ReadonlyMap<string, string>,
): { value: T; read: string[] } {
  const specs = paramSpecs(dto);
  const plain: Record<string, unknown> = {};
  const read: string[] = [];
  let pending: { index: number; error: ZulipError } | undefined;

  for (let i = 0; i < specs.length && !pending; i++) {
    const spec = specs[i];
    let used: string | undefined;
    let raw: string | undefined;
    for (const candidate of [spec.name, ...spec.aliases]) {
      const v = source.get(candidate);
      if (v === undefined) continue;
      if (used !== undefined) {
        pending = { index: i, error: Errors.confusingVar(used, candidate) };
        break;
      }
      used = candidate;
      raw = v;
    }
    if (pending) break;
    if (used === undefined || raw === undefined) {
      if (!spec.optional) pending = { index: i, error: Errors.missingArgument(spec.name) };
      else if (spec.hasDefault) plain[spec.property] = spec.default;
      continue;
    }
    read.push(used);
    if (!spec.json) {
      plain[spec.property] = raw;
      continue;
    }
    try {
      const decoded = decodeJson(spec.name, raw);
      checkShape(spec.name, decoded);
      plain[spec.property] = decoded;
    } catch (err) {
      pending = { index: i, error: err as ZulipError };
    }
  }

  const value = toInstance(dto, plain);
  // Only properties we set are validated; properties after a pending error are left undefined.
  const errors = validateSync(value, { skipUndefinedProperties: true, forbidUnknownValues: false });
  if (errors.length > 0) {
    const order = new Map(specs.map((s, i) => [s.property, i]));
    errors.sort((a, b) => (order.get(a.property) ?? 0) - (order.get(b.property) ?? 0));
    const first = errors[0];
    const idx = order.get(first.property) ?? 0;
    if (!pending || idx < pending.index) {
      const spec = specs[idx];
      throw Errors.badRequest(firstConstraintMessage(spec?.name ?? first.property, first));
    }
  }
  if (pending) throw pending.error;
  return { value, read };
}

const transforming = new WeakMap<object, boolean>();

/**
 * Whether class-transformer has anything to do for `dto`'s parameters (`@Transform`, `@Type`,
 * `@Expose`, `@Exclude` on it or its ancestors). Most DTOs have none: theirs are built directly
 * (class-transformer's generic walk was ~20 µs of every request with parameters, issue 15).
 */
function transformsStrings(dto: new () => object): boolean {
  let known = transforming.get(dto);
  if (known === undefined) {
    const storage = defaultMetadataStorage;
    known =
      storage.getStrategy(dto) !== 'none' ||
      storage.getExposedMetadatas(dto).length > 0 ||
      storage.getExcludedMetadatas(dto).length > 0 ||
      paramSpecs(dto).some(
        (spec) =>
          storage.findTransformMetadatas(dto, spec.property, TransformationType.PLAIN_TO_CLASS).length > 0 ||
          storage.findTypeMetadata(dto, spec.property) !== undefined,
      );
    transforming.set(dto, known);
  }
  return known;
}

/**
 * The DTO instance for the collected values. Only strings (raw parameters, and string defaults)
 * go through class-transformer, so that `@Transform` on a raw parameter still applies. Decoded
 * JSON values and non-string defaults are assigned as plain data afterwards: class-transformer
 * walks nested objects and follows their `constructor` (and other Object.prototype names), which
 * a client controls — `{"constructor": {}}` made it throw inside `MetadataStorage.getAncestors`.
 * The values are ordinary JSON.parse objects (own data properties only; `__proto__` keys removed
 * by the parser), checked by class-validator's type decorators and then by our own code as data.
 */
function toInstance<T extends object>(dto: new () => T, plain: Record<string, unknown>): T {
  const strings: Record<string, string> = {};
  const data: Array<[string, unknown]> = [];
  for (const [property, v] of Object.entries(plain)) {
    if (typeof v === 'string') strings[property] = v;
    else data.push([property, v]);
  }
  let value: T;
  if (transformsStrings(dto)) {
    value = plainToInstance(dto, strings, { exposeDefaultValues: false });
  } else {
    // What plainToInstance does for a class it has no metadata for, without its per-call walk.
    value = new dto();
    for (const property of Object.keys(strings)) (value as Record<string, unknown>)[property] = strings[property];
  }
  for (const [property, v] of data) {
    Object.defineProperty(value, property, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return value;
}

const TYPE_CHECKS = ['isArray', 'isObject', 'isBoolean', 'isInt', 'isNumber', 'isString'];

function firstConstraintMessage(name: string, error: ValidationError): string {
  if (error.constraints) {
    const keys = Object.keys(error.constraints);
    // class-validator reports constraints in reverse declaration order; type checks come first,
    // and the container's type (`@IsArray()`) before its items' (`@IsInt({ each: true })`).
    const typeCheck = TYPE_CHECKS.find((k) => keys.includes(k));
    return messageForConstraint(name, typeCheck ?? keys[keys.length - 1], error);
  }
  if (error.children && error.children.length > 0) {
    const child = error.children[0];
    return firstConstraintMessage(`${name}[${JSON.stringify(child.property)}]`, child);
  }
  return ParamErrors.invalid(name).message;
}

/**
 * `@Args(Dto)` in a controller method: the request's parameters parsed into `Dto`.
 */
export const Args = createParamDecorator((dto: new () => object, ctx: ExecutionContext) =>
  readArgs(ctx.switchToHttp().getRequest<ZulipRequest>(), dto),
);

/**
 * What `@Args(Dto)` does, for a handler that must act on a refusal of its own parameters (GET
 * /events counts a refused poll against the rate limit): parse inside the handler.
 */
export function readArgs<T extends object>(req: object, dto: new () => T): T {
  const { value, read } = parseParams(dto, requestParams(req as ZulipRequest));
  markParamsRead(req as ZulipRequest, read);
  return value;
}
