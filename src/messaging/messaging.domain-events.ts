import type { DomainEventFields } from '../events/domain-event-bus';
import type { Realm } from '../realm/realm.entity';
import type { MessageRow, UserBrief } from './message-format';

/**
 * What the messaging module publishes on the domain-event bus (events/domain-event-bus.ts) for
 * the modules above it (push, uploads). Search for a class name to find every listener.
 */

/**
 * A message was stored, with each recipient's flags. Subscribers run after COMMIT, off the
 * request (push notifications, the publicity caches of linked uploads); their failures are
 * logged, never surfaced to the sender.
 */
export class MessageSentEvent {
  declare readonly realm: Realm;
  declare readonly message: MessageRow;
  /** The sender and, for direct messages, every participant. */
  declare readonly users: ReadonlyMap<number, UserBrief>;
  declare readonly recipientIds: readonly number[];
  /** UserMessage flag bits, in the order of recipientIds. */
  declare readonly flags: readonly number[];
  /** The message links uploaded files (attachment rows were linked to it). */
  declare readonly hasAttachment: boolean;
  /** Recipients who muted the sender: no notifications for them (muted_sender_user_ids). */
  declare readonly mutedByIds?: ReadonlySet<number>;

  constructor(fields: DomainEventFields<MessageSentEvent>) {
    Object.assign(this, fields);
  }
}

/**
 * Messages that linked uploaded files were deleted (their links are gone). Published inside the
 * deleting transaction: uploads recomputes the files' publicity caches there, so a file whose
 * only public link was deleted is not claimable as public by anyone else.
 */
export class MessagesDeletedEvent {
  constructor(
    readonly realmId: number,
    readonly messageIds: readonly number[],
    readonly attachmentIds: readonly number[],
  ) {}
}
