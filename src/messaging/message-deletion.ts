import { Injectable } from '@nestjs/common';
import { DomainEventBus } from '../events/domain-event-bus';
import { MessageErrors } from './message.errors';
import type { Realm } from '../realm/realm.entity';
import { MessageDeleteRepository } from './message-delete.repository';
import { MessageEditRepository } from './message-edit.repository';
import { MessageEvents } from './message-events';
import { MessagesDeletedEvent } from './messaging.domain-events';

/**
 * do_delete_messages: removes messages with everything that hangs off them, inside the caller's
 * transaction. Used by DELETE /messages/{id} (after its permission checks) and by the edit
 * service, which deletes its own resolve-topic notice when a topic is unresolved right away.
 */
@Injectable()
export class MessageDeletion {
  constructor(
    private readonly repo: MessageDeleteRepository,
    private readonly editRepo: MessageEditRepository,
    private readonly events: MessageEvents,
    private readonly bus: DomainEventBus,
  ) {}

  /** Deletes one message as the system, if it still exists (no permission checks). */
  async deleteAsSystem(realm: Realm, messageId: number): Promise<void> {
    const rows = await this.repo.messagesForDelete(realm.id, [messageId]);
    if (rows.length > 0) await this.deleteRows(realm, rows);
  }

  /**
   * Deletes messages (rows from messagesForDelete) with everything that hangs off them, keeps
   * first_message_id right and queues delete_message events (one per conversation).
   */
  async deleteRows(
    realm: Realm,
    rows: Array<{ id: number; stream_id: number | null; subject: string; recipient_id: number }>,
    recipients?: number[],
  ): Promise<void> {
    const ids = rows.map((r) => r.id);
    let notify = recipients;
    if (notify === undefined) notify = await this.repo.usersWithRows(ids);
    const deleted = await this.repo.deleteMessages(ids);
    if (deleted.ids.length !== ids.length) throw MessageErrors.alreadyDeleted();
    if (deleted.attachmentIds.length > 0) {
      await this.bus.publish(new MessagesDeletedEvent(realm.id, ids, deleted.attachmentIds));
    }
    const channelIds = [...new Set(rows.map((r) => r.stream_id).filter((x): x is number => x !== null))];
    const firstMessageIdChanges = await this.editRepo.refreshFirstMessageIds(channelIds);
    const first = rows[0];
    this.events.deleteMessages(
      realm.id,
      ids,
      first.stream_id !== null ? { streamId: first.stream_id, topic: first.subject } : null,
      notify,
    );
    this.events.firstMessageIdUpdates(realm.id, firstMessageIdChanges, notify);
  }
}
