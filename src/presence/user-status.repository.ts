import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import { usersView } from '../users/users.sql';

/** A status row with the user's presence_enabled (whose negation is the deprecated `away`). */
export interface StatusRow {
  userId: number;
  presenceEnabled: boolean;
  statusText: string;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
}

/** What a status change sets: a field left undefined keeps its stored value. */
export interface StatusChange {
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

type RawRow = {
  user_profile_id: number;
  presence_enabled: boolean;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
};

const toRow = (r: RawRow): StatusRow => ({
  userId: r.user_profile_id,
  presenceEnabled: r.presence_enabled,
  statusText: r.status_text,
  emojiName: r.emoji_name,
  emojiCode: r.emoji_code,
  reactionType: r.reaction_type,
});

/** SQL of user_status (joins users through `usersView`, users/users.sql.ts). */
@Injectable()
export class UserStatusRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** update_user_status: update_or_create with the given fields (and a new timestamp). */
  async upsert(userId: number, change: StatusChange, at: Date): Promise<void> {
    await this.em.query(
      `INSERT INTO user_status AS s (user_profile_id, timestamp, status_text, emoji_name, emoji_code, reaction_type)
       VALUES ($1, $2, COALESCE($3, ''), COALESCE($4, ''), COALESCE($5, ''), COALESCE($6, 'unicode_emoji'))
       ON CONFLICT (user_profile_id) DO UPDATE SET
         timestamp = EXCLUDED.timestamp,
         status_text = COALESCE($3, s.status_text),
         emoji_name = COALESCE($4, s.emoji_name),
         emoji_code = COALESCE($5, s.emoji_code),
         reaction_type = COALESCE($6, s.reaction_type)`,
      [
        userId,
        at.toISOString(),
        change.statusText ?? null,
        change.emojiName ?? null,
        change.emojiCode ?? null,
        change.reactionType ?? null,
      ],
    );
  }

  async find(userId: number): Promise<StatusRow | null> {
    const rows = await this.em.query<RawRow[]>(
      `SELECT s.user_profile_id, u.presence_enabled, s.status_text, s.emoji_name, s.emoji_code, s.reaction_type
       FROM user_status s JOIN ${usersView} u ON u.id = s.user_profile_id
       WHERE s.user_profile_id = $1`,
      [userId],
    );
    return rows.length > 0 ? toRow(rows[0]) : null;
  }

  /**
   * get_all_users_status_dict: the statuses of the realm's active users, leaving out rows that
   * say nothing (no text, no emoji, not away).
   */
  async realmRows(realmId: number): Promise<StatusRow[]> {
    const rows = await this.em.query<RawRow[]>(
      `SELECT s.user_profile_id, u.presence_enabled, s.status_text, s.emoji_name, s.emoji_code, s.reaction_type
       FROM user_status s JOIN ${usersView} u ON u.id = s.user_profile_id
       WHERE u.realm_id = $1 AND u.is_active
         AND NOT (u.presence_enabled AND s.status_text = '' AND s.emoji_name = '' AND s.emoji_code = ''
                  AND s.reaction_type = 'unicode_emoji')
       ORDER BY s.user_profile_id`,
      [realmId],
    );
    return rows.map(toRow);
  }
}
