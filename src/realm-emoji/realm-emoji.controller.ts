import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, HumanOnly, NoGuests, Public } from '../common/auth/decorators';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Errors } from '../common/errors/zulip-error';
import { RAW_RESPONSE } from '../common/http/envelope.interceptor';
import { receiveEmojiBody } from './emoji-body';
import { EmojiStore } from './emoji-store';
import { parseEmojiImagePath } from './realm-emoji.policy';
import { RealmEmojiService } from './realm-emoji.service';

/** Headers of a served emoji image: public and long-lived (a new image gets a new file name). */
const IMAGE_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Cache-Control': 'public, max-age=31536000, immutable',
};

/**
 * The emoji name of a request path: everything after `/api/v1/realm/emoji/` (Zulip's
 * `<path:emoji_name>`, so slashes belong to the name and fail its check), percent-decoded; an
 * undecodable name is kept as written (it fails the name check too).
 */
function emojiNameOf(req: Request): string {
  const raw = req.path.replace(/^\/api\/v1\/realm\/emoji\//, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function RawResponse(): MethodDecorator {
  return (_target, _key, descriptor) => {
    Reflect.defineMetadata(RAW_RESPONSE, true, descriptor.value as object);
    return descriptor;
  };
}

@Controller()
export class RealmEmojiController {
  constructor(
    private readonly emoji: RealmEmojiService,
    private readonly store: EmojiStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** list_emoji: public to everyone in the realm (guests and bots included). */
  @Get('api/v1/realm/emoji')
  async list(@CurrentUser() auth: AuthContext) {
    return { emoji: await this.emoji.list(auth.realm.id) };
  }

  /** upload_emoji (require_member_or_admin); the body is read only once the caller is authenticated. */
  @Post('api/v1/realm/emoji/*emoji_name')
  @NoGuests()
  @HumanOnly()
  async upload(@CurrentUser() auth: AuthContext, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const body = await receiveEmojiBody(req, res, this.config);
    await this.emoji.upload(auth, emojiNameOf(req), body);
    return {};
  }

  /** delete_emoji: deactivates the emoji (administrators, or its author). */
  @Delete('api/v1/realm/emoji/*emoji_name')
  async remove(@CurrentUser() auth: AuthContext, @Req() req: Request) {
    await this.emoji.remove(auth, emojiNameOf(req));
    return {};
  }

  /**
   * The images, public as Zulip's /user_avatars/ (messages of other realms and notification
   * emails show them): `<realm_id>/emoji/images/<file>` and `…/still/<file>.png`. Deactivated
   * emoji stay served (old messages show them); originals are not served.
   */
  @Public()
  @Get('user_avatars/:realm_id/emoji/images/*path')
  @RawResponse()
  async serve(@Req() req: Request, @Res() res: Response) {
    const parsed = parseEmojiImagePath(req.path.replace(/^\/user_avatars\//, ''));
    const file = parsed ? await this.store.open(req.path.replace(/^\/user_avatars\//, '')) : null;
    if (!parsed || !file) throw Errors.routeNotFound();
    res.status(200);
    for (const [k, v] of Object.entries(IMAGE_HEADERS)) res.setHeader(k, v);
    res.setHeader('Content-Type', parsed.still ? 'image/png' : parsed.contentType);
    res.setHeader('Content-Length', String(file.size));
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
