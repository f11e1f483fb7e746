import type { Request, Response } from 'express';
import multer from 'multer';
import type { AppConfig } from '../common/config/config';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { countMultipartBytes, parseMultipartWithin } from '../common/http/body-limits';

/** POST /api/v1/realm/emoji/{name}: the other route that accepts a file in its multipart body. */
export function isEmojiUploadRequest(req: Request): boolean {
  return req.method === 'POST' && /^\/api\/v1\/realm\/emoji\/./.test(req.path);
}

/** Largest body of an emoji upload: the largest image plus room for the multipart framing. */
export function emojiBodyLimit(config: AppConfig): number {
  return config.maxEmojiFileSizeMib * 1024 * 1024 + config.maxBodyBytes;
}

/** What an emoji upload's body held. */
export interface ReceivedEmojiBody {
  /** The file parts, in memory (an emoji is at most MAX_EMOJI_FILE_SIZE_MIB). */
  files: Array<{ originalname: string; mimetype: string; buffer: Buffer }>;
  /** More than one file was sent (the parse stopped at the second). */
  tooMany: boolean;
  /** A file was larger than the limit (the parse stopped there). */
  tooLarge: boolean;
}

const MAX_FIELDS = 1000;

/**
 * Reads an emoji upload's multipart body once the caller is authenticated (as POST
 * /user_uploads does): one file, at most MAX_EMOJI_FILE_SIZE_MIB, kept in memory. A second file
 * or an oversized one ends the parse and is reported, not thrown, so the handler can answer in
 * Zulip's order of checks (name, permission, duplicate, then "exactly one file", then size).
 * Other bodies (urlencoded, none) hold no file.
 */
export function receiveEmojiBody(req: Request, res: Response, config: AppConfig): Promise<ReceivedEmojiBody> {
  const result: ReceivedEmojiBody = { files: [], tooMany: false, tooLarge: false };
  if (!String(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) return Promise.resolve(result);
  return new Promise<ReceivedEmojiBody>((accept, reject) => {
    const parse = multer({
      storage: multer.memoryStorage(),
      defParamCharset: 'utf8',
      limits: {
        fieldSize: config.maxBodyBytes,
        fields: MAX_FIELDS,
        files: 1,
        parts: MAX_FIELDS + 1,
        fileSize: config.maxEmojiFileSizeMib * 1024 * 1024,
      },
      streamHandler: countMultipartBytes,
    } as multer.Options).any();
    parseMultipartWithin(parse, emojiBodyLimit(config), req, res, (err?: unknown) => {
      const files = (req as Request & { files?: unknown }).files;
      if (Array.isArray(files)) result.files = files;
      if (!err) return accept(result);
      const code = (err as { code?: string }).code;
      if (err instanceof ZulipError) return reject(err);
      if (code === 'LIMIT_FILE_COUNT') return accept({ ...result, tooMany: true });
      if (code === 'LIMIT_FILE_SIZE') return accept({ ...result, tooLarge: true });
      if (code === 'LIMIT_FIELD_VALUE') return reject(Errors.payloadTooLarge());
      reject(Errors.malformedMultipartBody());
    });
  });
}
