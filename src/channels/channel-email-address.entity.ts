import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An email address that posts to a channel (Zulip's ChannelEmailAddress): one token per
 * (channel, creator, sender), so that each user hands out their own address and can see which
 * bot the gateway posts as.
 */
@Entity({ name: 'channel_email_address' })
@Index('channel_email_address_unique', ['channelId', 'creatorId', 'senderId'], { unique: true })
export class ChannelEmailAddress {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'channel_id', type: 'integer' })
  channelId: number;

  @Column({ name: 'creator_id', type: 'integer', nullable: true })
  creatorId: number | null;

  @Column({ name: 'sender_id', type: 'integer' })
  senderId: number;

  @Index('channel_email_address_email_token_key', { unique: true })
  @Column({ name: 'email_token', type: 'varchar', length: 32 })
  emailToken: string;

  @CreateDateColumn({ name: 'date_created', type: 'timestamptz' })
  dateCreated: Date;

  @Column({ type: 'boolean', default: false })
  deactivated: boolean;
}
