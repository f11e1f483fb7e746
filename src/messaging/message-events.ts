import { Injectable } from '@nestjs/common';
import { type DeleteMessageEvent, streamUpdateEvent, type UpdateMessageEvent } from '../events/client-events';
import { EventsService, type QueueInfo } from '../events/events.service';
import { topicForClient } from './message-text';

/** An update_message event before the per-recipient part (flags) and the client's topic form. */
export type UpdateMessageFields = Omit<UpdateMessageEvent, 'type' | 'flags'>;

/** Where deleted messages were: a channel's topic, or a direct-message conversation. */
export type DeletedFrom = { streamId: number; topic: string } | null;

function allowsEmptyTopic(queue: QueueInfo): boolean {
  return queue.options.clientCapabilities.empty_topic_name === true;
}

/**
 * The client events of edits, moves and deletions (zerver/actions/message_edit.py,
 * message_delete.py), queued to be sent after commit, with their per-client forms (empty topic
 * name, bulk deletion). Shapes: events/client-events.ts.
 */
@Injectable()
export class MessageEvents {
  constructor(private readonly events: EventsService) {}

  /** update_message to each recipient with their flags on the message. */
  updateMessage(realmId: number, event: UpdateMessageFields, flagsByUser: Map<number, string[]>): void {
    this.events.sendOnCommitPerQueue(realmId, 'update_message', flagsByUser.keys(), (queue, userId) => {
      const out: UpdateMessageEvent = { ...event, type: 'update_message', flags: flagsByUser.get(userId) ?? [] };
      if (out.orig_subject !== undefined) out.orig_subject = topicForClient(out.orig_subject, allowsEmptyTopic(queue));
      if (out.subject !== undefined) out.subject = topicForClient(out.subject, allowsEmptyTopic(queue));
      return out;
    });
  }

  /**
   * `stream` update events for channels whose oldest message changed through a move or a
   * deletion (zerver/actions/message_delete.py check_update_first_message_id).
   */
  firstMessageIdUpdates(
    realmId: number,
    changed: Array<{ id: number; name: string; first_message_id: number | null }>,
    userIds: Iterable<number>,
  ): void {
    const recipients = [...userIds];
    if (recipients.length === 0) return;
    for (const c of changed) {
      this.events.sendOnCommit(realmId, streamUpdateEvent(c, 'first_message_id', c.first_message_id), recipients);
    }
  }

  /** delete_message events (bulk form for clients with bulk_message_deletion). */
  deleteMessages(realmId: number, messageIds: number[], where: DeletedFrom, userIds: number[]): void {
    const ids = [...messageIds].sort((a, b) => a - b);
    const place = (queue: QueueInfo) =>
      where
        ? {
            message_type: 'stream' as const,
            stream_id: where.streamId,
            topic: topicForClient(where.topic, allowsEmptyTopic(queue)),
          }
        : { message_type: 'private' as const };
    this.events.sendOnCommitPerQueue(realmId, 'delete_message', userIds, (queue): DeleteMessageEvent => {
      const bulk = queue.options.clientCapabilities.bulk_message_deletion === true;
      return bulk
        ? { type: 'delete_message', message_ids: ids, ...place(queue) }
        : { type: 'delete_message', message_id: ids[0], ...place(queue) };
    });
    // Clients without bulk deletion get one event per message.
    for (const id of ids.slice(1)) {
      this.events.sendOnCommitPerQueue(realmId, 'delete_message', userIds, (queue) =>
        // Bulk clients had every id in the first event: a heartbeat is the queue's no-op.
        queue.options.clientCapabilities.bulk_message_deletion === true
          ? { type: 'heartbeat' }
          : { type: 'delete_message', message_id: id, ...place(queue) },
      );
    }
  }
}
