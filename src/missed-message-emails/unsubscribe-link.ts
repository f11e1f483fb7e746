/**
 * One-click unsubscribe links (Zulip's one_click_unsubscribe_link): the path carries the kind of
 * email, the realm and user ids, and an HMAC of the three keyed by the server secret, so a link
 * needs no stored row, cannot be forged or moved to another user or kind, and keeps working
 * (turning a setting off twice is harmless). Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Email kinds with an unsubscribe link, and the personal setting each one turns off. */
export const UNSUBSCRIBE_SETTINGS = {
  missed_messages: 'enable_offline_email_notifications',
} as const;

export type UnsubscribeKind = keyof typeof UNSUBSCRIBE_SETTINGS;

function mac(secret: string, kind: string, realmId: number, userId: number): string {
  return createHmac('sha256', secret)
    .update(`unsubscribe:${kind}:${realmId}:${userId}`)
    .digest('base64url')
    .slice(0, 32);
}

/** The token of the link's last path segment: `<realm id>.<user id>.<mac>`. */
export function unsubscribeToken(secret: string, kind: UnsubscribeKind, realmId: number, userId: number): string {
  return `${realmId}.${userId}.${mac(secret, kind, realmId, userId)}`;
}

/** The realm and user a token names, or null when it is not one of ours for `kind`. */
export function readUnsubscribeToken(
  secret: string,
  kind: string,
  token: string,
): { kind: UnsubscribeKind; realmId: number; userId: number } | null {
  if (!Object.prototype.hasOwnProperty.call(UNSUBSCRIBE_SETTINGS, kind)) return null;
  const m = /^([1-9][0-9]{0,8})\.([1-9][0-9]{0,8})\.([A-Za-z0-9_-]{32})$/.exec(token);
  if (!m) return null;
  const realmId = Number(m[1]);
  const userId = Number(m[2]);
  const expected = Buffer.from(mac(secret, kind, realmId, userId));
  const given = Buffer.from(m[3]);
  if (!timingSafeEqual(expected, given)) return null;
  return { kind: kind as UnsubscribeKind, realmId, userId };
}
