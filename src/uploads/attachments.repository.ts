import type { AttachmentDictRow } from '../messaging/message-attachments';
import { channelsView } from '../channels/channels.sql';
import { messagesView } from '../messaging/messaging.sql';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';

/** An attachment row as the uploads feature reads it. */
export interface AttachmentRow {
  id: number;
  fileName: string;
  pathId: string;
  ownerId: number;
  realmId: number;
  createTime: Date;
  size: number;
  contentType: string | null;
}

/** Attachment.to_dict: times in milliseconds (whole seconds, as Zulip's time.mktime). */
export interface AttachmentDict {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: Array<{ id: number; date_sent: number }>;
}

interface RawRow {
  id: number;
  file_name: string;
  path_id: string;
  owner_id: number;
  realm_id: number;
  create_time: Date;
  size: string;
  content_type: string | null;
}

const toRow = (r: RawRow): AttachmentRow => ({
  id: r.id,
  fileName: r.file_name,
  pathId: r.path_id,
  ownerId: r.owner_id,
  realmId: r.realm_id,
  createTime: r.create_time,
  size: Number(r.size),
  contentType: r.content_type,
});

const ms = (d: Date | string) => Math.floor(new Date(d).getTime() / 1000) * 1000;

/** Is the attachment linked from a message in a public channel (web-public: and web-public)? */
const PUBLIC_LINK = (webPublic: boolean) => `EXISTS (
  SELECT 1 FROM attachment_message am
    JOIN ${messagesView} m ON m.id = am.message_id
    JOIN ${channelsView} s ON m.is_channel_message AND s.recipient_id = m.recipient_id
   WHERE am.attachment_id = a.id AND m.realm_id = a.realm_id AND NOT s.invite_only
     ${webPublic ? 'AND s.is_web_public' : ''})`;

const COLUMNS = `a.id, a.file_name, a.path_id, a.owner_id, a.realm_id, a.create_time, a.size, a.content_type`;

