import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** What became of an invitation (Zulip's confirmation STATUS_ACTIVE / STATUS_USED / STATUS_REVOKED). */
export const InvitationStatus = { PENDING: 0, USED: 1, REVOKED: 2 } as const;

/**
 * An invitation to join a realm: Zulip's PreregistrationUser (one email address, used once) and
 * MultiuseInvite (a link anyone may use until it expires or is revoked), each with its
 * Confirmation (key and expiry), in one table told apart by `is_multiuse`.
 */
@Entity({ name: 'invitation' })
@Index('invitation_realm_idx', ['realmId', 'invitedAt'])
export class Invitation {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'referred_by_id', type: 'integer' })
  referredById: number;

  @Column({ name: 'is_multiuse', type: 'boolean' })
  isMultiuse: boolean;

  /** The invitee's address (null for a multiuse link). */
  @Column({ type: 'varchar', length: 254, nullable: true })
  email: string | null;

  /** Zulip's INVITE_AS codes, which are the role codes (100 owner … 600 guest). */
  @Column({ name: 'invited_as', type: 'smallint' })
  invitedAs: number;

  @Column({ name: 'include_realm_default_subscriptions', type: 'boolean', default: false })
  includeRealmDefaultSubscriptions: boolean;

  @Column({ name: 'notify_referrer_on_join', type: 'boolean', default: true })
  notifyReferrerOnJoin: boolean;

  @Column({ name: 'stream_ids', type: 'integer', array: true, default: () => "'{}'" })
  streamIds: number[];

  @Column({ name: 'group_ids', type: 'integer', array: true, default: () => "'{}'" })
  groupIds: number[];

  /** The key in the link (24 random lowercase letters and digits, as Zulip's confirmation keys). */
  @Index('invitation_key_key', { unique: true })
  @Column({ name: 'confirmation_key', type: 'varchar', length: 40 })
  key: string;

  @Column({ type: 'smallint', default: InvitationStatus.PENDING })
  status: number;

  /** When it was sent (again, for a resent invitation). */
  @Column({ name: 'invited_at', type: 'timestamptz', default: () => 'now()' })
  invitedAt: Date;

  /** Null: never expires. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;
}
