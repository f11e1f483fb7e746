import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { MessageErrors } from '../messaging/message.errors';
import { MessageSendService } from '../messaging/message-send.service';

/** Zulip's settings.WELCOME_BOT. */
const WELCOME_BOT_EMAIL = 'welcome-bot@zulip.com';

/**
 * The organization's custom Welcome Bot message (welcome_message_custom_text): an administrator
 * previews it as a direct message from Welcome Bot (Zulip's send_test_welcome_bot_custom_message).
 */
@Injectable()
export class WelcomeMessageService {
  constructor(private readonly sender: MessageSendService) {}

  async sendTest(auth: AuthContext, text: string): Promise<{ message_id: number }> {
    if (text.length === 0) throw MessageErrors.empty();
    const id = await this.sender.sendSystemBotDirectMessage(auth.realm, WELCOME_BOT_EMAIL, auth.user.id, text);
    // The system bots exist on every server (the zulipinternal realm); without one, nothing was sent.
    if (id === null) throw Errors.internal();
    return { message_id: id };
  }
}
