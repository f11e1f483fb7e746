import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Zulip's Recipient.type codes. Channels own type 2; messaging adds 1 (user) and 3 (DM group). */
export const RecipientType = {
  PERSONAL: 1,
  STREAM: 2,
  DIRECT_MESSAGE_GROUP: 3,
} as const;

/**
 * What a message is addressed to (Zulip's Recipient): one row per channel (type 2), and, once
 * the messaging module adds them, per user (type 1) and per direct-message group (type 3).
 * Messages and subscriptions point at a recipient id, so the send path finds its audience from
 * `message.recipient_id` without knowing whether it is a channel or a DM group.
 */
@Entity({ name: 'recipient' })
@Index('recipient_type_type_id_key', ['type', 'typeId'], { unique: true })
export class Recipient {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'smallint' })
  type: number;

  /** The channel id (type 2), user id (type 1) or DM group id (type 3). */
  @Column({ name: 'type_id', type: 'integer' })
  typeId: number;
}

/**
 * A channel (Zulip's Stream). Names are unique per realm, case-insensitively: the unique index
 * `stream_realm_upper_name_key` on (realm_id, upper(name)) is created by the migration (TypeORM
 * cannot express it), and creation uses INSERT … ON CONFLICT against it.
 */
@Entity({ name: 'stream' })
@Index('stream_realm_upper_name_key', { synchronize: false })
export class Stream {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('stream_realm_id_idx')
  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ type: 'varchar', length: 60 })
  name: string;

  @Column({ name: 'date_created', type: 'timestamptz', default: () => 'now()' })
  dateCreated: Date;

  @Column({ name: 'creator_id', type: 'integer', nullable: true })
  creatorId: number | null;

  /** Archived. */
  @Column({ type: 'boolean', default: false })
  deactivated: boolean;

  @Column({ type: 'varchar', length: 1024, default: '' })
  description: string;

  @Column({ name: 'rendered_description', type: 'text', default: '' })
  renderedDescription: string;

  @Index('stream_recipient_id_key', { unique: true })
  @Column({ name: 'recipient_id', type: 'integer', nullable: true })
  recipientId: number | null;

  @Index('stream_folder_id_idx')
  @Column({ name: 'folder_id', type: 'integer', nullable: true })
  folderId: number | null;

  @Column({ name: 'invite_only', type: 'boolean', default: false })
  inviteOnly: boolean;

  @Column({ name: 'history_public_to_subscribers', type: 'boolean', default: true })
  historyPublicToSubscribers: boolean;

  @Column({ name: 'is_web_public', type: 'boolean', default: false })
  isWebPublic: boolean;

  /** null = the realm's setting; -1 = forever. */
  @Column({ name: 'message_retention_days', type: 'integer', nullable: true })
  messageRetentionDays: number | null;

  /** Maintained by the messaging module (null until the channel has messages). */
  @Column({ name: 'first_message_id', type: 'integer', nullable: true })
  firstMessageId: number | null;

  @Column({ name: 'is_recently_active', type: 'boolean', default: true })
  isRecentlyActive: boolean;

  /** 1 inherit, 2 allow_empty_topic, 3 disable_empty_topic, 4 empty_topic_only. */
  @Column({ name: 'topics_policy', type: 'smallint', default: 1 })
  topicsPolicy: number;

  @Column({ name: 'can_add_subscribers_group', type: 'integer' })
  canAddSubscribersGroup: number;

  @Column({ name: 'can_administer_channel_group', type: 'integer' })
  canAdministerChannelGroup: number;

  @Column({ name: 'can_create_topic_group', type: 'integer' })
  canCreateTopicGroup: number;

  @Column({ name: 'can_delete_any_message_group', type: 'integer' })
  canDeleteAnyMessageGroup: number;

  @Column({ name: 'can_delete_own_message_group', type: 'integer' })
  canDeleteOwnMessageGroup: number;

  @Column({ name: 'can_move_messages_out_of_channel_group', type: 'integer' })
  canMoveMessagesOutOfChannelGroup: number;

  @Column({ name: 'can_move_messages_within_channel_group', type: 'integer' })
  canMoveMessagesWithinChannelGroup: number;

  @Column({ name: 'can_remove_subscribers_group', type: 'integer' })
  canRemoveSubscribersGroup: number;

  @Column({ name: 'can_resolve_topics_group', type: 'integer' })
  canResolveTopicsGroup: number;

  @Column({ name: 'can_send_message_group', type: 'integer' })
  canSendMessageGroup: number;

  @Column({ name: 'can_subscribe_group', type: 'integer' })
  canSubscribeGroup: number;
}

/** A default channel: new users of the realm are subscribed to it. */
@Entity({ name: 'default_stream' })
@Index('default_stream_realm_stream_key', ['realmId', 'streamId'], { unique: true })
export class DefaultStream {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Index('default_stream_stream_id_idx')
  @Column({ name: 'stream_id', type: 'integer' })
  streamId: number;
}
