import type { DomainEventFields } from '../events/domain-event-bus';
import type { Realm } from '../realm/realm.entity';
import { ANY_MENTION_MASK } from './flags';
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
  /**
   * Channel messages sent through the send path: the subscribers whose channel or topic settings
   * could notify them whatever the content (channel email or push notifications on, following the
   * topic), read by the send's own statement. Absent: not known, so anyone may be notifiable.
   */
  declare readonly notifyCandidateIds?: ReadonlySet<number>;
  /**
   * Recipients who may not see the sender (a restricted guest and a sender who is not subscribed
   * to the channel): notifications show the sender to them as Zulip's inaccessible user ("Unknown
   * user"). Absent: everyone may see the sender.
   */
  declare readonly senderHiddenFrom?: ReadonlySet<number>;

  constructor(fields: DomainEventFields<MessageSentEvent>) {
    Object.assign(this, fields);
  }

  /**
   * The recipients a notification (push, email) could be for, in recipientIds order: everyone but
   * the sender, narrowed for a channel message whose candidates are known to those candidates and
   * the recipients it mentions (Zulip computes the same sets in get_recipient_info). Handlers need
   * not load anyone's settings when this is empty, as it is for most channel messages.
   */
  notifiableRecipientIds(): number[] {
    const candidates = this.message.isChannelMessage ? this.notifyCandidateIds : undefined;
    const out: number[] = [];
    for (const [i, id] of this.recipientIds.entries()) {
      if (id === this.message.senderId) continue;
      if (candidates && !candidates.has(id) && ((this.flags[i] ?? 0) & ANY_MENTION_MASK) === 0) continue;
      out.push(id);
    }
    return out;
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
