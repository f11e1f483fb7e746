import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Zulip's ScheduledMessage.delivery_type. */
export enum DeliveryType {
  SEND_LATER = 1,
  REMIND = 2,
}

/**
 * A message to send later, or a reminder (Zulip's ScheduledMessage). The addressee is kept as
 * the API gives it (`to`: the channel id, or the direct-message recipients other than the
 * sender), so delivery goes through the normal send path with every check repeated.
 * `delivered` and `failed` are set by the one process that locked the row (SKIP LOCKED).
 */
@Entity({ name: 'scheduled_message' })
// The deliverer's scan: undelivered, unfailed rows by time.
@Index('scheduled_message_due_idx', ['scheduledTimestamp'], { where: 'NOT delivered AND NOT failed' })
// The owner's lists (GET /scheduled_messages, GET /reminders, /register).
@Index('scheduled_message_sender_idx', ['senderId', 'deliveryType', 'scheduledTimestamp'], { where: 'NOT delivered' })
export class ScheduledMessage {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'sender_id', type: 'integer' })
  senderId: number;

  @Column({ name: 'delivery_type', type: 'smallint', default: DeliveryType.SEND_LATER })
  deliveryType: DeliveryType;

  /** `stream` or `private`, as Zulip's dicts. */
  @Column({ name: 'recipient_type', type: 'text' })
  recipientType: string;

  @Column({ name: 'stream_id', type: 'integer', nullable: true })
  streamId: number | null;

  /** Direct messages: the recipients other than the sender ([sender] when writing to oneself). */
  @Column({ name: 'to_user_ids', type: 'integer', array: true, nullable: true })
  toUserIds: number[] | null;

  @Column({ type: 'text', default: '' })
  subject: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ name: 'rendered_content', type: 'text' })
  renderedContent: string;

  @Column({ name: 'sending_client', type: 'text' })
  sendingClient: string;

  @Column({ name: 'scheduled_timestamp', type: 'timestamptz' })
  scheduledTimestamp: Date;

  @Column({ name: 'read_by_sender', type: 'boolean' })
  readBySender: boolean;

  @Column({ type: 'boolean', default: false })
  delivered: boolean;

  @Column({ name: 'delivered_message_id', type: 'integer', nullable: true })
  deliveredMessageId: number | null;

  @Column({ type: 'boolean', default: false })
  failed: boolean;

  @Column({ name: 'failure_message', type: 'text', nullable: true })
  failureMessage: string | null;

  @Column({ name: 'reminder_target_message_id', type: 'integer', nullable: true })
  reminderTargetMessageId: number | null;

  @Column({ name: 'reminder_note', type: 'text', nullable: true })
  reminderNote: string | null;
}
