import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../common/auth/decorators';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { escapeHtml } from '../email/templates/html';
import { RealmService } from '../realm/realm.service';
import { UserSettingsService } from '../users/user-settings.service';
import { UsersService } from '../users/users.service';
import { readUnsubscribeToken, UNSUBSCRIBE_SETTINGS } from './unsubscribe-link';

const KIND_NAMES: Record<keyof typeof UNSUBSCRIBE_SETTINGS, string> = {
  missed_messages: 'missed-message',
};

function page(title: string, body: string): string {
  return (
    `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:36em;margin:3em auto;line-height:1.5">` +
    `<h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

/**
 * The one-click unsubscribe link of notification emails (Zulip's email_unsubscribe,
 * zerver/views/unsubscribe.py): a page for a person in a browser. `missed_messages` turns
 * enable_offline_email_notifications off, with its `user_settings` events.
 */
@Controller('accounts/unsubscribe')
export class UnsubscribeController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly settings: UserSettingsService,
    private readonly users: UsersService,
    private readonly realms: RealmService,
  ) {}

  @Public()
  @Get(':email_type/:token')
  async unsubscribe(
    @Param('email_type') kind: string,
    @Param('token') token: string,
    @Res() res: Response,
  ): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    const link = readUnsubscribeToken(this.config.secretKey, kind, token);
    const user = link ? await this.users.findByIdInRealm(link.realmId, link.userId) : null;
    if (!link || !user || !user.isActive) {
      res
        .status(404)
        .send(page('Link not valid', '<p>This unsubscribe link is not valid, or its account is no longer active.</p>'));
      return;
    }
    await this.settings.turnOffSetting(link.realmId, link.userId, UNSUBSCRIBE_SETTINGS[link.kind]);
    const realm = await this.realms.getRealm(link.realmId);
    const settingsUrl = `${this.realms.realmUrl(realm)}/#settings/notifications`;
    res
      .status(200)
      .send(
        page(
          'Email settings updated',
          `<p>You have been unsubscribed from ${KIND_NAMES[link.kind]} emails of ${escapeHtml(realm.name)}.</p>` +
            `<p>You can turn them back on in your <a href="${escapeHtml(settingsUrl)}">notification settings</a>.</p>`,
        ),
      );
  }
}
