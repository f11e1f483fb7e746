import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';

/** A message waiting for a user's missed-message email. */
export interface PendingEmailRow {
  realmId: number;
  userId: number;
  messageId: number;
  trigger: string;
  mentionedUserGroupId: number | null;
}

/** Namespace of the per-user advisory locks taken by the sending pass. */
const LOCK_NAMESPACE = 7_301_002;

/** SQL on missed_message_email (owned by this module). */
@Injectable()
export class MissedMessageEmailsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /**
   * Adds rows; each joins its user's pending batch (the batch's time) or starts one due at
   * `dueAt` (now plus the user's batching period). A message already pending is kept once.
   */
  async add(rows: Array<PendingEmailRow & { dueAt: Date }>): Promise<void> {
    if (rows.length === 0) return;
    await this.em.query(
      `INSERT INTO missed_message_email (realm_id, user_profile_id, message_id, trigger, mentioned_user_group_id, scheduled_at)
       SELECT x.realm_id, x.user_id, x.message_id, x.trigger, x.group_id,
              COALESCE((SELECT min(e.scheduled_at) FROM missed_message_email e WHERE e.user_profile_id = x.user_id), x.due_at)
         FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::int[], $6::timestamptz[])
              AS x(realm_id, user_id, message_id, trigger, group_id, due_at)
       ON CONFLICT (user_profile_id, message_id) DO NOTHING`,
      [
        rows.map((r) => r.realmId),
        rows.map((r) => r.userId),
        rows.map((r) => r.messageId),
        rows.map((r) => r.trigger),
        rows.map((r) => r.mentionedUserGroupId),
        rows.map((r) => r.dueAt.toISOString()),
      ],
    );
  }

  /** Users with a batch due at `now`, the longest waiting first. */
  async dueUsers(now: Date, limit: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ user_profile_id: number }>>(
      `SELECT user_profile_id FROM missed_message_email WHERE scheduled_at <= $1
        GROUP BY user_profile_id ORDER BY min(scheduled_at), user_profile_id LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.user_profile_id);
  }

  /** Takes the user's batch lock for the transaction; false when another process holds it. */
  async tryLockUser(userId: number): Promise<boolean> {
    const rows = await this.em.query<Array<{ locked: boolean }>>(`SELECT pg_try_advisory_xact_lock($1, $2) AS locked`, [
      LOCK_NAMESPACE,
      userId,
    ]);
    return rows[0]?.locked === true;
  }

  /**
   * Deletes and returns the user's whole batch if it is due (under the user's lock: a batch
   * another process sent meanwhile is gone, and a newer batch not yet due stays).
   */
  async takeDueBatch(userId: number, now: Date): Promise<PendingEmailRow[]> {
    const rows = await this.em.query<
      Array<{
        realm_id: number;
        user_profile_id: number;
        message_id: number;
        trigger: string;
        mentioned_user_group_id: number | null;
      }>
    >(
      `WITH d AS (
         DELETE FROM missed_message_email
          WHERE user_profile_id = $1
            AND EXISTS (SELECT 1 FROM missed_message_email e WHERE e.user_profile_id = $1 AND e.scheduled_at <= $2)
          RETURNING realm_id, user_profile_id, message_id, trigger, mentioned_user_group_id)
       SELECT * FROM d ORDER BY message_id`,
      [userId, now],
    );
    return rows.map((r) => ({
      realmId: r.realm_id,
      userId: r.user_profile_id,
      messageId: r.message_id,
      trigger: r.trigger,
      mentionedUserGroupId: r.mentioned_user_group_id,
    }));
  }

  /** Pending rows due at `now` (the backlog, for metrics). */
  async dueCount(now: Date): Promise<number> {
    const rows = await this.em.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM missed_message_email WHERE scheduled_at <= $1`,
      [now],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** A user's pending message ids (tests, diagnostics). */
  async pendingMessageIds(userId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ message_id: number }>>(
      `SELECT message_id FROM missed_message_email WHERE user_profile_id = $1 ORDER BY message_id`,
      [userId],
    );
    return rows.map((r) => r.message_id);
  }
}
