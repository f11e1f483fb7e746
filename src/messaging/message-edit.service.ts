import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { runInTransaction } from '../database/transaction';
import { MessageEditActions } from './message-edit.actions';
import { MessageEditPermissions } from './message-edit.permissions';
import type { ChannelForEdit } from './message-edit.repository';
import { MessageEditRequestBuilder, type UpdateMessageInput } from './message-edit.request';

export type { UpdateMessageInput } from './message-edit.request';

/**
 * PATCH /messages/{id} (Zulip's check_update_message → do_update_message): content edits,
 * topic renames, resolve/unresolve and moves between channels. Two steps in one transaction:
 * MessageEditRequestBuilder parses, loads (the message locked) and authorizes, with Zulip's
 * checks in Zulip's order, so every 400 comes before any write; MessageEditActions then writes
 * (content, topic and channel, edit history, UserMessage rows for users gaining and losing
 * access, attachment links), sends the events, and MessageEditNotices the Notification Bot
 * breadcrumbs.
 */
@Injectable()
export class MessageEditService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly requests: MessageEditRequestBuilder,
    private readonly actions: MessageEditActions,
    private readonly permissions: MessageEditPermissions,
  ) {}

  async updateMessage(auth: AuthContext, messageId: number, input: UpdateMessageInput) {
    return runInTransaction(this.dataSource, async () => {
      const request = await this.requests.build(auth, messageId, input);
      return this.actions.apply(request);
    });
  }

  /** Channel administrators: can_administer_channel_group, and organization administrators. */
  isChannelAdmin(auth: AuthContext, channel: Pick<ChannelForEdit, 'canAdministerChannelGroup'>): Promise<boolean> {
    return this.permissions.isChannelAdmin(auth, channel);
  }
}
