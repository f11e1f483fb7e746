import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** What became of a request to change an email address (Zulip's EmailChangeStatus.status). */
export const EmailChangeState = { PENDING: 0, USED: 1, REVOKED: 2 } as const;

/**
 * A user's request to change their email address (Zulip's EmailChangeStatus with its
 * Confirmation): the new address is confirmed by opening the link sent to it, until it expires.
 * A newer request revokes the older ones.
 */
@Entity({ name: 'email_change_status' })
@Index('email_change_status_user_idx', ['userId'])
export class EmailChangeStatus {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userId: number;

  @Column({ name: 'old_email', type: 'varchar', length: 254 })
  oldEmail: string;

  @Column({ name: 'new_email', type: 'varchar', length: 254 })
  newEmail: string;

  /** The confirmation key in the link (24 random lowercase letters and digits, as Zulip's). */
  @Index('email_change_status_key_key', { unique: true })
  @Column({ name: 'confirmation_key', type: 'varchar', length: 40 })
  key: string;

  @Column({ type: 'smallint', default: EmailChangeState.PENDING })
  status: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
