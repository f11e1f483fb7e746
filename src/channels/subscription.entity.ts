import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A user's subscription to a recipient (Zulip's Subscription). Unsubscribing sets `active` to
 * false and keeps the personal settings for a later re-subscription. One row per (user,
 * recipient): the unique index is what makes concurrent subscribes idempotent.
 *
 * Zulip also keeps `is_user_active` and `Stream.subscriber_count` denormalised; we do not: the
 * users module deactivates users without knowing about subscriptions, so counts and audiences
 * join user_profile.is_active instead (one indexed join, same number of queries).
 */
@Entity({ name: 'subscription' })
@Index('subscription_user_recipient_key', ['userProfileId', 'recipientId'], { unique: true })
@Index('subscription_recipient_user_active_idx', ['recipientId', 'userProfileId'], { where: 'active' })
export class Subscription {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userProfileId: number;

  @Column({ name: 'recipient_id', type: 'integer' })
  recipientId: number;

  @Column({ type: 'boolean', default: true })
  active: boolean;

  @Column({ name: 'is_muted', type: 'boolean', default: false })
  isMuted: boolean;

  @Column({ type: 'varchar', length: 10, default: '#c2c2c2' })
  color: string;

  @Column({ name: 'pin_to_top', type: 'boolean', default: false })
  pinToTop: boolean;

  /** null = the user's default for channel messages. */
  @Column({ name: 'desktop_notifications', type: 'boolean', nullable: true })
  desktopNotifications: boolean | null;

  @Column({ name: 'audible_notifications', type: 'boolean', nullable: true })
  audibleNotifications: boolean | null;

  @Column({ name: 'push_notifications', type: 'boolean', nullable: true })
  pushNotifications: boolean | null;

  @Column({ name: 'email_notifications', type: 'boolean', nullable: true })
  emailNotifications: boolean | null;

  @Column({ name: 'wildcard_mentions_notify', type: 'boolean', nullable: true })
  wildcardMentionsNotify: boolean | null;
}
