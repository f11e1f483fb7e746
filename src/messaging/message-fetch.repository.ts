import { channelAccessFields } from './message-access.policy';
import { Injectable } from '@nestjs/common';
import { channelsView, isActiveSubscriber } from '../channels/channels.sql';
import { userGroupIdsCte, usersView } from '../users/users.sql';
import { realmsView } from '../realm/realm.sql';
import { createHash } from 'node:crypto';
import { namedQuery } from '../database/named-query';
import { toMessageRow, type MessageRowColumns } from './messages.repository';
import type { MessageRow, ReactionRow, SubmessageRow, UserBrief } from './message-format';
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
  /**
   * Set for a statement run as a named prepared statement: the integer parameters that
   * {@link int} adds are then hidden from the planner (`(SELECT $n::int)`), so that the plans it
   * makes with and without their values cost the same and PostgreSQL keeps the generic plan
   * (planned once per connection) instead of planning every execution.
   */
  opaque = false;

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** An integer parameter (`type` int or bigint); opaque to the planner when {@link opaque}. */
  int(value: number, type: 'int' | 'bigint' = 'int'): string {
    const p = this.add(value);
    return this.opaque ? `(SELECT ${p}::${type})` : `${p}::${type}`;
  }

  /** A copy, for running conditions built once in a second statement. */
  clone(): SqlParams {
    const copy = new SqlParams();
    copy.values.push(...this.values);
    copy.opaque = this.opaque;
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

/** Which rows of a narrow a window takes, around its anchor. */
export interface WindowRange {
  anchor: number;
  before: number;
  after: number;
  includeAnchor: boolean;
  toLeft: boolean;
  toRight: boolean;
}

export interface FetchedRow {
  message_id: number;
  flags: number;
  match_content?: string;
  match_subject?: string;
}

/** The messages of a window (or of ids) with everything their dicts show, read in one statement. */
export interface DisplayedWindow {
  rows: FetchedRow[];
  /** The rows' messages (in the viewer's realm), by id. */
  messages: Map<number, MessageRow>;
  reactions: ReactionRow[];
  submessages: SubmessageRow[];
  /** Senders and direct-message participants of the messages. */
  users: UserBrief[];
}

/** What the display statement adds to each window row (and `users` on the first row). */
interface DisplayRaw extends FetchedRow, MessageRowColumns {
  reactions: Array<[number, string, string, string]> | null;
  submessages: Array<[number, number, string, string]> | null;
  users: UserTuple[] | null;
}

/** A user of `users`, as json_build_array lists it (see DISPLAY_USER_TUPLE). */
type UserTuple = [
  number,
  number,
  string,
  string,
  number,
  string,
  number,
  boolean,
  boolean,
  number | null,
  number,
  boolean,
  string,
];

const DISPLAY_USER_TUPLE = `json_build_array(u.id, u.realm_id, u.full_name, u.delivery_email, u.email_address_visibility,
  u.avatar_source, u.avatar_version, u.is_active, u.is_bot, u.bot_owner_id, u.role, u.is_mirror_dummy, rl.string_id)`;

/** The message columns a dict needs, selected with the window's ids (one heap visit per message). */
const DISPLAY_COLUMNS = `, m.realm_id, m.sender_id, m.recipient_id, m.subject, m.content, m.rendered_content, m.date_sent,
  m.sending_client, m.last_edit_time, m.edit_history, m.is_channel_message`;

/**
 * Around a window statement's rows (`w`, with DISPLAY_COLUMNS): each message's channel name or
 * DM participants, reactions and submessages (JSON arrays in id order, NULL when none), and, on
 * the first row only, the users the messages show. Channels and DM groups are looked up for the
 * distinct conversations only, reactions and submessages by their message_id indexes.
 */
function displaySql(window: string): string {
  return `WITH w AS MATERIALIZED (${window}
       ), s AS (
         SELECT id, name, recipient_id FROM ${channelsView} c
          WHERE recipient_id = ANY(ARRAY(SELECT DISTINCT recipient_id FROM w WHERE is_channel_message))
       ), g AS (
         SELECT recipient_id, user_ids FROM direct_message_group
          WHERE recipient_id = ANY(ARRAY(SELECT DISTINCT recipient_id FROM w WHERE NOT is_channel_message))
       ), r AS (
         SELECT message_id,
                json_agg(json_build_array(user_profile_id, emoji_name, emoji_code, reaction_type) ORDER BY id) AS reactions
           FROM reaction WHERE message_id = ANY(ARRAY(SELECT message_id FROM w)) GROUP BY message_id
       ), sm AS (
         SELECT message_id, json_agg(json_build_array(id, sender_id, msg_type, content) ORDER BY id) AS submessages
           FROM submessage WHERE message_id = ANY(ARRAY(SELECT message_id FROM w)) GROUP BY message_id
       )
       SELECT w.*, s.id AS stream_id, s.name AS stream_name, g.user_ids AS dm_user_ids, r.reactions, sm.submessages,
              CASE WHEN w.message_id = (SELECT min(message_id) FROM w) THEN (
                SELECT json_agg(${DISPLAY_USER_TUPLE})
                  FROM ${usersView} u JOIN ${realmsView} rl ON rl.id = u.realm_id
                 WHERE u.id = ANY(ARRAY(SELECT sender_id FROM w UNION SELECT unnest(user_ids) FROM g))
              ) END AS users
         FROM w
         LEFT JOIN s ON w.is_channel_message AND s.recipient_id = w.recipient_id
         LEFT JOIN g ON NOT w.is_channel_message AND g.recipient_id = w.recipient_id
         LEFT JOIN r ON r.message_id = w.message_id
         LEFT JOIN sm ON sm.message_id = w.message_id
        ORDER BY w.message_id`;
}

/** Names of the display statements seen, by their text (a statement's shape, values aside). */
const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 1000;

/**
 * The prepared statement's name for a display statement: a digest of its text, kept per text so
 * that a repeated fetch does not hash its ~3 KB again (bounded: narrows have few shapes).
 */
function statementName(statement: string): string {
  let name = statementNames.get(statement);
  if (name === undefined) {
    name = `msg_fetch_${createHash('sha1').update(statement).digest('base64url').slice(0, 16)}`;
    if (statementNames.size >= MAX_STATEMENT_NAMES) statementNames.clear();
    statementNames.set(statement, name);
  }
  return name;
}

/** Splits the display statement's rows into the window and what the dicts show. */
function toDisplayedWindow(raw: DisplayRaw[], realmId: number): DisplayedWindow {
  const rows: FetchedRow[] = [];
  const messages = new Map<number, MessageRow>();
  const reactions: ReactionRow[] = [];
  const submessages: SubmessageRow[] = [];
  let users: UserBrief[] = [];
  for (const r of raw) {
    const row: FetchedRow = { message_id: r.message_id, flags: r.flags };
    if (r.match_content !== undefined) row.match_content = r.match_content;
    if (r.match_subject !== undefined) row.match_subject = r.match_subject;
    rows.push(row);
    if (r.users) users = r.users.map(toDisplayUser);
    // As messagesForDisplay: only messages of the viewer's realm are shown.
    if (r.realm_id !== realmId) continue;
    const id = r.message_id;
    messages.set(id, toMessageRow(r, id));
    for (const [userId, emojiName, emojiCode, reactionType] of r.reactions ?? []) {
      reactions.push({ messageId: id, userId, emojiName, emojiCode, reactionType });
    }
    for (const [smId, senderId, msgType, content] of r.submessages ?? []) {
      submessages.push({ id: smId, messageId: id, senderId, msgType, content });
    }
  }
  return { rows, messages, reactions, submessages, users };
}

function toDisplayUser(t: UserTuple): UserBrief {
  return {
    id: t[0],
    realmId: t[1],
    fullName: t[2],
    deliveryEmail: t[3],
    emailAddressVisibility: t[4],
    avatarSource: t[5],
    avatarVersion: t[6],
    isActive: t[7],
    isBot: t[8],
    botOwnerId: t[9],
    role: t[10],
    isMirrorDummy: t[11],
    realmStringId: t[12],
  };
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

/** A narrow's channel with the viewer's subscription ($1 realm, $2 viewer, $3 id or name). */
const channelByOperandSql = (where: string) => `
  SELECT s.id, s.realm_id, s.name, s.recipient_id, s.invite_only, s.is_web_public,
         s.history_public_to_subscribers, s.deactivated, s.can_subscribe_group, s.can_add_subscribers_group,
         s.can_send_message_group,
         ${isActiveSubscriber('$2::int', 's.recipient_id')} AS subscribed
    FROM ${channelsView} s WHERE s.realm_id = $1::int AND ${where}`;
const CHANNEL_BY_ID = channelByOperandSql('s.id = $3::int');
const CHANNEL_BY_NAME = channelByOperandSql('upper(s.name) = upper($3::text)');

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
    const byId = typeof operand === 'number';
    const rows = await namedQuery<NarrowChannelRaw>(
      this.em,
      byId ? 'msg_narrow_channel_by_id' : 'msg_narrow_channel_by_name',
      byId ? CHANNEL_BY_ID : CHANNEL_BY_NAME,
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
    opts: { plainMatch?: boolean; display?: boolean } = {},
  ): { sql: string; idCol: string } {
    const plainMatch = opts.plainMatch ?? false;
    const columns = opts.display ? DISPLAY_COLUMNS : '';
    const user = q.params.int(userId);
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
      const realm = q.params.int(realmId);
      const where = [`m.realm_id = ${realm}`, ...q.conditions].join(' AND ');
      // The flags are a per-row primary-key probe (a subquery, not a join): with a join, a generic
      // plan may read all of the user's UserMessage rows for every message of the window instead.
      // No condition reads `um` here (narrows on flags read received messages only).
      return {
        sql: `SELECT m.id AS message_id, coalesce((SELECT um.flags FROM user_message um
                       WHERE um.user_profile_id = ${user} AND um.message_id = m.id), ${DEFAULT_HISTORICAL_FLAGS})::int AS flags${match}${columns}
                FROM message m
               WHERE ${where}`,
        idCol: 'm.id',
      };
    }
    const where = [`um.user_profile_id = ${user}`, ...q.conditions].join(' AND ');
    return {
      sql: `SELECT um.message_id, um.flags::int AS flags${match}${columns}
              FROM user_message um JOIN message m ON m.id = um.message_id
             WHERE ${where}`,
      idCol: 'um.message_id',
    };
  }

  /**
   * The rows around an anchor (Zulip's limit_query_to_range): up to `before` rows below it and
   * `after` rows above it, the anchor itself when requested, sorted by id.
   */
  async fetchWindow(q: FetchQuery, userId: number, realmId: number, window: WindowRange): Promise<FetchedRow[]> {
    const { sql, idCol } = this.baseSelect(q, userId, realmId);
    const statement = this.windowStatement(q, sql, idCol, window);
    return await this.em.query<FetchedRow[]>(`SELECT * FROM (${statement}) q ORDER BY message_id ASC`, q.params.values);
  }

  /**
   * fetchWindow with everything the rows' message dicts show, in one statement (GET /messages).
   * With `q.params.opaque`, a named prepared statement (its name derived from its text).
   */
  async fetchWindowForDisplay(
    q: FetchQuery,
    userId: number,
    realmId: number,
    window: WindowRange,
  ): Promise<DisplayedWindow> {
    const { sql, idCol } = this.baseSelect(q, userId, realmId, { display: true });
    const statement = displaySql(this.windowStatement(q, sql, idCol, window));
    return toDisplayedWindow(await this.runDisplay(q, statement), realmId);
  }

  /** fetchIds with everything the rows' message dicts show, in one statement. */
  async fetchIdsForDisplay(q: FetchQuery, userId: number, realmId: number, ids: number[]): Promise<DisplayedWindow> {
    const { sql, idCol } = this.baseSelect(q, userId, realmId, { display: true });
    const list = q.params.add(dbIds(ids));
    const statement = displaySql(`${sql} AND ${idCol} = ANY(${list}::int[])`);
    return toDisplayedWindow(await this.runDisplay(q, statement), realmId);
  }

  private async runDisplay(q: FetchQuery, statement: string): Promise<DisplayRaw[]> {
    if (!q.params.opaque) return await this.em.query<DisplayRaw[]>(statement, q.params.values);
    return await namedQuery<DisplayRaw>(this.em, statementName(statement), statement, q.params.values);
  }

  /** The window's SELECT (one or two parenthesized queries over `sql`), not yet sorted. */
  private windowStatement(q: FetchQuery, sql: string, idCol: string, window: WindowRange): string {
    const needBefore = !window.toLeft && window.before > 0;
    const needAfter = !window.toRight && window.after > 0;
    const p = q.params;
    const beforeQuery = (anchor: number | null, limit: number) =>
      `(${sql}${anchor === null ? '' : ` AND ${idCol} <= ${p.int(anchor, 'bigint')}`} ORDER BY ${idCol} DESC LIMIT ${p.int(limit)})`;
    const afterQuery = (anchor: number | null, limit: number) =>
      `(${sql}${anchor === null ? '' : ` AND ${idCol} >= ${p.int(anchor, 'bigint')}`} ORDER BY ${idCol} ASC LIMIT ${p.int(limit)})`;
    if (needBefore && needAfter) {
      return `${beforeQuery(window.anchor - 1, window.before)} UNION ALL ${afterQuery(window.anchor, window.after + 1)}`;
    }
    if (needBefore) {
      const anchor = window.anchor - (window.includeAnchor ? 0 : 1);
      const limit = window.before + (!window.toRight && window.includeAnchor ? 1 : 0);
      return beforeQuery(window.toRight ? null : anchor, limit);
    }
    if (needAfter) {
      const anchor = window.anchor + (window.includeAnchor ? 0 : 1);
      return afterQuery(window.toLeft ? null : anchor, window.after + (window.includeAnchor ? 1 : 0));
    }
    return `(${sql} AND ${idCol} = ${p.int(window.anchor, 'bigint')})`;
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
    const { sql, idCol } = this.baseSelect(q, userId, realmId, { plainMatch: true });
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
