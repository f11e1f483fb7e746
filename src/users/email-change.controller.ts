import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../common/auth/decorators';
import { escapeHtml } from '../email/templates/html';
import { EmailChangeService } from './email-change.service';

function page(title: string, body: string): string {
  return (
    `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:36em;margin:3em auto;line-height:1.5">` +
    `<h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

/**
 * The link of the email-change confirmation email (Zulip's confirm_email_change): a page for a
 * person in a browser, not an API endpoint.
 */
@Controller('accounts/confirm_new_email')
export class EmailChangeController {
  constructor(private readonly emailChange: EmailChangeService) {}

  @Public()
  @Get(':key')
  async confirm(@Param('key') key: string, @Res() res: Response): Promise<void> {
    const result = await this.emailChange.confirm(key);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    if (result.outcome === 'changed') {
      res
        .status(200)
        .send(
          page(
            'Email address changed',
            `<p>The email address of your account in ${escapeHtml(result.realmName)} is now ` +
              `<b>${escapeHtml(result.newEmail)}</b> (it was ${escapeHtml(result.oldEmail)}).</p>`,
          ),
        );
    } else if (result.outcome === 'refused') {
      res.status(400).send(page('Email address not changed', `<p>${escapeHtml(result.reason)}</p>`));
    } else {
      res
        .status(404)
        .send(
          page(
            'Link not valid',
            '<p>This confirmation link has expired, has already been used, or was replaced by a newer one.</p>',
          ),
        );
    }
  }
}
