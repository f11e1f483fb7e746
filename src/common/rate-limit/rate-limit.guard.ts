import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { AuthContext } from '../auth/auth.types';
import { Errors } from '../errors/zulip-error';
import { RateLimiter } from './rate-limiter';

export const RATE_LIMITER = Symbol('RATE_LIMITER');

const DEFERRED_COUNT = Symbol('rateLimitDeferredCount');

interface RateLimitedRequest {
  user?: AuthContext;
  path: string;
  method: string;
  query?: Record<string, unknown>;
  body?: unknown;
  [DEFERRED_COUNT]?: () => Promise<void>;
}

/**
 * GET /events without `dont_block`: the guard cannot know yet whether the poll will park, so it
 * leaves the counting to the handler, which calls this once it knows the poll was answered at
 * once (events were already pending, or it failed). A parked poll never calls it and stays uncounted. Throws
 * RATE_LIMIT_HIT when the user is over the limit; a no-op when the guard deferred nothing.
 */
export async function countUnparkedPoll(req: object): Promise<void> {
  await (req as RateLimitedRequest)[DEFERRED_COUNT]?.();
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
 * absolute UNIX time). GET /events with `dont_block=true` answers at once, like any request, and
 * is counted here; a GET /events without it is counted by the handler (countUnparkedPoll) only
 * when it is answered at once because events were pending, so only a poll that parks is free.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(@Inject(RATE_LIMITER) private readonly limiter: RateLimiter) {}

  /** Synchronous when nothing is counted (limits off, public route): no promise per request. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!this.limiter.enabled) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<RateLimitedRequest>();
    if (!req.user) return true;
    const key = `user:${req.user.user.id}`;
    const res = http.getResponse<Response>();
    if (isLongPoll(req)) {
      req[DEFERRED_COUNT] = () => this.count(key, res);
      return true;
    }
    return this.count(key, res).then(() => true);
  }

  /** Records a request for `key`; sets the X-RateLimit-* headers; throws when over the limit. */
  private async count(key: string, res: Response): Promise<void> {
    const decision = await this.limiter.check(key);
    if (!decision) return;
    res.setHeader('X-RateLimit-Limit', String(decision.limit));
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(decision.resetAt));
    if (decision.limited) {
      throw Errors.rateLimited(decision.retryAfter);
    }
  }
}
