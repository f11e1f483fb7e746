import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A channel folder. Names are unique per realm among non-archived folders, case-insensitively
 * (partial unique index on (realm_id, lower(name)) WHERE NOT is_archived, from the migration).
 */
@Entity({ name: 'channel_folder' })
@Index('channel_folder_realm_lower_name_key', { synchronize: false })
export class ChannelFolder {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('channel_folder_realm_id_idx')
  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ type: 'varchar', length: 60 })
  name: string;

  @Column({ type: 'varchar', length: 1024, default: '' })
  description: string;

  @Column({ name: 'rendered_description', type: 'text', default: '' })
  renderedDescription: string;

  @Column({ type: 'integer', default: 0 })
  order: number;

  @Column({ name: 'date_created', type: 'timestamptz', default: () => 'now()' })
  dateCreated: Date;

  @Column({ name: 'creator_id', type: 'integer', nullable: true })
  creatorId: number | null;

  @Column({ name: 'is_archived', type: 'boolean', default: false })
  isArchived: boolean;
}
