import { randomBytes } from 'node:crypto';

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * A value of a handler's result whose JSON text (UTF-8) was produced ahead of time, e.g. joined
 * from fragments a cache keeps: the envelope's `sendJson` splices the bytes into the response as
 * they are, so a large listing is neither serialised nor encoded again. The bytes must be exactly
 * `JSON.stringify` of the value they stand for; any other path (Express's `res.json`, a logger)
 * sees that value through `toJSON`.
 */
export class RawJson {
  /** The JSON text's bytes, in pieces written one after the other (views of cached buffers). */
  readonly parts: readonly Buffer[];

  constructor(bytes: Buffer | readonly Buffer[]) {
    this.parts = Buffer.isBuffer(bytes) ? [bytes] : bytes;
  }

  /** The whole text in one buffer (copied when it is in pieces). */
  get bytes(): Buffer {
    return this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
  }

  /** A JSON array of the given elements' JSON texts, as `JSON.stringify` writes it. */
  static array(elements: readonly Buffer[]): RawJson {
    const parts: Buffer[] = [OPEN];
    elements.forEach((element, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(element);
    });
    parts.push(CLOSE);
    return new RawJson(Buffer.concat(parts));
  }

  toJSON(): unknown {
    return JSON.parse(this.bytes.toString('utf8'));
  }
}

/**
 * Remembers the last few arrays {@link RawJson.array} joined for a key (a cache's frozen row list,
 * say), so the same elements are not copied into a new buffer on every request: GET /streams
 * joins the same 1,000 cached channel dicts (~800 KB) for every member of a realm who sees the
 * same channels. An entry serves only when every element is the very buffer it was joined from.
 */
export class JoinedArrays<K extends object> {
  private readonly joined = new WeakMap<K, Array<{ elements: readonly Buffer[]; json: RawJson }>>();

  constructor(private readonly perKey = 4) {}

  array(key: K, elements: readonly Buffer[]): RawJson {
    let entries = this.joined.get(key);
    const hit = entries?.find((e) => sameBuffers(e.elements, elements));
    if (hit) return hit.json;
    const json = RawJson.array(elements);
    if (!entries) this.joined.set(key, (entries = []));
    entries.unshift({ elements, json });
    if (entries.length > this.perKey) entries.pop();
    return json;
  }
}

function sameBuffers(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Stands for a RawJson value in the serialised body; no client string can hold it by chance. */
const MARKER = `\u0000raw-json-${randomBytes(12).toString('hex')}-`;

/**
 * The UTF-8 JSON of `body`, whose top-level RawJson values are spliced in as their bytes; null
 * when it holds none (the caller serialises it as usual).
 */
export function encodeWithRawJson(body: Record<string, unknown>): Buffer | null {
  const parts = encodeWithRawJsonParts(body);
  return parts && Buffer.concat(parts.parts, parts.length);
}

/**
 * {@link encodeWithRawJson} as the pieces to write one after the other (a 5 MB POST /register is
 * not copied into one buffer first), and their total length.
 */
export function encodeWithRawJsonParts(body: Record<string, unknown>): { parts: Buffer[]; length: number } | null {
  let raws: RawJson[] | undefined;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (!(value instanceof RawJson)) continue;
    raws ??= [];
    copy ??= { ...body };
    copy[key] = `${MARKER}${raws.length}`;
    raws.push(value);
  }
  if (!raws || !copy) return null;
  const json = JSON.stringify(copy);
  const parts: Buffer[] = [];
  let from = 0;
  raws.forEach((raw, i) => {
    const placeholder = JSON.stringify(`${MARKER}${i}`);
    const at = json.indexOf(placeholder, from);
    parts.push(Buffer.from(json.slice(from, at), 'utf8'), ...raw.parts);
    from = at + placeholder.length;
  });
  parts.push(Buffer.from(json.slice(from), 'utf8'));
  let length = 0;
  for (const part of parts) length += part.length;
  return { parts, length };
}
