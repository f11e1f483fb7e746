import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** Zulip's Message.MessageType. */
export const MessageType = {
  NORMAL: 1,
  RESOLVE_TOPIC_NOTIFICATION: 2,
} as const;

/**
 * A message (Zulip's Message). Channel messages point at the channel's recipient row; direct
 * messages at their direct-message group's recipient row (every DM conversation, 1:1 and with
 * oneself included, is a group: see DirectMessageGroup). The topic is stored in `subject`
 * ("" for direct messages).
 *
 * Indexes that TypeORM cannot declare are created by the migration (`synchronize: false` below):
 * the case-insensitive topic index, the full-text index on `search_tsvector`, which a trigger
 * keeps up to date from `subject` and `content`, and `message_id_cover_idx`: the primary key's
 * column with the conversation (recipient, kind, topic) included, so statements that look up
 * many messages by id only for their conversation (unread_msgs, recent direct messages) read
 * the index alone, not the table.
 */
@Entity({ name: 'message' })
@Index('message_realm_recipient_id_idx', ['realmId', 'recipientId', 'id'])
@Index('message_sender_id_idx', ['senderId', 'id'])
@Index('message_recipient_upper_subject_idx', { synchronize: false })
@Index('message_search_tsvector_idx', { synchronize: false })
@Index('message_id_cover_idx', { synchronize: false })
export class Message {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'sender_id', type: 'integer' })
  senderId: number;

  @Column({ name: 'recipient_id', type: 'integer' })
  recipientId: number;

  /** The topic ("" for direct messages and for the empty "general chat" topic). */
  @Column({ type: 'varchar', length: 60, default: '' })
  subject: string;

  /** Raw Markdown. */
  @Column({ type: 'text' })
  content: string;

  @Column({ name: 'rendered_content', type: 'text', nullable: true })
  renderedContent: string | null;

  @Column({ name: 'rendered_content_version', type: 'integer', nullable: true })
  renderedContentVersion: number | null;

  @Column({ name: 'date_sent', type: 'timestamptz' })
  dateSent: Date;

  /** Name of the client that sent the message (Zulip's Client.name), e.g. "website". */
  @Column({ name: 'sending_client', type: 'varchar', length: 30 })
  sendingClient: string;

  @Column({ name: 'last_edit_time', type: 'timestamptz', nullable: true })
  lastEditTime: Date | null;

  /**
   * Edits and moves, newest first, as Zulip stores them: objects with `user_id`, `timestamp`
   * and, depending on what changed, `prev_content`/`prev_rendered_content`/
   * `prev_rendered_content_version`, `prev_topic`/`topic`, `prev_stream`/`stream`.
   */
  @Column({ name: 'edit_history', type: 'jsonb', nullable: true })
  editHistory: Array<Record<string, unknown>> | null;

  @Column({ name: 'has_attachment', type: 'boolean', default: false })
  hasAttachment: boolean;

  @Column({ name: 'has_image', type: 'boolean', default: false })
  hasImage: boolean;

  @Column({ name: 'has_link', type: 'boolean', default: false })
  hasLink: boolean;

  @Column({ name: 'is_channel_message', type: 'boolean' })
  isChannelMessage: boolean;

  /** 1 normal, 2 resolve-topic notification. */
  @Column({ type: 'smallint', default: MessageType.NORMAL })
  type: number;

  /** Maintained by a trigger (subject + content); never written by the application. */
  @Column({ name: 'search_tsvector', type: 'tsvector', nullable: true, select: false, insert: false, update: false })
  searchTsvector: string | null;
}

/**
 * One row per (user, message) the user received or later added to their history (Zulip's
 * UserMessage), with the flag bits of `flags.ts`. The primary key (user_profile_id,
 * message_id) is the only full index; the partial indexes serve starred, mentioned, unread and
 * direct-message lookups (created by the migrations: TypeORM cannot express bit tests in index
 * predicates). The unread one includes the flags, so unread_msgs reads it alone.
 */
@Entity({ name: 'user_message' })
@Index('user_message_starred_idx', { synchronize: false })
@Index('user_message_mentioned_idx', { synchronize: false })
@Index('user_message_unread_idx', { synchronize: false })
@Index('user_message_private_idx', { synchronize: false })
@Index('user_message_message_id_idx', ['messageId'])
export class UserMessage {
  @PrimaryColumn({ name: 'user_profile_id', type: 'integer' })
  userProfileId: number;

