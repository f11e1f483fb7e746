import { KeyObject, sign } from 'node:crypto';

/** base64url without padding (RFC 7515). */
export function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/**
 * A compact JWS: ES256 (APNs provider tokens; the signature is the raw 64-byte r||s, not DER) or
 * RS256 (Google service-account assertions).
 */
export function signJwt(
  alg: 'ES256' | 'RS256',
  key: KeyObject,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): string {
  const input = `${base64url(JSON.stringify({ alg, typ: 'JWT', ...header }))}.${base64url(JSON.stringify(claims))}`;
  const signature =
    alg === 'ES256'
      ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
      : sign('sha256', Buffer.from(input), key);
  return `${input}.${base64url(signature)}`;
}
