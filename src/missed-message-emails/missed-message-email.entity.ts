import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A message waiting to be emailed to a recipient who was offline when it arrived (Zulip's
 * ScheduledMessageNotificationEmail). Every row of a user shares the first row's time, so a
 * batching period gathers them into one email; the sender's pass claims a user's rows with
 * FOR UPDATE SKIP LOCKED and deletes them in the transaction that queues the email.
 */
@Entity({ name: 'missed_message_email' })
@Index('missed_message_email_due_idx', ['scheduledAt'])
@Index('missed_message_email_user_idx', ['userProfileId', 'messageId'], { unique: true })
export class MissedMessageEmail {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userProfileId: number;

  @Column({ name: 'message_id', type: 'integer' })
  messageId: number;

  /** Why the user is told: an EmailTrigger (email-notifiability.ts). */
  @Column({ name: 'trigger', type: 'varchar', length: 60 })
  trigger: string;

  /** A mention through a user group: the smallest mentioned group the user is in. */
  @Column({ name: 'mentioned_user_group_id', type: 'integer', nullable: true })
  mentionedUserGroupId: number | null;

  @Column({ name: 'scheduled_at', type: 'timestamptz' })
  scheduledAt: Date;
}
