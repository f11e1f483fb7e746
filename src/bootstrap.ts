import 'reflect-metadata';
import { INestApplication, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import type { Logger as Pino } from 'pino';
import { AppModule } from './app.module';
import { AppConfig } from './common/config/config';
import { Errors, ZulipError } from './common/errors/zulip-error';
import {
  countMultipartBytes,
  installHttpServerLimits,
  limitRequestBodies,
  parseMultipartWithin,
} from './common/http/body-limits';
import { refuseCrossSiteRequests } from './common/http/cross-site';
import { urlencodedFormMatch, urlencodedForms } from './common/http/form-body';
import { ZulipExpressAdapter } from './common/http/express-adapter';
import { installEnvelope } from './common/http/envelope.interceptor';
import { captureRoutes, hoistRoutes } from './common/http/routes';
import { runInRequestScope } from './common/request-scope';
import { ShutdownState } from './health/shutdown-state';
import { AppLogger, createRootLogger } from './logging/logger';
import { requestLogging } from './logging/request-log';
import { MetricsRegistry } from './metrics/metrics.registry';
import { emojiBodyLimit, isEmojiUploadRequest } from './realm-emoji/emoji-body';
import { isFileUploadRequest, uploadBodyLimit } from './uploads/upload-body';

/**
 * The routes the clients call most (sending, reading, long-polling, presence, typing, flags):
 * tried first by the router (common/http/routes.ts, hoistRoutes), where no other route could
 * answer them.
 */
export const HOT_ROUTES = [
  'POST /api/v1/messages',
  'GET /api/v1/messages',
  'GET /api/v1/events',
  'POST /api/v1/users/me/presence',
  'POST /api/v1/typing',
  'POST /api/v1/messages/flags',
  'GET /api/v1/server_settings',
];

/** Most form fields and list items a request may carry. */
const MAX_FIELDS = 1000;

/** The body parsers, in order: the size limits, urlencoded, multipart (see {@link beforeRoutes}). */
function bodyParsing(config: AppConfig): RequestHandler[] {
  const limit = config.maxBodyBytes;
  const isMultipart = (req: Request) => String(req.headers['content-type'] ?? '').startsWith('multipart/form-data');
  const isForm = (req: Request) => isMultipart(req) || urlencodedFormMatch(req) !== false;
  // An upload's body is read by its handler, after authentication (src/uploads/upload-body.ts,
  // src/realm-emoji/emoji-body.ts).
  const isEmojiUpload = (req: Request) => isEmojiUploadRequest(req) && isMultipart(req);
  const isUpload = (req: Request) => (isFileUploadRequest(req) && isMultipart(req)) || isEmojiUpload(req);
  const form = multer({
    limits: { fieldSize: limit, fields: MAX_FIELDS, parts: MAX_FIELDS, files: 0, fileSize: 0 },
    streamHandler: countMultipartBytes,
  } as multer.Options).none();
  return [
    limitRequestBodies({
      limitFor: (req) =>
        isEmojiUpload(req) ? emojiBodyLimit(config) : isUpload(req) ? uploadBodyLimit(config) : limit,
      parsedLater: (req) => isForm(req),
    }),
    urlencodedForms({ limit, parameterLimit: MAX_FIELDS }),
    (req: Request, res: Response, next: NextFunction) => {
      // Files are accepted by POST /api/v1/user_uploads and /api/v1/realm/emoji/{name} only.
      if (!isMultipart(req) || isUpload(req)) return next();
      parseMultipartWithin(form, limit, req, res, (err?: unknown) => {
        if (!err) return next();
        const code = (err as { code?: string }).code;
        next(
          err instanceof ZulipError
            ? err
            : code === 'LIMIT_FIELD_VALUE' || code === 'LIMIT_FILE_SIZE'
              ? Errors.payloadTooLarge()
              : Errors.malformedMultipartBody(),
        );
      });
    },
  ];
}

/** Zulip lets a POST say which method it means (`method=PATCH`), for clients that cannot send it. */
function methodOverride(req: Request, _res: Response, next: NextFunction): void {
  const override = (req.body as Record<string, unknown> | undefined)?.method;
  if (req.method === 'POST' && typeof override === 'string' && /^(GET|PATCH|PUT|DELETE)$/i.test(override)) {
    req.method = override.toUpperCase();
  }
  next();
}

/** Whether the request announces a body (RFC 9112 §6.3), as body-parser and multer decide it. */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/**
 * Runs `handlers` in order as one Express middleware (one router layer instead of one each):
 * `next(err)` or a throw stops the series and passes the error on, as Express would.
 */
function series(handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      const handler = handlers[i++];
      if (!handler) return next();
      try {
        void handler(req, res, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}

/**
 * Everything the app does to a request before its route, as one middleware:
 *
 * - request id, access line and request metrics (ops, issue 16), first of all;
 * - request parsing as Zulip does it: urlencoded and multipart form bodies for every method
 *   (simple, non-extended parsing; explicit size limits), every body bounded
 *   (common/http/body-limits.ts); POST /api/v1/user_uploads and POST /api/v1/realm/emoji/{name}
 *   read their multipart bodies in their handlers, once the caller is authenticated
 *   (src/uploads/upload-body.ts, src/realm-emoji/emoji-body.ts). A request without a body skips
 *   the parsers, which would each find nothing to read (issue 15: per-request framework cost);
 * - cross-site requests with the user's credentials refused, on the method really sent;
 * - the POST `method` override;
 * - the request's own memory (the caller's principal, loaded once: users/principal.service.ts),
 *   opened after body parsing: the parsers call on from stream callbacks, outside any scope opened
 *   before.
 */
function beforeRoutes(config: AppConfig, logging: RequestHandler): RequestHandler {
  const scope = (_req: Request, _res: Response, next: NextFunction) => runInRequestScope(next);
  const withBody = series([logging, ...bodyParsing(config), refuseCrossSiteRequests, methodOverride, scope]);
  const withoutBody = series([logging, refuseCrossSiteRequests, scope]);
  return (req, res, next) => {
    if (hasBody(req)) return withBody(req, res, next);
    // What the body parsers leave on a request without a body.
    if (!('body' in req)) (req as { body?: unknown }).body = undefined;
    withoutBody(req, res, next);
  };
}

/**
 * Zulip answers every successful request with 200, POST included; Nest's default for POST is 201.
 * Set 200 on every handler that does not choose a code itself, before routes are registered.
 */
function defaultStatus200(app: INestApplication): void {
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const proto = (wrapper.metatype as { prototype?: object } | null)?.prototype;
      if (!proto) continue;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = (proto as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method !== undefined && Reflect.getMetadata(HTTP_CODE_METADATA, handler) === undefined) {
          Reflect.defineMetadata(HTTP_CODE_METADATA, 200, handler);
        }
      }
    }
  }
}

