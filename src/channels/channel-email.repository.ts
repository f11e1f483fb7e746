import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';

/** Channel email addresses' tokens (Zulip's ChannelEmailAddress). */
@Injectable()
export class ChannelEmailRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /**
   * The token of (channel, creator, sender), made on first use (get_channel_email_token). Safe
   * under concurrency: the unique index decides, and the loser reads the winner's row.
   */
  async tokenFor(realmId: number, channelId: number, creatorId: number, senderId: number): Promise<string> {
    const token = randomBytes(16).toString('hex');
    const rows = await this.em.query<Array<{ email_token: string }>>(
      `WITH ins AS (
         INSERT INTO channel_email_address (realm_id, channel_id, creator_id, sender_id, email_token)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (channel_id, creator_id, sender_id) DO NOTHING
         RETURNING email_token)
       SELECT email_token FROM ins
       UNION ALL
       SELECT email_token FROM channel_email_address WHERE channel_id = $2 AND creator_id = $3 AND sender_id = $4
       LIMIT 1`,
      [realmId, channelId, creatorId, senderId, token],
    );
    return rows[0].email_token;
  }
}
