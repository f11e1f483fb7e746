import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One alert word or phrase of a user (Zulip's AlertWord). */
@Entity({ name: 'alert_word' })
@Index('alert_word_realm_idx', ['realmId'])
// Unique on (user, lower(word)) in the migration: alert words are case-insensitive.
@Index('alert_word_user_lower_word_key', { synchronize: false })
export class AlertWord {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userId: number;

  @Column({ type: 'text' })
  word: string;
}
