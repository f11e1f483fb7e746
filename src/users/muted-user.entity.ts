import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A user muted another (Zulip's MutedUser): their messages arrive read and never notify. */
@Entity({ name: 'muted_user' })
@Index('muted_user_pair_key', ['userId', 'mutedUserId'], { unique: true })
export class MutedUser {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userId: number;

  @Column({ name: 'muted_user_id', type: 'integer' })
  mutedUserId: number;

  @Column({ name: 'date_muted', type: 'timestamptz' })
  dateMuted: Date;
}
