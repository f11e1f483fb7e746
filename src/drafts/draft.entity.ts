import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A synchronized compose-box draft (Zulip's Draft). Zulip keeps a recipient; we keep what the
 * API shows: the type, the channel of a channel draft, the other participants of a direct one.
 */
@Entity({ name: 'draft' })
@Index('draft_user_last_edit_idx', ['userId', 'lastEditTime'])
export class Draft {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userId: number;

  /** '' (no recipient yet), 'stream' or 'private'. */
  @Column({ type: 'varchar', length: 8 })
  type: string;

  @Column({ name: 'stream_id', type: 'integer', nullable: true })
  streamId: number | null;

  /** The API's `to` of a direct draft (the other participants, or oneself alone). */
  @Column({ name: 'to_user_ids', type: 'integer', array: true, default: () => "'{}'" })
  toUserIds: number[];

  @Column({ type: 'text', default: '' })
  topic: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ name: 'last_edit_time', type: 'timestamptz' })
  lastEditTime: Date;
}

/** A saved snippet (Zulip's SavedSnippet): a titled text to insert into the compose box. */
@Entity({ name: 'saved_snippet' })
@Index('saved_snippet_user_idx', ['userId'])
export class SavedSnippet {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userId: number;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ name: 'date_created', type: 'timestamptz' })
  dateCreated: Date;
}
