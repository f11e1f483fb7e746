import type { NextFunction, Request, Response } from 'express';
import { Errors } from '../errors/zulip-error';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses state-changing requests that a browser sent on behalf of another site with the user's
 * credentials (Basic credentials it remembers, or cookies): a cross-site form post would otherwise
 * act as the user. Zulip's web app relies on Django's CSRF check for its session cookie; our API
 * has no sessions, so the browser's own statement decides: `Sec-Fetch-Site: cross-site`, or an
 * `Origin` that is not the host the request was sent to. API clients (the mobile and terminal
 * apps, zulip-js, the Python bindings) send neither header and are unaffected. Checked on the
 * method the client really sent, before a `method=` override.
 */
export function refuseCrossSiteRequests(req: Request, _res: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(req.method)) return next();
  if (!req.headers.authorization && !req.headers.cookie) return next();
  const fetchSite = String(req.headers['sec-fetch-site'] ?? '').toLowerCase();
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!sameHost(origin, req.headers.host)) return next(Errors.csrfBadOrigin(origin));
    return next();
  }
  if (fetchSite === 'cross-site') return next(Errors.csrfCrossSite());
  next();
}

function sameHost(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false; // "null" (a sandboxed or opaque origin) and anything malformed
  }
}
