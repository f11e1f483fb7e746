import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Device kinds (Zulip's PushDeviceToken.APNS / FCM). */
export const DeviceKind = { APNS: 1, FCM: 2 } as const;
export type DeviceKindCode = (typeof DeviceKind)[keyof typeof DeviceKind];

/** A mobile device registered for push notifications. */
@Entity({ name: 'push_device_token' })
// Unique on (user_id, kind, md5(token)): hand-written in the migration (tokens exceed btree limits).
@Index('push_device_token_user_kind_token_key', { synchronize: false })
export class PushDeviceToken {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Index('push_device_token_user_idx')
  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ type: 'smallint' })
  kind: number;

  @Column({ type: 'varchar', length: 4096 })
  token: string;

  /** iOS bundle id the token belongs to (APNs topic); null for FCM. */
  @Column({ name: 'ios_app_id', type: 'varchar', length: 255, nullable: true })
  iosAppId: string | null;

  @Column({ name: 'last_updated', type: 'timestamptz', default: () => 'now()' })
  lastUpdated: Date;
}
