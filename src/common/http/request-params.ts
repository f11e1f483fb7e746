import type { Request } from 'express';

/** Per-request state the protocol layer keeps on the Express request. */
export interface ZulipRequestState {
  params?: Map<string, string>;
  read: Set<string>;
  requestId: string;
}

export type ZulipRequest = Request & { zulip?: ZulipRequestState };

function state(req: ZulipRequest): ZulipRequestState {
  if (!req.zulip) req.zulip = { read: new Set(), requestId: '' };
  return req.zulip;
}

/** Zulip (Django QueryDict) semantics: a repeated key yields its last value. */
function lastValue(v: unknown): string | undefined {
  if (Array.isArray(v)) return lastValue(v[v.length - 1]);
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/**
 * All parameters of the request: form body (urlencoded or multipart) first, then the query
 * string, for every method. JSON bodies are not an accepted encoding, so they contribute nothing.
 */
export function requestParams(req: ZulipRequest): Map<string, string> {
  const st = state(req);
  if (st.params) return st.params;
  const params = new Map<string, string>();
  const contentType = String(req.headers['content-type'] ?? '');
  const formBody =
    contentType.startsWith('application/x-www-form-urlencoded') || contentType.startsWith('multipart/form-data');
  const body = formBody && req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  for (const [k, v] of Object.entries(body)) {
    const s = lastValue(v);
    if (s !== undefined) params.set(k, s);
  }
  const query = (req.query ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(query)) {
    if (params.has(k)) continue;
    const s = lastValue(v);
    if (s !== undefined) params.set(k, s);
  }
  st.params = params;
  return params;
}

export function markParamsRead(req: ZulipRequest, names: Iterable<string>): void {
  const st = state(req);
  for (const n of names) st.read.add(n);
}

/** Sorted names of the request's parameters that no handler read. */
export function ignoredParams(req: ZulipRequest): string[] {
  const st = state(req);
  // No query string and no form fields: nothing to report (most GETs), without building the map.
  if (!st.params && typeof req.url === 'string' && !req.url.includes('?') && !hasFields(req.body)) return [];
  return [...requestParams(req).keys()].filter((k) => !st.read.has(k)).sort();
}

function hasFields(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false;
  for (const _ in body) return true;
  return false;
}

export function setRequestId(req: ZulipRequest, id: string): void {
  state(req).requestId = id;
}

export function requestIdOf(req: ZulipRequest): string {
  return state(req).requestId;
}
