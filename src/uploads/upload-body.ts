import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Request, Response } from 'express';
import multer from 'multer';
import type { AppConfig } from '../common/config/config';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { UploadErrors } from './upload.errors';
import { countMultipartBytes, parseMultipartWithin } from '../common/http/body-limits';

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

/** Largest body of an upload request: the largest file plus room for the multipart framing. */
export function uploadBodyLimit(config: AppConfig): number {
  return config.maxFileUploadSizeMib * 1024 * 1024 + config.maxBodyBytes;
}

/** Most form fields an upload request may carry besides its file. */
const MAX_UPLOAD_FIELDS = 1000;

/**
 * Multipart parsing for POST /user_uploads: at most one file under any field name, no larger
 * than MAX_FILE_UPLOAD_SIZE_MIB, streamed to a per-request temporary directory under
 * UPLOADS_DIR (so the final move is a rename). The directory and anything left in it are
 * removed when the response ends, whatever happened.
 *
 * The upload handler calls this once the caller is authenticated (and rate-limited): nothing
 * of an anonymous upload is read, let alone written to disk. The body as a whole is capped at
 * {@link uploadBodyLimit} (by Content-Length before, by counted bytes while reading).
 */
export function receiveUpload(req: Request, res: Response, config: AppConfig): Promise<void> {
  // Anything else was read (and dropped) before routing; it holds no file.
  if (!String(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) return Promise.resolve();
  const tempRoot = join(resolve(config.uploadsDir), '.incoming');
  const maxBytes = config.maxFileUploadSizeMib * 1024 * 1024;
  return new Promise<void>((accept, reject) => {
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
      return reject(err instanceof Error ? err : new Error(String(err)));
    }
    const storage = multer.diskStorage({
      destination: dir,
      filename: (_req, _file, cb) => cb(null, randomBytes(12).toString('hex')),
    });
    const parse = multer({
      storage,
      // File names arrive as UTF-8 (browsers, zulip-js, the mobile apps).
      defParamCharset: 'utf8',
      limits: {
        fieldSize: config.maxBodyBytes,
        fields: MAX_UPLOAD_FIELDS,
        files: 1,
        parts: MAX_UPLOAD_FIELDS + 1,
        fileSize: maxBytes,
      },
      streamHandler: countMultipartBytes,
    } as multer.Options).any();
    parseMultipartWithin(parse, uploadBodyLimit(config), req, res, (err?: unknown) => {
      if (!err) return accept();
      const code = (err as { code?: string }).code;
      if (err instanceof ZulipError) return reject(err);
      if (code === 'LIMIT_FILE_COUNT') return reject(UploadErrors.oneFileOnly());
      if (code === 'LIMIT_FILE_SIZE') return reject(UploadErrors.fileTooLarge(config.maxFileUploadSizeMib));
      if (code === 'LIMIT_FIELD_VALUE') return reject(Errors.payloadTooLarge());
      reject(Errors.malformedMultipartBody());
    });
  });
}
