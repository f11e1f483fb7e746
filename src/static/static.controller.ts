import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../common/auth/decorators';
import { Errors } from '../common/errors/zulip-error';
import { SERVER_EMOJI_DATA_PLAIN_NAME, serverEmojiDataFile } from '../markdown/emoji/server-emoji-data';

/** A year: the hashed name changes whenever the content does. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The unhashed name is revalidated (ETag) after an hour. */
const REVALIDATE = 'public, max-age=3600';

/**
 * Static data files clients fetch without credentials, as Zulip's web server serves them from
 * `/static/`. Today: the emoji data file of `server_emoji_data_url` (zulip-flutter's emoji
 * picker). Answers 304 to a matching `If-None-Match`; any other name is Zulip's 404.
 */
@Controller('static/generated/emoji')
export class StaticController {
  @Public()
  @Get(':name')
  emojiData(
    @Param('name') name: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() res: Response,
  ): void {
    const file = serverEmojiDataFile();
    if (name !== file.fileName && name !== SERVER_EMOJI_DATA_PLAIN_NAME) throw Errors.routeNotFound();
    const etag = `"${file.hash}"`;
    res.setHeader('Cache-Control', name === file.fileName ? IMMUTABLE : REVALIDATE);
    res.setHeader('ETag', etag);
    // The app fetches it from the realm's URL, the web app possibly from elsewhere (as Zulip).
    res.setHeader('Access-Control-Allow-Origin', '*');
    const tags = (ifNoneMatch ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
    if (tags.includes(etag) || tags.includes('*')) {
      res.status(304).end();
      return;
    }
    res.status(200).type('application/json').send(file.body);
  }
}
