import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { AuthContext } from '../auth/auth.types';
import { Errors } from '../errors/zulip-error';
import { RateLimiter } from './rate-limiter';

export const RATE_LIMITER = Symbol('RATE_LIMITER');

interface RateLimitedRequest {
  user?: AuthContext;
  path: string;
  method: string;
  query?: Record<string, unknown>;
  body?: unknown;
}

/**
 * GET /events that may park: dont_block absent or `false` (parameters come from the body, then
 * the query). Any other value, valid or not, is counted.
 */
function isLongPoll(req: RateLimitedRequest): boolean {
  if (req.method !== 'GET' || req.path !== '/api/v1/events') return false;
  const body = req.body !== null && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const raw = body.dont_block ?? req.query?.dont_block;
  return raw === undefined || (typeof raw === 'string' && raw.trim() === 'false');
}

/**
 * Zulip's per-user API rate limit: every authenticated request is counted; over the limit the
 * answer is 429 RATE_LIMIT_HIT with `retry-after` and the X-RateLimit-* headers (Reset is an
 * absolute UNIX time). Long-polls of GET /events are not counted; GET /events with
 * `dont_block=true` answers at once, like any request, and is counted.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(@Inject(RATE_LIMITER) private readonly limiter: RateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.limiter.enabled) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<RateLimitedRequest>();
    if (!req.user || isLongPoll(req)) return true;
    const decision = await this.limiter.check(`user:${req.user.user.id}`);
    if (!decision) return true;
    const res = http.getResponse<Response>();
    res.setHeader('X-RateLimit-Limit', String(decision.limit));
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(decision.resetAt));
    if (decision.limited) {
      throw Errors.rateLimited(decision.retryAfter);
    }
    return true;
  }
}
