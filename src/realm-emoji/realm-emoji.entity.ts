import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A custom emoji of a realm (Zulip's RealmEmoji). Deleting one only deactivates it (messages and
 * reactions keep showing it); an active name is unique per realm (partial unique index).
 * `file_name` is null only while the row's transaction is storing the image.
 */
@Entity({ name: 'realm_emoji' })
@Index('realm_emoji_realm_name_active_key', ['realmId', 'name'], { unique: true, where: 'NOT "deactivated"' })
export class RealmEmoji {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('realm_emoji_realm_id_idx')
  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'author_id', type: 'integer', nullable: true })
  authorId: number | null;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'date_created', type: 'timestamptz', default: () => 'now()' })
  dateCreated: Date;

  @Column({ name: 'file_name', type: 'text', nullable: true })
  fileName: string | null;

  @Column({ name: 'is_animated', type: 'boolean', default: false })
  isAnimated: boolean;

  @Column({ type: 'boolean', default: false })
  deactivated: boolean;
}
