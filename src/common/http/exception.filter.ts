import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { isUniqueViolation } from '../errors/unique-violation';
import { Errors, SESSION_WWW_AUTHENTICATE, ZulipError } from '../errors/zulip-error';
import { allowedMethodsFor } from './routes';
import { requestIdOf, ZulipRequest } from './request-params';

/**
 * The one place errors become HTTP responses. ZulipError renders as Zulip's error envelope;
 * routing errors become JSON 404/405; anything unexpected is logged with the request id and
 * answered with a bare 500 envelope (never a stack trace or SQL text).
 */
@Catch()
export class ZulipExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<ZulipRequest>();
    if (res.headersSent) return;
    const error = this.toZulipError(exception, req);
    for (const [k, v] of Object.entries(error.headers)) {
      // Basic only under /api/: pages and files a browser opens (/user_uploads/…) must not make it
      // prompt for, and then keep sending, the user's credentials (Zulip answers `Session` there).
      const browserPath = !(req.path ?? '').startsWith('/api/');
      res.setHeader(k, k === 'WWW-Authenticate' && browserPath && v.startsWith('Basic') ? SESSION_WWW_AUTHENTICATE : v);
    }
    res.status(error.status).json(error.toBody());
  }

  private toZulipError(exception: unknown, req: ZulipRequest): ZulipError {
    if (exception instanceof ZulipError) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        const allowed = allowedMethodsFor(req);
        if (allowed.length > 0) {
          return Errors.methodNotAllowed(allowed);
        }
        return Errors.routeNotFound();
      }
      if (status === 413) return Errors.payloadTooLarge();
      if (status < 500) {
        const body = exception.getResponse();
        const msg = typeof body === 'object' && body && 'message' in body ? String(body.message) : exception.message;
        return Errors.httpError(msg, status);
      }
    }
    const err = exception as { type?: string; status?: number; code?: string } | undefined;
    // body-parser / multer errors reach us as plain errors with a status or code.
    if (err?.type === 'entity.too.large' || err?.code === 'LIMIT_FILE_SIZE' || err?.code === 'LIMIT_FIELD_VALUE') {
      return Errors.payloadTooLarge();
    }
    if (err && typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
      return Errors.malformedBody();
    }
    if (err?.code && typeof err.code === 'string' && err.code.startsWith('LIMIT_')) {
      return Errors.malformedBody();
    }
    // Safety net: services turn the unique-index races they know into Zulip's texts
    // (common/errors/unique-violation.ts); any other one is a conflict, not a server failure.
    if (isUniqueViolation(exception)) {
      this.logger.warn(`request ${requestIdOf(req)} ${req.method} ${req.originalUrl}: unhandled unique violation`);
      return Errors.concurrentChange();
    }
    this.logger.error(
      `request ${requestIdOf(req)} ${req.method} ${req.originalUrl} failed: ${
        exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)
      }`,
    );
    return Errors.internal();
  }
}
