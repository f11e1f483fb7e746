import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The last time we heard from a user (Zulip's UserPresence): one row per user, written in
 * batches by PresenceWriter. `last_update_id` orders rows by when they last changed within the
 * realm (from {@link PresenceSequence}), so clients can fetch only what changed since.
 */
@Entity({ name: 'user_presence' })
@Index('user_presence_user_key', ['userId'], { unique: true })
@Index('user_presence_realm_last_update_id_idx', ['realmId', 'lastUpdateId'])
@Index('user_presence_realm_last_connected_idx', ['realmId', 'lastConnectedTime'])
export class UserPresence {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userId: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  /** A client was connected (active or idle). */
  @Column({ name: 'last_connected_time', type: 'timestamptz', nullable: true })
  lastConnectedTime: Date | null;

  /** A client reported the user actually present. */
  @Column({ name: 'last_active_time', type: 'timestamptz', nullable: true })
  lastActiveTime: Date | null;

  @Column({ name: 'last_update_id', type: 'bigint', default: 0 })
  lastUpdateId: string;
}

/**
 * Per-realm generator of `user_presence.last_update_id` (Zulip's PresenceSequence). Its row is
 * locked by the batch that takes the next value until that batch commits, so ids become visible
 * in order and a client fetching "newer than N" never misses a row.
 */
@Entity({ name: 'presence_sequence' })
export class PresenceSequence {
  @PrimaryColumn({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'last_update_id', type: 'bigint' })
  lastUpdateId: string;
}

/** A user's status message and emoji (Zulip's UserStatus); `away` is the presence_enabled setting. */
@Entity({ name: 'user_status' })
@Index('user_status_user_key', ['userId'], { unique: true })
export class UserStatus {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userId: number;

  @Column({ type: 'timestamptz' })
  timestamp: Date;

  @Column({ name: 'status_text', type: 'varchar', length: 255, default: '' })
  statusText: string;

  @Column({ name: 'emoji_name', type: 'text', default: '' })
  emojiName: string;

  @Column({ name: 'emoji_code', type: 'text', default: '' })
  emojiCode: string;

  @Column({ name: 'reaction_type', type: 'varchar', length: 30, default: 'unicode_emoji' })
  reactionType: string;
}
