import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { UserSettings } from '../realm/user-settings';

@Entity({ name: 'user_profile' })
@Index('user_profile_realm_email_key', { synchronize: false })
@Index('user_profile_bot_owner_idx', { synchronize: false })
export class UserProfile {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('user_profile_realm_id_idx')
  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  /** The real address; the API `email` is derived from it and the email visibility setting. */
  @Column({ name: 'delivery_email', type: 'varchar', length: 254 })
  deliveryEmail: string;

  @Column({ name: 'full_name', type: 'varchar', length: 100 })
  fullName: string;

  @Column({ type: 'smallint', default: 400 })
  role: number;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  @Column({ name: 'is_bot', type: 'boolean', default: false })
  isBot: boolean;

  @Column({ name: 'bot_type', type: 'smallint', nullable: true })
  botType: number | null;

  @Column({ name: 'bot_owner_id', type: 'integer', nullable: true })
  botOwnerId: number | null;

  @Column({ name: 'date_joined', type: 'timestamptz', default: () => 'now()' })
  dateJoined: Date;

  @Column({ type: 'varchar', length: 40, default: '' })
  timezone: string;

  @Column({ name: 'avatar_source', type: 'varchar', length: 1, default: 'G' })
  avatarSource: string;

  @Column({ name: 'avatar_version', type: 'integer', default: 1 })
  avatarVersion: number;

  /** scrypt hash (`scrypt$N$r$p$salt$hash`), or null when password login is not possible. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true })
  passwordHash: string | null;

  /** HMAC-SHA256 of the API key under the server secret (hex); used for lookup. */
  @Index('user_profile_api_key_digest_key', { unique: true })
  @Column({ name: 'api_key_digest', type: 'varchar', length: 64 })
  apiKeyDigest: string;

  /** AES-256-GCM encryption of the API key, for the endpoints that must return it. */
  @Column({ name: 'api_key_ciphertext', type: 'varchar', length: 255 })
  apiKeyCiphertext: string;

  @Column({ name: 'can_create_users', type: 'boolean', default: false })
  canCreateUsers: boolean;

  @Column({ name: 'can_change_user_emails', type: 'boolean', default: false })
  canChangeUserEmails: boolean;

  @Column({ name: 'is_imported_stub', type: 'boolean', default: false })
  isImportedStub: boolean;

  @Column({ name: 'is_mirror_dummy', type: 'boolean', default: false })
  isMirrorDummy: boolean;

  @Column({ name: 'long_term_idle', type: 'boolean', default: false })
  longTermIdle: boolean;

  @Column({ name: 'tos_version', type: 'varchar', length: 10, nullable: true })
  tosVersion: string | null;

  @Column(() => UserSettings, { prefix: false })
  settings: UserSettings;
}
