import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Zulip's UserTopic.VisibilityPolicy. */
export const VisibilityPolicy = {
  INHERIT: 0,
  MUTED: 1,
  UNMUTED: 2,
  FOLLOWED: 3,
} as const;

/**
 * A user's visibility policy for one topic of a channel (muted, unmuted, followed). Topics match
 * case-insensitively: the unique index (user_profile_id, stream_id, lower(topic_name)) and the
 * lookup index (stream_id, lower(topic_name)) are created by the migration.
 */
@Entity({ name: 'user_topic' })
@Index('user_topic_user_stream_topic_key', { synchronize: false })
@Index('user_topic_stream_topic_idx', { synchronize: false })
export class UserTopic {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userProfileId: number;

  @Column({ name: 'stream_id', type: 'integer' })
  streamId: number;

  @Column({ name: 'recipient_id', type: 'integer' })
  recipientId: number;

  @Column({ name: 'topic_name', type: 'varchar', length: 60 })
  topicName: string;

  @Column({ name: 'last_updated', type: 'timestamptz' })
  lastUpdated: Date;

  @Column({ name: 'visibility_policy', type: 'smallint' })
  visibilityPolicy: number;
}
