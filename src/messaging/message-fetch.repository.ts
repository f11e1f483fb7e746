import { channelAccessFields } from './message-access.policy';
import { Injectable } from '@nestjs/common';
import { channelsView, isActiveSubscriber } from '../channels/channels.sql';
import { userGroupIdsCte } from '../users/users.sql';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { dbIds, isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';
import { DEFAULT_HISTORICAL_FLAGS, Flag } from './flags';
import type { ChannelAccessFields } from './message-access.policy';

/** A channel named by a narrow, with the viewer's subscription. */
export interface NarrowChannel extends ChannelAccessFields {
  subscribed: boolean;
  canSendMessageGroup: number;
}

/** Collects positional parameters for one SQL statement. */
export class SqlParams {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** A copy, for running conditions built once in a second statement. */
  clone(): SqlParams {
    const copy = new SqlParams();
    copy.values.push(...this.values);
    return copy;
  }
}

export interface FetchQuery {
  /** true: read the message table (channel history); false: the viewer's UserMessage rows. */
  includeHistory: boolean;
  /** Conditions on `m` (message) and `um` (user_message), already parameterised. */
  conditions: string[];
  params: SqlParams;
  /** Full-text search query (adds match_content / match_subject). */
  search: string | null;
}

export interface FetchedRow {
  message_id: number;
  flags: number;
  match_content?: string;
  match_subject?: string;
}

interface NarrowChannelRaw {
  id: number;
  realm_id: number;
  name: string;
  recipient_id: number;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  deactivated: boolean;
  can_subscribe_group: number;
  can_add_subscribers_group: number;
  can_send_message_group: number;
  subscribed: boolean;
}

/** ts_headline options: mark every match as Zulip's search highlight. */
const HIGHLIGHT = `'HighlightAll=TRUE, StartSel="<span class=""highlight"">", StopSel=</span>'`;

/** The topic as HTML text, as search results show it. */
const ESCAPED_SUBJECT = `replace(replace(replace(m.subject, '&', '&amp;'), '<', '&lt;'), '>', '&gt;')`;

/**
 * SQL of GET /messages and of the other reads over a user's messages: the narrow query with
 * its anchor windows, the first unread message, and topic lists.
 */
@Injectable()
export class MessageFetchRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** A channel by id or (exact, case-insensitive) name in the realm, whatever the viewer's access. */
  async channelByOperand(realmId: number, userId: number, operand: string | number): Promise<NarrowChannel | null> {
    if (typeof operand === 'number' && !isDbId(operand)) return null;
    const where = typeof operand === 'number' ? 's.id = $3' : 'upper(s.name) = upper($3::text)';
    const rows = await this.em.query<NarrowChannelRaw[]>(
      `SELECT s.id, s.realm_id, s.name, s.recipient_id, s.invite_only, s.is_web_public,
              s.history_public_to_subscribers, s.deactivated, s.can_subscribe_group, s.can_add_subscribers_group,
              s.can_send_message_group,
              ${isActiveSubscriber('$2', 's.recipient_id')} AS subscribed
         FROM ${channelsView} s WHERE s.realm_id = $1 AND ${where}`,
      [realmId, userId, operand],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      ...channelAccessFields(r),
      canSendMessageGroup: r.can_send_message_group,
      subscribed: r.subscribed,
    };
  }

  /**
   * Recipient ids of the realm's channels whose messages the viewer may not read even when
   * they received them: channels left (or never joined) that are private — or, for guests, any
   * channel they are not subscribed to — unless a group grants content access.
   */
  async inaccessibleChannelRecipientIds(realmId: number, userId: number, isGuest: boolean): Promise<number[]> {
    const rows = await this.em.query<Array<{ recipient_id: number }>>(
      `WITH RECURSIVE ${userGroupIdsCte('groups', '$2')}
       SELECT s.recipient_id FROM ${channelsView} s
        WHERE s.realm_id = $1 AND s.recipient_id IS NOT NULL
          AND (s.invite_only OR $3::boolean)
          AND NOT ${isActiveSubscriber('$2', 's.recipient_id')}
          AND ($3::boolean OR NOT EXISTS (SELECT 1 FROM groups
                                           WHERE groups.id IN (s.can_subscribe_group, s.can_add_subscribers_group)))`,
      [realmId, userId, isGuest],
    );
    return rows.map((r) => r.recipient_id);
  }

  async publicChannelRecipientIds(realmId: number, webPublicOnly: boolean): Promise<number[]> {
    const rows = await this.em.query<Array<{ recipient_id: number }>>(
      `SELECT recipient_id FROM ${channelsView} s
        WHERE realm_id = $1 AND recipient_id IS NOT NULL AND NOT invite_only AND (NOT $2::boolean OR is_web_public)
        ORDER BY id`,
      [realmId, webPublicOnly],
    );
    return rows.map((r) => r.recipient_id);
  }

  /** Recipient ids of the DM conversations that include both users. */
  async sharedDirectMessageRecipientIds(userId: number, otherId: number, groupsOnly: boolean): Promise<number[]> {
    const rows = await this.em.query<Array<{ recipient_id: number }>>(
      `SELECT recipient_id FROM direct_message_group
        WHERE $1 = ANY(user_ids) AND $2 = ANY(user_ids) AND recipient_id IS NOT NULL
          AND (NOT $3::boolean OR group_size > 2)`,
      [userId, otherId, groupsOnly],
    );
    return rows.map((r) => r.recipient_id);
  }

  /**
   * The FROM/WHERE of a narrow query, with the message id and the viewer's flags as
   * `message_id` / `flags` (history rows without a UserMessage row read as read|historical).
   */
  private baseSelect(
    q: FetchQuery,
    userId: number,
    realmId: number,
    plainMatch = false,
  ): { sql: string; idCol: string } {
    const user = q.params.add(userId);
    const match =
      q.search === null
        ? plainMatch
          ? `, coalesce(m.rendered_content, '') AS match_content, ${ESCAPED_SUBJECT} AS match_subject`
          : ''
        : (() => {
            const query = q.params.add(q.search);
            const tsq = `plainto_tsquery('pg_catalog.english', ${query}::text)`;
            return `, ts_headline('pg_catalog.english', coalesce(m.rendered_content, ''), ${tsq}, ${HIGHLIGHT}) AS match_content,
                      ts_headline('pg_catalog.english', ${ESCAPED_SUBJECT}, ${tsq}, ${HIGHLIGHT}) AS match_subject`;
          })();
    if (q.includeHistory) {
      const realm = q.params.add(realmId);
      const where = [`m.realm_id = ${realm}`, ...q.conditions].join(' AND ');
      return {
        sql: `SELECT m.id AS message_id, coalesce(um.flags, ${DEFAULT_HISTORICAL_FLAGS})::int AS flags${match}
                FROM message m LEFT JOIN user_message um ON um.user_profile_id = ${user} AND um.message_id = m.id
               WHERE ${where}`,
        idCol: 'm.id',
      };
    }
    const where = [`um.user_profile_id = ${user}`, ...q.conditions].join(' AND ');
    return {
      sql: `SELECT um.message_id, um.flags::int AS flags${match}
              FROM user_message um JOIN message m ON m.id = um.message_id
             WHERE ${where}`,
      idCol: 'um.message_id',
    };
  }

  /**
   * The rows around an anchor (Zulip's limit_query_to_range): up to `before` rows below it and
   * `after` rows above it, the anchor itself when requested, sorted by id.
   */
  async fetchWindow(
    q: FetchQuery,
    userId: number,
    realmId: number,
    window: {
      anchor: number;
      before: number;
      after: number;
      includeAnchor: boolean;
      toLeft: boolean;
      toRight: boolean;
    },
  ): Promise<FetchedRow[]> {
    const { sql, idCol } = this.baseSelect(q, userId, realmId);
    const needBefore = !window.toLeft && window.before > 0;
    const needAfter = !window.toRight && window.after > 0;
    const p = q.params;
    let statement: string;
    const beforeQuery = (anchor: number | null, limit: number) =>
      `(${sql}${anchor === null ? '' : ` AND ${idCol} <= ${p.add(anchor)}::bigint`} ORDER BY ${idCol} DESC LIMIT ${p.add(limit)})`;
    const afterQuery = (anchor: number | null, limit: number) =>
      `(${sql}${anchor === null ? '' : ` AND ${idCol} >= ${p.add(anchor)}::bigint`} ORDER BY ${idCol} ASC LIMIT ${p.add(limit)})`;
    if (needBefore && needAfter) {
      statement = `${beforeQuery(window.anchor - 1, window.before)} UNION ALL ${afterQuery(window.anchor, window.after + 1)}`;
    } else if (needBefore) {
      const anchor = window.anchor - (window.includeAnchor ? 0 : 1);
      const limit = window.before + (!window.toRight && window.includeAnchor ? 1 : 0);
      statement = beforeQuery(window.toRight ? null : anchor, limit);
    } else if (needAfter) {
      const anchor = window.anchor + (window.includeAnchor ? 0 : 1);
      statement = afterQuery(window.toLeft ? null : anchor, window.after + (window.includeAnchor ? 1 : 0));
    } else {
      statement = `(${sql} AND ${idCol} = ${p.add(window.anchor)}::bigint)`;
    }
    const rows = await this.em.query<FetchedRow[]>(`SELECT * FROM (${statement}) q ORDER BY message_id ASC`, p.values);
    return rows;
  }

  /** The rows for explicit message ids (GET /messages with message_ids), sorted by id. */
  async fetchIds(q: FetchQuery, userId: number, realmId: number, ids: number[]): Promise<FetchedRow[]> {
    const { sql, idCol } = this.baseSelect(q, userId, realmId);
    const list = q.params.add(dbIds(ids));
    return await this.em.query<FetchedRow[]>(
      `${sql} AND ${idCol} = ANY(${list}::int[]) ORDER BY ${idCol} ASC`,
      q.params.values,
    );
  }

  /**
   * GET /messages/matches_narrow: which of `ids` match the narrow, with their match_content /
   * match_subject (highlighted when the narrow searches, else the rendered content and topic).
   */
  async matchingRows(
    q: FetchQuery,
    userId: number,
    realmId: number,
    ids: number[],
  ): Promise<Array<Required<FetchedRow>>> {
    const { sql, idCol } = this.baseSelect(q, userId, realmId, true);
    const list = q.params.add(dbIds(ids));
    return await this.em.query<Array<Required<FetchedRow>>>(
      `${sql} AND ${idCol} = ANY(${list}::int[]) ORDER BY ${idCol} ASC`,
      q.params.values,
    );
  }

  /** Zulip's find_first_unread_anchor: the oldest unread message of the narrow outside muted conversations. */
  async firstUnreadId(
    q: FetchQuery,
    userId: number,
    realmId: number,
    mutingConditions: string[],
  ): Promise<number | null> {
    const { sql, idCol } = this.baseSelect({ ...q, includeHistory: false, search: null }, userId, realmId);
    const extra = [`(um.flags & ${Flag.read}) = 0`, ...mutingConditions].join(' AND ');
    const rows = await this.em.query<
      Array<{
        message_id: number;
      }>
    >(`${sql} AND ${extra} ORDER BY ${idCol} ASC LIMIT 1`, q.params.values);
    return rows[0]?.message_id ?? null;
  }

  /** Topics of a channel with their newest message id (Zulip's get_topic_history_for_stream). */
  async topicHistory(
    realmId: number,
    recipientId: number,
    userId: number,
    publicHistory: boolean,
  ): Promise<Array<{ topic: string; max_id: number }>> {
    if (publicHistory) {
      return await this.em.query<Array<{ topic: string; max_id: number }>>(
        `SELECT subject AS topic, max(id) AS max_id FROM message
          WHERE realm_id = $1 AND recipient_id = $2 AND is_channel_message
          GROUP BY subject ORDER BY max(id) DESC`,
        [realmId, recipientId],
      );
    }
    return await this.em.query<Array<{ topic: string; max_id: number }>>(
      `SELECT m.subject AS topic, max(m.id) AS max_id FROM message m
         JOIN user_message um ON um.message_id = m.id
        WHERE um.user_profile_id = $3 AND m.realm_id = $1 AND m.recipient_id = $2 AND m.is_channel_message
        GROUP BY m.subject ORDER BY max(m.id) DESC`,
      [realmId, recipientId, userId],
    );
  }
}
