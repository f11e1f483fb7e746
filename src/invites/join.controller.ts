import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../common/auth/decorators';
import { escapeHtml } from '../email/templates/html';
import { RealmService } from '../realm/realm.service';
import { InvitesService } from './invites.service';

function page(title: string, body: string): string {
  return (
    `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:36em;margin:3em auto;line-height:1.5">` +
    `<h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

const INVALID =
  '<p>This invitation link has expired, has already been used, or was revoked. Ask for a new invitation.</p>';

function field(body: unknown, name: string): string {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * The link of an invitation (email or multiuse): a small registration page for a person in a
 * browser. GET shows the form; POST creates the account.
 */
@Controller('join')
export class JoinController {
  constructor(
    private readonly invites: InvitesService,
    private readonly realms: RealmService,
  ) {}

  /** The organization of the Host header (null for an unknown one: no link works there). */
  private async hostRealmId(req: Request): Promise<number | null> {
    try {
      return (await this.realms.realmForHost(req.headers.host))?.id ?? null;
    } catch {
      return null;
    }
  }

  @Public()
  @Get(':key')
  async form(@Param('key') key: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    const target = await this.invites.lookup(await this.hostRealmId(req), key);
    if (target.outcome === 'invalid') {
      res.status(404).send(page('Invitation not valid', INVALID));
      return;
    }
    if (target.outcome === 'refused') {
      res.status(400).send(page('Invitation not valid', `<p>${escapeHtml(target.reason)}</p>`));
      return;
    }
    const { invitation, realm } = target;
    const emailField = invitation.isMultiuse
      ? '<p><label>Email <input type="email" name="email" required></label></p>'
      : `<p>Email: <b>${escapeHtml(invitation.email ?? '')}</b></p>`;
    res
      .status(200)
      .send(
        page(
          `Join ${realm.name}`,
          `<form method="post" action="/join/${escapeHtml(key)}/">${emailField}` +
            '<p><label>Full name <input name="full_name" required></label></p>' +
            '<p><label>Password <input type="password" name="password" required></label></p>' +
            '<p><button type="submit">Create account</button></p></form>',
        ),
      );
  }

  @Public()
  @Post(':key')
  async register(@Param('key') key: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    const result = await this.invites.register(await this.hostRealmId(req), key, {
      email: field(req.body, 'email'),
      fullName: field(req.body, 'full_name'),
      password: field(req.body, 'password'),
    });
    if (result.outcome === 'invalid') {
      res.status(404).send(page('Invitation not valid', INVALID));
    } else if (result.outcome === 'refused') {
      res.status(result.status).send(page('Account not created', `<p>${escapeHtml(result.reason)}</p>`));
    } else {
      res
        .status(200)
        .send(
          page(
            'Account created',
            `<p>Your account <b>${escapeHtml(result.email)}</b> in ${escapeHtml(result.realmName)} is ready. ` +
              `Log in at <a href="${escapeHtml(result.realmUrl)}">${escapeHtml(result.realmUrl)}</a>.</p>`,
          ),
        );
    }
  }
}
