import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { runInTransaction } from '../database/transaction';
import { PrincipalService } from '../users/principal.service';
import { Clock } from './clock';
import { AccessedMessage, MessageAccessService } from './message-access.service';
import { pastDeadline } from './message-edit.policy';
import { MessageDeleteRepository } from './message-delete.repository';
import { MessageDeletion } from './message-deletion';
import { MessageEditRepository } from './message-edit.repository';
import { MessageEditService } from './message-edit.service';
import { MessagesRepository } from './messages.repository';
import { MessageErrors } from './message.errors';

/**
 * DELETE /messages/{id} (Zulip's delete_message_backend, validate_can_delete_message,
 * do_delete_messages): permission and time-limit checks in Zulip's order; the message, its
 * UserMessage rows, reactions and attachment links go in one transaction; delete_message events
 * to those who could see it.
 */
@Injectable()
export class MessageDeleteService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: MessageAccessService,
    private readonly repo: MessageDeleteRepository,
    private readonly editRepo: MessageEditRepository,
    private readonly messages: MessagesRepository,
    private readonly principals: PrincipalService,
    private readonly editor: MessageEditService,
    private readonly deletion: MessageDeletion,
    private readonly clock: Clock,
  ) {}

  async deleteMessage(auth: AuthContext, messageId: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const accessed = await this.access.accessMessage(auth, messageId, { lock: true, isModifying: true });
      await this.validateCanDelete(auth, accessed);
      const rows = await this.repo.messagesForDelete(auth.realm.id, [messageId]);
      if (rows.length === 0) throw MessageErrors.alreadyDeleted();
      const recipients = await this.access.eventRecipientIds(accessed);
      await this.deletion.deleteRows(auth.realm, rows, recipients);
    });
  }

  private async validateCanDelete(auth: AuthContext, accessed: AccessedMessage): Promise<void> {
    const { user, realm } = auth;
    const has = (groupId: number, allowEveryone: boolean) =>
      this.principals.userHolds(user, realm.id, groupId, allowEveryone);
    if (await has(realm.can_delete_any_message_group, false)) return;
    const message = accessed.message;
    const channel = message.isChannelMessage
      ? await this.editRepo.channelForEdit(realm.id, user.id, message.streamId!)
      : null;
    if (channel) {
      if ((await this.editor.isChannelAdmin(auth, channel)) || (await has(channel.canDeleteAnyMessageGroup, true)))
        return;
    }
    const refuse = () => MessageErrors.cannotDelete();
    if (message.senderId !== user.id) {
      const sender = (await this.messages.usersByIdsInRealm(realm.id, [message.senderId]))[0];
      if (!sender || !sender.isBot || sender.botOwnerId !== user.id) throw refuse();
    }
    if (!(await has(realm.can_delete_own_message_group, true))) {
      if (!channel || !(await has(channel.canDeleteOwnMessageGroup, true))) throw refuse();
    }
    if (pastDeadline(message.dateSent, this.clock.now(), realm.messageContentDeleteLimitSeconds, 0)) {
      throw MessageErrors.deleteTimeLimitPassed();
    }
  }
}
