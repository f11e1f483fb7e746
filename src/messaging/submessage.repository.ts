import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import type { SubmessageRow } from './message-format';

/** The `submessage` table (messaging owns it; deleteMessages removes a message's rows). */
@Injectable()
export class SubmessageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** The submessages of these messages, in id order: one statement for any number of messages. */
  async forMessages(messageIds: number[]): Promise<SubmessageRow[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.em.query<
      Array<{ id: number; message_id: number; sender_id: number; msg_type: string; content: string }>
    >(
      `SELECT id, message_id, sender_id, msg_type, content FROM submessage
        WHERE message_id = ANY($1::int[]) ORDER BY id`,
      [messageIds],
    );
    return rows.map((r) => ({
      id: r.id,
      messageId: r.message_id,
      senderId: r.sender_id,
      msgType: r.msg_type,
      content: r.content,
    }));
  }

  /**
   * What POST /submessage needs to know of a message's submessages: the content of its widget
   * (its first `widget` submessage, Zulip's get_widget_type) and whether its sender has attached
   * one (Zulip's verify_submessage_sender), and how many it has.
   */
  async widgetState(
    messageId: number,
    messageSenderId: number,
  ): Promise<{ widget: string | null; senderHas: boolean; count: number }> {
    const [row] = await this.em.query<Array<{ widget: string | null; sender_has: boolean; n: number }>>(
      `SELECT (SELECT content FROM submessage WHERE message_id = $1 AND msg_type = 'widget' ORDER BY id LIMIT 1) AS widget,
              EXISTS (SELECT 1 FROM submessage WHERE message_id = $1 AND sender_id = $2) AS sender_has,
              (SELECT count(*)::int FROM submessage WHERE message_id = $1) AS n`,
      [messageId, messageSenderId],
    );
    return { widget: row.widget, senderHas: row.sender_has, count: row.n };
  }

  /**
   * Adds a submessage; returns its id and every user holding a UserMessage row for the message
   * (who hears of it, as Zulip's do_add_submessage), in the same statement.
   */
  async add(
    messageId: number,
    senderId: number,
    msgType: string,
    content: string,
  ): Promise<{ id: number; userIds: number[] }> {
    const [row] = await this.em.query<Array<{ id: number; user_ids: number[] }>>(
      `WITH s AS (
         INSERT INTO submessage (message_id, sender_id, msg_type, content) VALUES ($1, $2, $3, $4) RETURNING id
       )
       SELECT (SELECT id FROM s) AS id,
              ARRAY(SELECT user_profile_id FROM user_message WHERE message_id = $1 ORDER BY user_profile_id) AS user_ids`,
      [messageId, senderId, msgType, content],
    );
    return { id: row.id, userIds: row.user_ids };
  }

  /** Widget submessages of newly sent messages (one statement for the batch); ids in input order. */
  async addWidgets(items: Array<{ messageId: number; senderId: number; content: string }>): Promise<number[]> {
    if (items.length === 0) return [];
    const rows = await this.em.query<Array<{ id: number }>>(
      `INSERT INTO submessage (message_id, sender_id, msg_type, content)
       SELECT m, s, 'widget', c FROM unnest($1::int[], $2::int[], $3::text[]) WITH ORDINALITY AS t(m, s, c, n)
        ORDER BY n
       RETURNING id`,
      [items.map((i) => i.messageId), items.map((i) => i.senderId), items.map((i) => i.content)],
    );
    return rows.map((r) => r.id).sort((a, b) => a - b);
  }
}