@Injectable()
export class AttachmentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  async insert(a: {
    fileName: string;
    pathId: string;
    ownerId: number;
    realmId: number;
    size: number;
    contentType: string;
  }): Promise<AttachmentRow> {
    const rows = await this.em.query<RawRow[]>(
      `INSERT INTO attachment (file_name, path_id, owner_id, realm_id, size, content_type, create_time)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       RETURNING id, file_name, path_id, owner_id, realm_id, create_time, size, content_type`,
      [a.fileName, a.pathId, a.ownerId, a.realmId, a.size, a.contentType],
    );
    return toRow(rows[0]);
  }

  async byPathId(pathId: string): Promise<AttachmentRow | null> {
    const rows = await this.em.query<RawRow[]>(`SELECT ${COLUMNS} FROM attachment a WHERE a.path_id = $1`, [pathId]);
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** The caller's own attachment, locked for deletion; null for anything else. */
  async ownedForUpdate(ownerId: number, id: number): Promise<AttachmentRow | null> {
    const rows = await this.em.query<RawRow[]>(
      `SELECT ${COLUMNS} FROM attachment a WHERE a.id = $1 AND a.owner_id = $2 FOR UPDATE`,
      [id, ownerId],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  async delete(id: number): Promise<void> {
    await this.em.query(`DELETE FROM attachment WHERE id = $1`, [id]);
  }

  /**
   * Recomputes the cached is_realm_public / is_web_public flags from the current message links
   * and returns them (Zulip fills them lazily; we keep them exact whenever we look).
   */
  async refreshPublicity(attachmentId: number): Promise<{ realmPublic: boolean; webPublic: boolean }> {
    const rows = await this.em.query<Array<{ rp: boolean; wp: boolean }>>(
      `WITH now_public AS (
         SELECT a.id, ${PUBLIC_LINK(false)} AS rp, ${PUBLIC_LINK(true)} AS wp FROM attachment a WHERE a.id = $1
       ), upd AS (
         UPDATE attachment t SET is_realm_public = p.rp, is_web_public = p.wp FROM now_public p
          WHERE t.id = p.id AND (t.is_realm_public IS DISTINCT FROM p.rp OR t.is_web_public IS DISTINCT FROM p.wp)
       )
       SELECT rp, wp FROM now_public`,
      [attachmentId],
    );
    return { realmPublic: rows[0]?.rp === true, webPublic: rows[0]?.wp === true };
  }

  /** Recomputes the publicity flags of these attachments (their links changed). */
  async refreshPublicityOf(attachmentIds: readonly number[]): Promise<void> {
    if (attachmentIds.length === 0) return;
    await this.em.query(
      `UPDATE attachment a SET is_realm_public = ${PUBLIC_LINK(false)}, is_web_public = ${PUBLIC_LINK(true)}
        WHERE a.id = ANY($1::int[])`,
      [attachmentIds],
    );
  }

  /**
   * Recomputes the flags of the realm's attachments cached as public (a channel changed privacy:
   * a file may have lost its only public link; a rare administrative action).
   */
  async refreshCachedPublic(realmId: number): Promise<void> {
    await this.em.query(
      `UPDATE attachment a SET is_realm_public = ${PUBLIC_LINK(false)}, is_web_public = ${PUBLIC_LINK(true)}
        WHERE a.realm_id = $1 AND (a.is_realm_public OR a.is_web_public)`,
      [realmId],
    );
  }

  /** Refreshes the publicity flags of every attachment a message links. */
  async refreshPublicityForMessage(messageId: number): Promise<void> {
    await this.em.query(
      `UPDATE attachment a SET is_realm_public = ${PUBLIC_LINK(false)}, is_web_public = ${PUBLIC_LINK(true)}
        WHERE a.id IN (SELECT attachment_id FROM attachment_message WHERE message_id = $1)`,
      [messageId],
    );
  }

  /** Ids of the messages that link an attachment. */
  async linkedMessageIds(attachmentId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ message_id: number }>>(
      `SELECT message_id FROM attachment_message WHERE attachment_id = $1 ORDER BY message_id`,
      [attachmentId],
    );
    return rows.map((r) => r.message_id);
  }

  /** The user's attachments, as GET /attachments lists them. */
  async dictsOfOwner(ownerId: number): Promise<AttachmentDict[]> {
    return this.dicts(`a.owner_id = $1`, [ownerId]);
  }

  async dictOf(id: number): Promise<AttachmentDict | null> {
    return (await this.dicts(`a.id = $1`, [id]))[0] ?? null;
  }

  private async dicts(where: string, params: unknown[]): Promise<AttachmentDict[]> {
    const rows = await this.em.query<Array<RawRow & { messages: Array<{ id: number; date_sent: string }> }>>(
      `SELECT ${COLUMNS},
              COALESCE((SELECT json_agg(json_build_object('id', m.id, 'date_sent', m.date_sent) ORDER BY m.id)
                          FROM attachment_message am JOIN ${messagesView} m ON m.id = am.message_id
                         WHERE am.attachment_id = a.id), '[]'::json) AS messages
         FROM attachment a WHERE ${where} ORDER BY a.id`,
      params,
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.file_name,
      path_id: r.path_id,
      size: Number(r.size),
      create_time: ms(r.create_time),
      messages: r.messages.map((m) => ({ id: m.id, date_sent: ms(m.date_sent) })),
    }));
  }

  /**
   * Uploads a new message may claim: files of the realm with these path ids that the sender
   * uploaded, or that are already public to the realm (linked from a channel message).
   */
  async claimableIds(realmId: number, senderId: number, pathIds: string[]): Promise<number[]> {
    if (pathIds.length === 0) return [];
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM attachment
        WHERE realm_id = $1 AND path_id = ANY($3::text[]) AND (owner_id = $2 OR is_realm_public)`,
      [realmId, senderId, pathIds],
    );
    return rows.map((r) => r.id);
  }

  /** Links the claimable uploads to the new message (Zulip's do_claim_attachments). */
  async claim(realmId: number, senderId: number, messageId: number, pathIds: string[]): Promise<void> {
    await this.em.query(
      `INSERT INTO attachment_message (attachment_id, message_id)
       SELECT id, $3 FROM attachment
        WHERE realm_id = $1 AND path_id = ANY($4::text[]) AND (owner_id = $2 OR is_realm_public)
       ON CONFLICT DO NOTHING`,
      [realmId, senderId, messageId, pathIds],
    );
  }

  /** Serialises quota checks of one realm's uploads until the transaction ends. */
  /** Attachments currently linked to a message, with path ids (message edits relink them). */
  async linkedTo(messageId: number): Promise<Array<{ id: number; pathId: string; ownerId: number }>> {
    const rows = await this.em.query<Array<{ id: number; path_id: string; owner_id: number }>>(
      `SELECT a.id, a.path_id, a.owner_id FROM attachment a
         JOIN attachment_message am ON am.attachment_id = a.id WHERE am.message_id = $1`,
      [messageId],
    );
    return rows.map((r) => ({ id: r.id, pathId: r.path_id, ownerId: r.owner_id }));
  }

  async unlink(messageId: number, attachmentIds: number[]): Promise<void> {
    if (attachmentIds.length === 0) return;
    await this.em.query(`DELETE FROM attachment_message WHERE message_id = $1 AND attachment_id = ANY($2::int[])`, [
      messageId,
      attachmentIds,
    ]);
  }

  /** Resets the public caches of moved messages' attachments (they depend on the channel). */
  async resetPublicity(messageIds: number[], realmPublic: boolean, webPublic: boolean): Promise<void> {
    if (messageIds.length === 0 || (!realmPublic && !webPublic)) return;
    await this.em.query(
      `UPDATE attachment a SET
         is_realm_public = CASE WHEN $2 THEN NULL ELSE a.is_realm_public END,
         is_web_public = CASE WHEN $3 THEN NULL ELSE a.is_web_public END
        WHERE a.id IN (SELECT attachment_id FROM attachment_message WHERE message_id = ANY($1::int[]))`,
      [messageIds, realmPublic, webPublic],
    );
  }

  /** Attachments (with their remaining messages) as detached_uploads shows them (raw rows). */
  async dictRows(ids: number[]): Promise<AttachmentDictRow[]> {
    if (ids.length === 0) return [];
    return this.em.query<AttachmentDictRow[]>(
      `SELECT a.id, a.file_name, a.path_id, a.size, a.create_time,
              COALESCE((SELECT json_agg(json_build_object('id', m.id, 'date_sent', m.date_sent) ORDER BY m.id)
                          FROM attachment_message am JOIN ${messagesView} m ON m.id = am.message_id
                         WHERE am.attachment_id = a.id), '[]'::json) AS messages
         FROM attachment a WHERE a.id = ANY($1::int[]) ORDER BY a.id`,
      [ids],
    );
  }

  async lockRealmUploads(realmId: number): Promise<void> {
    await this.em.query(`SELECT pg_advisory_xact_lock(hashtext('upload_quota'), $1)`, [realmId]);
  }

  /** Bytes of every upload of the realm (Realm.currently_used_upload_space_bytes). */
  async realmUsage(realmId: number): Promise<number> {
    const rows = await this.em.query<Array<{ total: string }>>(
      `SELECT COALESCE(SUM(size), 0)::text AS total FROM attachment WHERE realm_id = $1`,
      [realmId],
    );
    return Number(rows[0].total);
  }
}
