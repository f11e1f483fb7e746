import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import express, { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { AppModule } from './app.module';
import { AppConfig } from './common/config/config';
import { Errors } from './common/errors/zulip-error';
import { setRequestId, ZulipRequest } from './common/http/request-params';
import { captureRoutes } from './common/http/routes';

const LOG_LEVELS: Record<AppConfig['logLevel'], LogLevel[]> = {
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  log: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/** Most form fields and list items a request may carry. */
const MAX_FIELDS = 1000;

/**
 * Request parsing as Zulip does it: urlencoded and multipart form bodies for every method
 * (simple, non-extended parsing; explicit size limits), query strings, and the POST `method`
 * override. Uploads (issue: messaging) register their own multipart handling.
 */
function installBodyParsing(app: NestExpressApplication, config: AppConfig): void {
  const limit = config.maxBodyBytes;
  app.use((req: Request, _res: Response, next: NextFunction) => {
    setRequestId(req as ZulipRequest, randomBytes(6).toString('hex'));
    next();
  });
  app.use(express.urlencoded({ extended: false, limit, parameterLimit: MAX_FIELDS }));
  const form = multer({ limits: { fieldSize: limit, fields: MAX_FIELDS, files: 0, fileSize: 0 } }).none();
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!String(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) return next();
    form(req, res, (err?: unknown) => {
      if (!err) return next();
      const code = (err as { code?: string }).code;
      next(code === 'LIMIT_FIELD_VALUE' || code === 'LIMIT_FILE_SIZE' ? Errors.payloadTooLarge() : Errors.badRequest('Malformed multipart body'));
    });
  });
  // Zulip lets a POST say which method it means (`method=PATCH`), for clients that cannot send it.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const override = (req.body as Record<string, unknown> | undefined)?.method;
    if (req.method === 'POST' && typeof override === 'string' && /^(GET|PATCH|PUT|DELETE)$/i.test(override)) {
      req.method = override.toUpperCase();
    }
    next();
  });
}

export async function createApp(config: AppConfig, databaseUrl: string): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, databaseUrl), {
    bodyParser: false,
    logger: LOG_LEVELS[config.logLevel],
  });
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('etag', false);
  installBodyParsing(app, config);
  app.enableShutdownHooks();
  await app.init();
  captureRoutes(app.getHttpAdapter().getInstance() as Parameters<typeof captureRoutes>[0]);
  return app;
}
