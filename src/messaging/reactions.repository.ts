import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';

export interface StoredReaction {
  userId: number;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
}

@Injectable()
export class ReactionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** Reactions to the message with this emoji (any user), oldest first. */
  async findByEmoji(messageId: number, emojiCode: string, reactionType: string): Promise<StoredReaction[]> {
    const rows = await this.em.query<
      Array<{ user_profile_id: number; emoji_name: string; emoji_code: string; reaction_type: string }>
    >(
      `SELECT user_profile_id, emoji_name, emoji_code, reaction_type FROM reaction
        WHERE message_id = $1 AND emoji_code = $2 AND reaction_type = $3 ORDER BY id`,
      [messageId, emojiCode, reactionType],
    );
    return rows.map((r) => ({
      userId: r.user_profile_id,
      emojiName: r.emoji_name,
      emojiCode: r.emoji_code,
      reactionType: r.reaction_type,
    }));
  }

  /** Inserts the reaction unless the same one exists (unique index); false when it existed. */
  async insert(
    userId: number,
    messageId: number,
    emojiName: string,
    emojiCode: string,
    reactionType: string,
  ): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `INSERT INTO reaction (user_profile_id, message_id, emoji_name, emoji_code, reaction_type)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_profile_id, message_id, reaction_type, emoji_code) DO NOTHING
       RETURNING id`,
      [userId, messageId, emojiName, emojiCode, reactionType],
    );
    return rows.length > 0;
  }

  /** Deletes the user's reaction; returns its emoji name, or null when there was none. */
  async delete(userId: number, messageId: number, emojiCode: string, reactionType: string): Promise<string | null> {
    const rows = await this.em.query<Array<{ emoji_name: string }>>(
      `WITH gone AS (
         DELETE FROM reaction
          WHERE user_profile_id = $1 AND message_id = $2 AND emoji_code = $3 AND reaction_type = $4
         RETURNING emoji_name
       ) SELECT emoji_name FROM gone`,
      [userId, messageId, emojiCode, reactionType],
    );
    return rows[0]?.emoji_name ?? null;
  }
}