  @PrimaryColumn({ name: 'message_id', type: 'integer' })
  messageId: number;

  @Column({ type: 'bigint', default: 0 })
  flags: string;
}

/**
 * A direct-message conversation (Zulip's DirectMessageGroup): the set of its participants,
 * sender included, identified by the SHA-1 of their sorted ids. Every DM conversation has one,
 * including 1:1 conversations and notes to oneself, so a conversation has one recipient id in
 * both directions (Zulip's behaviour since feature level 327).
 */
@Entity({ name: 'direct_message_group' })
export class DirectMessageGroup {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('direct_message_group_hash_key', { unique: true })
  @Column({ name: 'huddle_hash', type: 'varchar', length: 40 })
  huddleHash: string;

  @Index('direct_message_group_recipient_id_key', { unique: true })
  @Column({ name: 'recipient_id', type: 'integer', nullable: true })
  recipientId: number | null;

  @Column({ name: 'group_size', type: 'integer' })
  groupSize: number;

  /** Participant ids, sorted. */
  @Column({ name: 'user_ids', type: 'integer', array: true })
  userIds: number[];
}

/** An emoji reaction (Zulip's Reaction). One per (user, message, reaction_type, emoji_code). */
@Entity({ name: 'reaction' })
@Index('reaction_user_message_type_code_key', ['userProfileId', 'messageId', 'reactionType', 'emojiCode'], {
  unique: true,
})
@Index('reaction_message_id_idx', ['messageId'])
export class Reaction {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userProfileId: number;

  @Column({ name: 'message_id', type: 'integer' })
  messageId: number;

  @Column({ name: 'emoji_name', type: 'text' })
  emojiName: string;

  @Column({ name: 'emoji_code', type: 'text' })
  emojiCode: string;

  /** `unicode_emoji`, `realm_emoji` or `service_extra_emoji` (DECISIONS #4). */
  @Column({ name: 'reaction_type', type: 'varchar', length: 30, default: 'unicode_emoji' })
  reactionType: string;
}

/** An uploaded file (Zulip's Attachment). Linked to the messages that reference it. */
@Entity({ name: 'attachment' })
export class Attachment {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'file_name', type: 'text' })
  fileName: string;

  /** Path in the upload store; the URL is `/user_uploads/<path_id>`. */
  @Index('attachment_path_id_key', { unique: true })
  @Column({ name: 'path_id', type: 'text' })
  pathId: string;

  @Index('attachment_owner_id_idx')
  @Column({ name: 'owner_id', type: 'integer' })
  ownerId: number;

  @Index('attachment_realm_id_idx')
  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ name: 'create_time', type: 'timestamptz', default: () => 'now()' })
  createTime: Date;

  @Column({ type: 'bigint' })
  size: string;

  @Column({ name: 'content_type', type: 'text', nullable: true })
  contentType: string | null;

  /** Computed when a message referencing it is sent: null until then. */
  @Column({ name: 'is_realm_public', type: 'boolean', nullable: true })
  isRealmPublic: boolean | null;

  @Column({ name: 'is_web_public', type: 'boolean', nullable: true })
  isWebPublic: boolean | null;
}

/** Which messages reference which attachment (Zulip's Attachment.messages). */
@Entity({ name: 'attachment_message' })
export class AttachmentMessage {
  @PrimaryColumn({ name: 'attachment_id', type: 'integer' })
  attachmentId: number;

  @Index('attachment_message_message_id_idx')
  @PrimaryColumn({ name: 'message_id', type: 'integer' })
  messageId: number;
}

/**
 * A submessage (Zulip's SubMessage): widget state attached to a message. The first one of a
 * widget message is the widget itself (msg_type `widget`, content `{widget_type, extra_data}`),
 * written by the sender when the message is sent; later ones are the readers' changes (votes,
 * new options, struck tasks), kept in id order. Deleted with their message.
 */
@Entity({ name: 'submessage' })
@Index('submessage_message_id_idx', ['messageId'])
export class SubMessage {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'message_id', type: 'integer' })
  messageId: number;

  @Column({ name: 'sender_id', type: 'integer' })
  senderId: number;

  @Column({ name: 'msg_type', type: 'text' })
  msgType: string;

  /** The JSON text as the client sent it (or as the send path built it), never re-encoded. */
  @Column({ type: 'text' })
  content: string;
}
