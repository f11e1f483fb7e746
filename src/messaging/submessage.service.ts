import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Limits } from '../common/limits';
import { runInTransaction } from '../database/transaction';
import { EventsService } from '../events/events.service';
import { MessageAccessService } from './message-access.service';
import { SubmessageErrors } from './message.errors';
import { SubmessageRepository } from './submessage.repository';
import { validatePollData, validateTodoData, widgetTypeOf } from './widget';

/**
 * POST /submessage (Zulip's process_submessage + do_add_submessage): a reader's change to a
 * widget message — a poll vote, option or question, a to-do task, strike or title. The message
 * row is locked while the submessage is checked and added, so submessages of one message are
 * stored (and their events sent) in the order they were accepted.
 */
@Injectable()
export class SubmessageService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: MessageAccessService,
    private readonly submessages: SubmessageRepository,
    private readonly events: EventsService,
  ) {}

  async addSubmessage(auth: AuthContext, messageId: number, msgType: string, content: string): Promise<void> {
    const { user, realm } = auth;
    await runInTransaction(this.dataSource, async () => {
      const { message } = await this.access.accessMessage(auth, messageId, { lock: true, isModifying: true });
      const state = await this.submessages.widgetState(message.id, message.senderId);
      // Zulip's verify_submessage_sender lets the message's sender start a "subconversation";
      // here only the send path does (a widget message's first submessage is its widget), so a
      // message without one takes no submessage from anyone (DECISIONS: widgets).
      if (!state.senderHas) throw SubmessageErrors.cannotAttach();
      if (state.count >= Limits.MAX_SUBMESSAGES_PER_MESSAGE) {
        throw SubmessageErrors.tooMany(Limits.MAX_SUBMESSAGES_PER_MESSAGE);
      }
      let data: unknown;
      try {
        data = JSON.parse(content);
      } catch {
        throw SubmessageErrors.invalidJson();
      }
      const isWidgetAuthor = message.senderId === user.id;
      const widgetType = widgetTypeOf(state.widget);
      if (widgetType === 'poll') validatePollData(data, isWidgetAuthor);
      if (widgetType === 'todo') validateTodoData(data, isWidgetAuthor);

      const added = await this.submessages.add(message.id, user.id, msgType, content);
      this.events.sendOnCommit(
        realm.id,
        {
          type: 'submessage',
          msg_type: msgType,
          message_id: message.id,
          submessage_id: added.id,
          sender_id: user.id,
          content,
        },
        added.userIds,
      );
    });
  }
}
