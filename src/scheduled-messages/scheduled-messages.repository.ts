import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';
import { DeliveryType, ScheduledMessage } from './scheduled-message.entity';

/** SQL on scheduled_message (owned by this module). */
@Injectable()
export class ScheduledMessagesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** A user's undelivered rows of one delivery type, by time (failed ones included). */
  undelivered(senderId: number, type: DeliveryType): Promise<ScheduledMessage[]> {
    return this.em.find(ScheduledMessage, {
      where: { senderId, deliveryType: type, delivered: false },
      order: { scheduledTimestamp: 'ASC', id: 'ASC' },
    });
  }

  /** Every undelivered row of a user (both delivery types), by time: /register's sections. */
  allUndelivered(senderId: number): Promise<ScheduledMessage[]> {
    return this.em.find(ScheduledMessage, {
      where: { senderId, delivered: false },
      order: { scheduledTimestamp: 'ASC', id: 'ASC' },
    });
  }

  /** The sender's row of that type, locked for the transaction when `lock`. */
  async own(senderId: number, id: number, type: DeliveryType, lock = false): Promise<ScheduledMessage | null> {
    if (!isDbId(id)) return null;
    return this.em.findOne(ScheduledMessage, {
      where: { id, senderId, deliveryType: type },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  async insert(
    values: Omit<ScheduledMessage, 'id' | 'delivered' | 'deliveredMessageId' | 'failed' | 'failureMessage'>,
  ) {
    const result = await this.em.insert(ScheduledMessage, {
      ...values,
      delivered: false,
      deliveredMessageId: null,
      failed: false,
      failureMessage: null,
    });
    return (result.identifiers[0] as { id: number }).id;
  }

  async save(row: ScheduledMessage): Promise<void> {
    await this.em.save(ScheduledMessage, row);
  }

  async delete(id: number): Promise<void> {
    await this.em.delete(ScheduledMessage, { id });
  }

  /**
   * The earliest due row that no other transaction holds, locked until this transaction ends
   * (FOR UPDATE SKIP LOCKED): two processes never claim the same row.
   */
  async claimDue(now: Date): Promise<ScheduledMessage | null> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM scheduled_message
        WHERE NOT delivered AND NOT failed AND scheduled_timestamp <= $1
        ORDER BY scheduled_timestamp, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [now],
    );
    if (rows.length === 0) return null;
    return this.em.findOne(ScheduledMessage, { where: { id: rows[0].id } });
  }

  /** Rows due and not yet delivered or failed (the deliverers' backlog). */
  async dueCount(now: Date): Promise<number> {
    const rows = await this.em.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM scheduled_message WHERE NOT delivered AND NOT failed AND scheduled_timestamp <= $1`,
      [now],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Marks a claimed row delivered; false when it already was (never twice). */
  async markDelivered(id: number, messageId: number): Promise<boolean> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `WITH done AS (UPDATE scheduled_message SET delivered = true, delivered_message_id = $2
        WHERE id = $1 AND NOT delivered AND NOT failed RETURNING id) SELECT id FROM done`,
      [id, messageId],
    );
    return rows.length > 0;
  }

  /** Marks a row failed unless it was delivered or failed meanwhile; returns the row when it did. */
  async markFailed(id: number, failureMessage: string): Promise<ScheduledMessage | null> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `WITH done AS (UPDATE scheduled_message SET failed = true, failure_message = $2
        WHERE id = $1 AND NOT delivered AND NOT failed RETURNING id) SELECT id FROM done`,
      [id, failureMessage],
    );
    if (rows.length === 0) return null;
    return this.em.findOne(ScheduledMessage, { where: { id } });
  }
}
