import { ContextSlot } from './async-context';

/**
 * Per-request memory: values computed once per HTTP request (the caller's principal) and reused by
 * every service the request reaches. `bootstrap.ts` opens a scope for each request; outside one
 * (jobs, domain-event handlers after commit, the CLI) nothing is remembered and every call computes.
 */
const storage = new ContextSlot<Map<string, unknown>>();

export function runInRequestScope<T>(fn: () => T): T {
  return storage.run(new Map(), fn);
}

/** The memory of the current request, if there is one. Keys are namespaced by their owner (`principal:7`). */
export function requestMemo(): Map<string, unknown> | undefined {
  return storage.getStore();
}