/** `logger`: the root pino logger to write to (main.ts shares its own; tests capture lines). */
export async function createApp(
  config: AppConfig,
  databaseUrl: string,
  options: { logger?: Pino } = {},
): Promise<INestApplication> {
  const root = options.logger ?? createRootLogger(config);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, databaseUrl),
    new ZulipExpressAdapter(),
    {
      bodyParser: false,
      logger: new AppLogger(root),
    },
  );
  app.disable('x-powered-by');
  // The client address (login rate limits) from X-Forwarded-For, only when sent by a trusted proxy.
  if (config.trustProxy) app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  app.set('etag', false);
  const metrics = app.get(MetricsRegistry);
  const shutdown = app.get(ShutdownState);
  const logging = requestLogging(
    root,
    (m, r, s, t) => metrics.observeRequest(m, r, s, t),
    () => shutdown.draining,
  );
  installHttpServerLimits(app.getHttpServer());
  app.use(beforeRoutes(config, logging));
  defaultStatus200(app);
  installEnvelope(app);
  // Signals are handled by main.ts (lifecycle/shutdown.ts), which drains before closing the app.
  await app.init();
  const expressApp = app.getHttpAdapter().getInstance() as Parameters<typeof captureRoutes>[0];
  hoistRoutes(expressApp, HOT_ROUTES);
  captureRoutes(expressApp);
  return app;
}
