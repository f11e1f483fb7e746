import 'reflect-metadata';
import { INestApplication, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import express, { NextFunction, Request, Response } from 'express';
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
import { captureRoutes } from './common/http/routes';
import { runInRequestScope } from './common/request-scope';
import { ShutdownState } from './health/shutdown-state';
import { AppLogger, createRootLogger } from './logging/logger';
import { requestLogging } from './logging/request-log';
import { MetricsRegistry } from './metrics/metrics.registry';
import { emojiBodyLimit, isEmojiUploadRequest } from './realm-emoji/emoji-body';
import { isFileUploadRequest, uploadBodyLimit } from './uploads/upload-body';

/** Most form fields and list items a request may carry. */
const MAX_FIELDS = 1000;

/**
 * Request parsing as Zulip does it: urlencoded and multipart form bodies for every method
 * (simple, non-extended parsing; explicit size limits), query strings, and the POST `method`
 * override. Every body is bounded (common/http/body-limits.ts); POST /api/v1/user_uploads and POST
 * /api/v1/realm/emoji/{name} read their multipart bodies in their handlers, once the caller is
 * authenticated (src/uploads/upload-body.ts, src/realm-emoji/emoji-body.ts).
 */
function installBodyParsing(app: NestExpressApplication, config: AppConfig): void {
  const limit = config.maxBodyBytes;
  const isMultipart = (req: Request) => String(req.headers['content-type'] ?? '').startsWith('multipart/form-data');
  const isForm = (req: Request) => isMultipart(req) || req.is('application/x-www-form-urlencoded') !== false;
  // An upload's body is read by its handler, after authentication (src/uploads/upload-body.ts,
  // src/realm-emoji/emoji-body.ts).
  const isEmojiUpload = (req: Request) => isEmojiUploadRequest(req) && isMultipart(req);
  const isUpload = (req: Request) => (isFileUploadRequest(req) && isMultipart(req)) || isEmojiUpload(req);
  app.use(
    limitRequestBodies({
      limitFor: (req) =>
        isEmojiUpload(req) ? emojiBodyLimit(config) : isUpload(req) ? uploadBodyLimit(config) : limit,
      parsedLater: (req) => isForm(req),
    }),
  );
  app.use(express.urlencoded({ extended: false, limit, parameterLimit: MAX_FIELDS }));
  const form = multer({
    limits: { fieldSize: limit, fields: MAX_FIELDS, parts: MAX_FIELDS, files: 0, fileSize: 0 },
    streamHandler: countMultipartBytes,
  } as multer.Options).none();
  app.use((req: Request, res: Response, next: NextFunction) => {
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
  });
  // Cross-site requests with the user's credentials are refused on the method really sent.
  app.use(refuseCrossSiteRequests);
  // Zulip lets a POST say which method it means (`method=PATCH`), for clients that cannot send it.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const override = (req.body as Record<string, unknown> | undefined)?.method;
    if (req.method === 'POST' && typeof override === 'string' && /^(GET|PATCH|PUT|DELETE)$/i.test(override)) {
      req.method = override.toUpperCase();
    }
    next();
  });
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
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, databaseUrl), {
    bodyParser: false,
    logger: new AppLogger(root),
  });
  app.disable('x-powered-by');
  // The client address (login rate limits) from X-Forwarded-For, only when sent by a trusted proxy.
  if (config.trustProxy) app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  app.set('etag', false);
  // ops (issue 16): request id, access line and request metrics, first of all middleware.
  const metrics = app.get(MetricsRegistry);
  const shutdown = app.get(ShutdownState);
  app.use(
    requestLogging(
      root,
      (m, r, s, t) => metrics.observeRequest(m, r, s, t),
      () => shutdown.draining,
    ),
  );
  installHttpServerLimits(app.getHttpServer());
  installBodyParsing(app, config);
  // Each request gets its own memory (the caller's principal, loaded once: users/principal.service.ts),
  // opened after body parsing: the parsers call on from stream callbacks, outside any scope opened before.
  app.use((_req: Request, _res: Response, next: NextFunction) => runInRequestScope(next));
  defaultStatus200(app);
  // Signals are handled by main.ts (lifecycle/shutdown.ts), which drains before closing the app.
  await app.init();
  captureRoutes(app.getHttpAdapter().getInstance() as Parameters<typeof captureRoutes>[0]);
  return app;
}
