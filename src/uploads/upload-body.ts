import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import type { AppConfig } from '../common/config/config';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { UploadErrors } from './upload.errors';

/** The one route that accepts files in a multipart body. */
export function isFileUploadRequest(req: Request): boolean {
  return req.method === 'POST' && /^\/api\/v1\/user_uploads\/?$/.test(req.path);
}

/** A file received for POST /user_uploads, still in the request's temporary directory. */
export interface ReceivedFile {
  path: string;
  originalname: string;
  mimetype: string;
  size: number;
}

/** The files multer stored for this request (none for other requests). */
export function receivedFiles(req: Request): ReceivedFile[] {
  const files = (req as Request & { files?: unknown }).files;
  return Array.isArray(files) ? files : [];
}

/**
 * Multipart parsing for POST /user_uploads: at most one file under any field name, no larger
 * than MAX_FILE_UPLOAD_SIZE_MIB, streamed to a per-request temporary directory under
 * UPLOADS_DIR (so the final move is a rename). The directory and anything left in it are
 * removed when the response ends, whatever happened.
 */
export function fileUploadBodyParser(config: AppConfig, fields: number): RequestHandler {
  const tempRoot = join(resolve(config.uploadsDir), '.incoming');
  const maxBytes = config.maxFileUploadSizeMib * 1024 * 1024;
  return (req: Request, res: Response, next: NextFunction) => {
    const dir = join(tempRoot, randomBytes(12).toString('hex'));
    let cleaned = false;
    const cleanup = () => {
      if (cleaned) return;
      cleaned = true;
      void rm(dir, { recursive: true, force: true }).catch(() => undefined);
    };
    res.once('finish', cleanup);
    res.once('close', cleanup);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      return next(err);
    }
    const storage = multer.diskStorage({
      destination: dir,
      filename: (_req, _file, cb) => cb(null, randomBytes(12).toString('hex')),
    });
    const parse = multer({
      storage,
      // File names arrive as UTF-8 (browsers, zulip-js, the mobile apps).
      defParamCharset: 'utf8',
      limits: { fieldSize: config.maxBodyBytes, fields, files: 1, fileSize: maxBytes },
    }).any();
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const code = (err as { code?: string }).code;
      if (code === 'LIMIT_FILE_COUNT') return next(UploadErrors.oneFileOnly());
      if (code === 'LIMIT_FILE_SIZE') return next(UploadErrors.fileTooLarge(config.maxFileUploadSizeMib));
      if (code === 'LIMIT_FIELD_VALUE') return next(Errors.payloadTooLarge());
      if (err instanceof ZulipError) return next(err);
      next(Errors.malformedMultipartBody());
    });
  };
}
