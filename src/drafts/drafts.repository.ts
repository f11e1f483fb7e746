import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';

/** A draft row as the service handles it. */
export interface DraftRow {
  id: number;
  type: '' | 'stream' | 'private';
  streamId: number | null;
  toUserIds: number[];
  topic: string;
  content: string;
  lastEditTime: Date;
}

/** What a draft is written from (create and edit). */
export type DraftValues = Omit<DraftRow, 'id'>;

export interface SavedSnippetRow {
  id: number;
  title: string;
  content: string;
  dateCreated: Date;
}

type RawDraft = {
  id: number;
  type: DraftRow['type'];
  stream_id: number | null;
  to_user_ids: number[];
  topic: string;
  content: string;
  last_edit_time: Date;
};

const toDraft = (r: RawDraft): DraftRow => ({
  id: r.id,
  type: r.type,
  streamId: r.stream_id,
  toUserIds: r.to_user_ids,
  topic: r.topic,
  content: r.content,
  lastEditTime: r.last_edit_time,
});

const DRAFT_COLUMNS = `id, type, stream_id, to_user_ids, topic, content, last_edit_time`;
const SNIPPET_COLUMNS = `id, title, content, date_created AS "dateCreated"`;

/** SQL on draft and saved_snippet (owned by this module). Every lookup is by owner. */
@Injectable()
export class DraftsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  async draftsOf(userId: number): Promise<DraftRow[]> {
    const rows = await this.em.query<RawDraft[]>(
      `SELECT ${DRAFT_COLUMNS} FROM draft WHERE user_profile_id = $1 ORDER BY last_edit_time, id`,
      [userId],
    );
    return rows.map(toDraft);
  }

  /** /register's drafts: the newest first, at most `limit` (Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE). */
  async newestDraftsOf(userId: number, limit: number): Promise<DraftRow[]> {
    const rows = await this.em.query<RawDraft[]>(
      `SELECT ${DRAFT_COLUMNS} FROM draft WHERE user_profile_id = $1 ORDER BY last_edit_time DESC, id DESC LIMIT $2`,
      [userId, limit],
    );
    return rows.map(toDraft);
  }

  /** The user's draft `id`, locked for the transaction; null when it is not theirs or absent. */
  async lockDraft(userId: number, id: number): Promise<DraftRow | null> {
    if (!isDbId(id)) return null;
    const rows = await this.em.query<RawDraft[]>(
      `SELECT ${DRAFT_COLUMNS} FROM draft WHERE id = $1 AND user_profile_id = $2 FOR UPDATE`,
      [id, userId],
    );
    return rows.length > 0 ? toDraft(rows[0]) : null;
  }

  /** Inserts drafts in one statement; returns their ids in order. */
  async insertDrafts(realmId: number, userId: number, drafts: DraftValues[]): Promise<number[]> {
    if (drafts.length === 0) return [];
    const rows = await this.em.query<Array<{ id: number }>>(
      `INSERT INTO draft (realm_id, user_profile_id, type, stream_id, to_user_ids, topic, content, last_edit_time)
       SELECT $1, $2, d.type, d.stream_id, d.to_user_ids, d.topic, d.content, d.last_edit_time
         FROM ROWS FROM (jsonb_to_recordset($3::jsonb) AS (type text, stream_id integer, to_user_ids integer[],
              topic text, content text, last_edit_time timestamptz))
              WITH ORDINALITY AS d(type, stream_id, to_user_ids, topic, content, last_edit_time, n)
        ORDER BY d.n
       RETURNING id`,
      [
        realmId,
        userId,
        JSON.stringify(
          drafts.map((d) => ({
            type: d.type,
            stream_id: d.streamId,
            to_user_ids: d.toUserIds,
            topic: d.topic,
            content: d.content,
            last_edit_time: d.lastEditTime.toISOString(),
          })),
        ),
      ],
    );
    // Serial ids are handed out in the order of the SELECT, which is the order given.
    return rows.map((r) => r.id).sort((a, b) => a - b);
  }

  async updateDraft(id: number, d: DraftValues): Promise<void> {
    await this.em.query(
      `UPDATE draft SET type = $2, stream_id = $3, to_user_ids = $4, topic = $5, content = $6, last_edit_time = $7
        WHERE id = $1`,
      [id, d.type, d.streamId, d.toUserIds, d.topic, d.content, d.lastEditTime],
    );
  }

  async deleteDraft(id: number): Promise<void> {
    await this.em.createQueryBuilder().delete().from('draft').where('id = :id', { id }).execute();
  }

  /** Every draft of the user (turning synchronization off). */
  async deleteAllDrafts(userId: number): Promise<void> {
    await this.em.createQueryBuilder().delete().from('draft').where('user_profile_id = :userId', { userId }).execute();
  }

  async snippetsOf(userId: number): Promise<SavedSnippetRow[]> {
    return this.em.query(`SELECT ${SNIPPET_COLUMNS} FROM saved_snippet WHERE user_profile_id = $1 ORDER BY id`, [
      userId,
    ]);
  }

  async lockSnippet(userId: number, id: number): Promise<SavedSnippetRow | null> {
    if (!isDbId(id)) return null;
    const rows = await this.em.query<SavedSnippetRow[]>(
      `SELECT ${SNIPPET_COLUMNS} FROM saved_snippet WHERE id = $1 AND user_profile_id = $2 FOR UPDATE`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  async insertSnippet(realmId: number, userId: number, title: string, content: string): Promise<SavedSnippetRow> {
    const rows = await this.em.query<SavedSnippetRow[]>(
      `INSERT INTO saved_snippet (realm_id, user_profile_id, title, content, date_created)
       VALUES ($1, $2, $3, $4, now()) RETURNING ${SNIPPET_COLUMNS}`,
      [realmId, userId, title, content],
    );
    return rows[0];
  }

  async updateSnippet(id: number, title: string, content: string): Promise<void> {
    await this.em.query(`UPDATE saved_snippet SET title = $2, content = $3 WHERE id = $1`, [id, title, content]);
  }

  async deleteSnippet(id: number): Promise<void> {
    await this.em.createQueryBuilder().delete().from('saved_snippet').where('id = :id', { id }).execute();
  }
}
