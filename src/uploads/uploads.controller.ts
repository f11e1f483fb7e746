import { Controller, Delete, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, Public } from '../common/auth/decorators';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Errors } from '../common/errors/zulip-error';
import { RAW_RESPONSE } from '../common/http/envelope.interceptor';
import { declaredLength } from '../common/http/body-limits';
import { PathIntPipe } from '../common/http/path-int.pipe';
import type { AttachmentRow } from './attachments.repository';
import { receiveUpload, receivedFiles } from './upload-body';
import { contentDisposition, INLINE_MIME_TYPES } from './upload-names';
import { UploadsService } from './uploads.service';

/** Headers for every served upload: no sniffing, nothing runs, nobody frames it. */
const SERVE_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'none'; img-src 'self'; media-src 'self'; object-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'; form-action 'none'",
  'Cache-Control': 'private, immutable',
};

/** The same answer as an unknown URL: a missing file and a forbidden one look alike. */
const notFound = () => Errors.routeNotFound();

/**
 * The path id of a request: the raw (still percent-encoded) path after the prefix, decoded one
 * segment at a time. Encoded slashes or backslashes, NUL and other control characters, and
 * `.`/`..`/empty segments make it unusable (null).
 */
export function pathIdFromUrl(rawPath: string, prefix: RegExp): string | null {
  const match = prefix.exec(rawPath);
  if (!match) return null;
  const segments = rawPath.slice(match[0].length).split('/');
  const decoded: string[] = [];
  for (const segment of segments) {
    let s: string;
    try {
      s = decodeURIComponent(segment);
    } catch {
      return null;
    }
    // eslint-disable-next-line no-control-regex
    if (s === '' || s === '.' || s === '..' || /[/\\\u0000-\u001f\u007f]/.test(s)) return null;
    decoded.push(s);
  }
  return decoded.length >= 2 && /^[0-9]+$/.test(decoded[0]) ? decoded.join('/') : null;
}

const API_PREFIX = /^\/api\/v1\/user_uploads\//;
const WEB_PREFIX = /^\/user_uploads\//;

@Controller()
export class UploadsController {
  constructor(
    private readonly uploads: UploadsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The body is read only now, once the guards have authenticated (and rate-limited) the caller. */
  @Post('api/v1/user_uploads')
  async upload(@CurrentUser() auth: AuthContext, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    // A body announced too large for the realm's quota is refused before a byte of it is read.
    await this.uploads.checkDeclaredWithinQuota(auth, declaredLength(req));
    await receiveUpload(req, res, this.config);
    return this.uploads.upload(auth, receivedFiles(req));
  }

  @Get('api/v1/attachments')
  list(@CurrentUser() auth: AuthContext) {
    return this.uploads.list(auth);
  }

  @Delete('api/v1/attachments/:attachment_id')
  async remove(@CurrentUser() auth: AuthContext, @Param('attachment_id', PathIntPipe) id: number) {
    await this.uploads.remove(auth, id);
    return {};
  }

  /** A temporary URL (no credentials): registered before the authenticated file route. */
  @Public()
  @Get('user_uploads/temporary/:token/:filename')
  @RawResponse()
  async serveTemporary(@Param('token') token: string, @Param('filename') fileName: string, @Res() res: Response) {
    const attachment = await this.uploads.fromTemporaryToken(token, fileName);
    if (!attachment) throw notFound();
    await this.send(attachment, res);
  }

  /** serve_file_url_backend: `{url}`, a temporary URL that needs no credentials. */
  @Get('api/v1/user_uploads/:realm_id_str/*path')
  async temporaryUrl(@CurrentUser() auth: AuthContext, @Req() req: Request) {
    const pathId = pathIdFromUrl(req.path, API_PREFIX);
    const url = pathId ? await this.uploads.temporaryUrl(auth, pathId) : null;
    if (!url) throw notFound();
    return { url };
  }

  /** serve_file_backend: the file itself, to anyone validate_attachment_request allows. */
  @Get('user_uploads/:realm_id_str/*path')
  @RawResponse()
  async serve(@CurrentUser() auth: AuthContext, @Req() req: Request, @Res() res: Response) {
    const pathId = pathIdFromUrl(req.path, WEB_PREFIX);
    const attachment = pathId ? await this.uploads.accessible(auth, pathId) : null;
    if (!attachment) throw notFound();
    await this.send(attachment, res);
  }

  private async send(attachment: AttachmentRow, res: Response): Promise<void> {
    const file = await this.uploads.open(attachment.pathId);
    if (!file) throw notFound();
    const type = attachment.contentType ?? 'application/octet-stream';
    res.status(200);
    for (const [k, v] of Object.entries(SERVE_HEADERS)) res.setHeader(k, v);
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('Content-Disposition', contentDisposition(attachment.pathId, INLINE_MIME_TYPES.has(type)));
    await new Promise<void>((resolve) => {
      file.stream.on('error', () => {
        res.destroy();
        resolve();
      });
      res.on('close', () => {
        file.stream.destroy();
        resolve();
      });
      file.stream.pipe(res);
    });
  }
}

function RawResponse(): MethodDecorator {
  return (_target, _key, descriptor) => {
    Reflect.defineMetadata(RAW_RESPONSE, true, descriptor.value as object);
    return descriptor;
  };
}
