import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { currentManager } from '../database/transaction';
import { PushDeviceToken } from './push-device.entity';

@Injectable()
export class PushDevicesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** Registers the token, or refreshes it if the user already has it (idempotent). */
  async upsert(userId: number, kind: number, token: string, iosAppId: string | null): Promise<void> {
    await this.em.query(
      `INSERT INTO push_device_token (user_id, kind, token, ios_app_id, last_updated)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (user_id, kind, md5(token)) DO UPDATE SET ios_app_id = EXCLUDED.ios_app_id, last_updated = now()`,
      [userId, kind, token, iosAppId],
    );
  }

  /** Serialises token registrations of one user until the transaction ends. */
  async lockUser(userId: number): Promise<void> {
    await this.em.query(`SELECT pg_advisory_xact_lock(hashtext('push_device_token'), $1)`, [userId]);
  }

  /** Keeps the user's `keep` most recently registered tokens and removes the rest. */
  async keepNewest(userId: number, keep: number): Promise<void> {
    await this.em.query(
      `DELETE FROM push_device_token WHERE id IN (
         SELECT id FROM push_device_token WHERE user_id = $1 ORDER BY last_updated DESC, id DESC OFFSET $2)`,
      [userId, keep],
    );
  }

  /** Removes the token; false when the user had no such token. */
  async remove(userId: number, kind: number, token: string): Promise<boolean> {
    const result = await this.em
      .createQueryBuilder()
      .delete()
      .from(PushDeviceToken)
      // md5(token) lets the unique index find the row (tokens are too long to index directly).
      .where('user_id = :userId AND kind = :kind AND md5(token) = md5(:token) AND token = :token', {
        userId,
        kind,
        token,
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  devicesOf(userIds: number[]): Promise<PushDeviceToken[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return this.em.find(PushDeviceToken, { where: { userId: In(userIds) }, order: { id: 'ASC' } });
  }

  async removeByToken(kind: number, token: string): Promise<void> {
    await this.em.delete(PushDeviceToken, { kind, token });
  }
}
