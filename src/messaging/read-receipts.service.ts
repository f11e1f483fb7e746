import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { MessageAccessService } from './message-access.service';
import { MessageFlagsRepository } from './message-flags.repository';
import { MessageErrors } from './message.errors';

/**
 * GET /messages/{message_id}/read_receipts (Zulip's read_receipts view): who has read a message
 * the caller may access, once the organization enables read receipts.
 */
@Injectable()
export class ReadReceiptsService {
  constructor(
    private readonly access: MessageAccessService,
    private readonly flags: MessageFlagsRepository,
  ) {}

  /**
   * Users with the message marked read, as Zulip counts them: active users who send read
   * receipts, never the sender; bots included; historical rows (a starred public message) count.
   * Zulip also leaves out users muting or muted by the caller: muted users do not exist here yet.
   */
  async readReceipts(auth: AuthContext, messageId: number): Promise<{ user_ids: number[] }> {
    const { message } = await this.access.accessMessage(auth, messageId, { isModifying: false });
    if (!auth.realm.enableReadReceipts) throw MessageErrors.readReceiptsDisabled();
    return { user_ids: await this.flags.readerIds(message.id, message.senderId) };
  }
}
