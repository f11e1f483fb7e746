import { Inject, Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Errors } from '../common/errors/zulip-error';
import { Role } from '../common/roles';
import { RealmService } from '../realm/realm.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { UserErrors } from '../users/user.errors';
import { ChannelAccessService } from './channel-access.service';
import { encodeChannelEmail } from './channel-email';
import { ChannelEmailRepository } from './channel-email.repository';

/** Zulip's settings.EMAIL_GATEWAY_BOT. */
export const EMAIL_GATEWAY_BOT_EMAIL = 'emailgateway@zulip.com';

/**
 * GET /streams/{stream_id}/email_address (Zulip's get_stream_email_address): the address that
 * posts to a channel, as the Email Gateway bot by default, or as the caller or one of the bots
 * they administer. Each (channel, caller, sender) has its own token.
 */
@Injectable()
export class ChannelEmailService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: ChannelAccessService,
    private readonly repo: ChannelEmailRepository,
    private readonly realms: RealmService,
    private readonly directory: UserDirectoryService,
  ) {}

  async emailAddress(auth: AuthContext, streamId: number, senderId: number | undefined): Promise<string> {
    const actor = await this.access.actorFor(auth.user);
    const { stream } = await this.access.accessById(actor, auth.realm.id, streamId);
    const gatewayBot = await this.gatewayBotId();
    let sender: number;
    if (senderId === undefined || senderId === gatewayBot) sender = gatewayBot ?? auth.user.id;
    else if (senderId === auth.user.id) sender = auth.user.id;
    else sender = await this.accessBot(auth, senderId);
    const token = await this.repo.tokenFor(auth.realm.id, stream.id, auth.user.id, sender);
    return encodeChannelEmail(this.config.email.gatewayPattern, stream.name, token, true);
  }

  private async gatewayBotId(): Promise<number | null> {
    const internal = await this.realms.findByStringId('zulipinternal');
    if (!internal) return null;
    const [bot] = await this.directory.usersByDeliveryEmails(internal.id, [EMAIL_GATEWAY_BOT_EMAIL]);
    return bot?.isActive && bot.isBot ? bot.id : null;
  }

  /** access_bot_by_id: a bot of the realm that the caller may administer (its owner, or an administrator). */
  private async accessBot(auth: AuthContext, botId: number): Promise<number> {
    const [target] = await this.directory.usersByIds(auth.realm.id, [botId]);
    if (!target?.isBot) throw UserErrors.noSuchBot();
    const isAdmin = auth.user.role <= Role.ADMINISTRATOR;
    if (!isAdmin && target.botOwnerId !== auth.user.id) throw Errors.insufficientPermission();
    return target.id;
  }
}
