import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import { Invitation, InvitationStatus } from './invitation.entity';

/** The SQL of table `invitation` (owned by invites). */
@Injectable()
export class InvitesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** Serializes a realm's invitation writes (the daily cap), until the transaction ends. */
  async lockRealmInvites(realmId: number): Promise<void> {
    await this.em.query(`SELECT pg_advisory_xact_lock(hashtext('invitation'), $1)`, [realmId]);
  }

  /** Email invitations sent (or resent) in the realm since `since`, revoked ones included. */
  async countSentSince(realmId: number, since: Date): Promise<number> {
    const [row] = await this.em.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM invitation WHERE realm_id = $1 AND NOT is_multiuse AND invited_at >= $2`,
      [realmId, since],
    );
    return row.n;
  }

  async insert(rows: Array<Partial<Invitation>>): Promise<Invitation[]> {
    if (rows.length === 0) return [];
    const result = await this.em.createQueryBuilder().insert().into(Invitation).values(rows).returning('*').execute();
    const ids = (result.identifiers as Array<{ id: number }>).map((r) => r.id);
    return this.em.getRepository(Invitation).find({ where: ids.map((id) => ({ id })), order: { id: 'ASC' } });
  }

  findInRealm(realmId: number, id: number, multiuse: boolean): Promise<Invitation | null> {
    return this.em.getRepository(Invitation).findOne({ where: { realmId, id, isMultiuse: multiuse } });
  }

  /** Pending and unexpired invitations of a realm, optionally only one referrer's. */
  async listValid(realmId: number, referredById: number | null, now: Date): Promise<Invitation[]> {
    const qb = this.em
      .createQueryBuilder(Invitation, 'i')
      .where('i.realm_id = :realmId', { realmId })
      .andWhere('i.status = :pending', { pending: InvitationStatus.PENDING })
      .andWhere('(i.expires_at IS NULL OR i.expires_at > :now)', { now })
      .orderBy('i.id', 'ASC');
    if (referredById !== null) qb.andWhere('i.referred_by_id = :referredById', { referredById });
    return qb.getMany();
  }

  /** The invitation of a link, locked for the registration's transaction. */
  lockByKey(key: string): Promise<Invitation | null> {
    return this.em
      .createQueryBuilder(Invitation, 'i')
      .setLock('pessimistic_write')
      .where('i.confirmation_key = :key', { key })
      .getOne();
  }

  findByKey(key: string): Promise<Invitation | null> {
    return this.em.getRepository(Invitation).findOne({ where: { key } });
  }

  async setStatus(id: number, status: number): Promise<void> {
    await this.em.update(Invitation, { id }, { status });
  }

  async touchSent(id: number, at: Date): Promise<void> {
    await this.em.update(Invitation, { id }, { invitedAt: at });
  }

  /** Once an address has an account, its other pending invitations in the realm are spent. */
  async revokePendingForEmail(realmId: number, email: string): Promise<void> {
    await this.em
      .createQueryBuilder()
      .update(Invitation)
      .set({ status: InvitationStatus.REVOKED })
      .where('realm_id = :realmId AND NOT is_multiuse AND status = :pending AND lower(email) = lower(:email)', {
        realmId,
        pending: InvitationStatus.PENDING,
        email,
      })
      .execute();
  }
}
