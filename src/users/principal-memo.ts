import { requestMemo } from '../common/request-scope';
import type { Principal } from './principal';

const KEY = 'principal:';

/** The principal of `userId` remembered by the current request, if any. */
export function rememberedPrincipal(userId: number): Principal | undefined {
  return requestMemo()?.get(KEY + userId) as Principal | undefined;
}

export function rememberPrincipal(principal: Principal): void {
  requestMemo()?.set(KEY + principal.id, principal);
}

/**
 * Forgets the principals the current request has loaded. This module's repositories call it on
 * every write to roles, activity or group membership, so a check after a change sees the change.
 */
export function forgetPrincipals(): void {
  const memo = requestMemo();
  if (!memo) return;
  for (const key of [...memo.keys()]) if (key.startsWith(KEY)) memo.delete(key);
}
