import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger as Pino } from 'pino';
import type { AuthContext } from '../common/auth/auth.types';
import { setRequestId, type ZulipRequest } from '../common/http/request-params';

/** What the metrics see of each finished request (route = the Express route template, or null). */
export type RequestObserver = (method: string, route: string | null, status: number, seconds: number) => void;

/** A client-chosen X-Request-Id is kept when it is short and plain (it ends up in log lines). */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

/** Probes and scrapes: logged at debug, so that they do not drown the access log. */
const QUIET_ROUTES = new Set(['/health', '/health/ready', '/metrics']);

/**
 * The first middleware of the app: takes the request id from X-Request-Id (or makes one), returns
 * it in the response header, and when the response is done writes one access line — method, route
 * template, status, duration, user id and realm, request id — and reports it to `observe`
 * (metrics). The fields are listed one by one: never headers, parameters or bodies. While the
 * server drains (`draining()`), responses carry `Connection: close`.
 */
export function requestLogging(logger: Pino, observe: RequestObserver, draining: () => boolean) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = performance.now();
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    setRequestId(req as ZulipRequest, id);
    res.setHeader('X-Request-Id', id);
    if (draining()) res.setHeader('Connection', 'close');
    res.once('close', () => {
      const ms = performance.now() - start;
      const route = (req.route as { path?: string } | undefined)?.path ?? null;
      const status = res.statusCode;
      observe(req.method, route, status, ms / 1000);
      const level = route !== null && QUIET_ROUTES.has(route) ? 'debug' : status >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const auth = (req as Request & { user?: AuthContext }).user;
      logger[level](
        {
          reqId: id,
          method: req.method,
          route,
          path: route === null ? req.path.slice(0, 200) : undefined,
          status,
          ms: Math.round(ms * 100) / 100,
          userId: auth?.user.id,
          realm: auth?.realm.stringId,
          aborted: res.writableFinished ? undefined : true,
        },
        'request',
      );
    });
    next();
  };
}
