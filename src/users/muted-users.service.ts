import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { CacheInvalidation } from '../database/cache-invalidation';
import { runInTransaction } from '../database/transaction';
import { DomainEventBus } from '../events/domain-event-bus';
import { EventsService } from '../events/events.service';
import { MutedUsersRepository } from './muted-users.repository';
import { UserDirectoryService } from './user-directory.service';
import { MutedUserErrors, UserErrors } from './user.errors';
import { UserMutedEvent } from './users.domain-events';

/**
 * How long a process trusts its copy of a realm's mutes. A mute drops every process's copy once
 * it commits (CacheInvalidation); the age limit is a backstop.
 */
const MUTES_CACHE_MS = 10_000;

export interface MutedUserDict {
  id: number;
  timestamp: number;
}

/**
 * Muted users (zerver/views/muted_users.py, zerver/actions/muted_users.py). A muted user's
 * messages arrive already read and never notify (messaging asks {@link mutersOf} on each send);
 * muting marks their unread messages read. Events go to the muter's own queues.
 *
 * Sends ask about mutes on every message, so the realm's mutes (few: a muted pair is a rare,
 * deliberate act) are cached per process instead of costing the send a statement.
 */
@Injectable()
export class MutedUsersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repo: MutedUsersRepository,
    private readonly directory: UserDirectoryService,
    private readonly events: EventsService,
    private readonly bus: DomainEventBus,
    private readonly invalidation: CacheInvalidation,
  ) {
    invalidation.on('muted-users', (realmIds) => {
      if (realmIds === null) this.realmMutes.clear();
      else for (const id of realmIds) this.realmMutes.delete(id);
    });
  }

  /** Register's muted_users and the muted_users event: the user's mutes, oldest first. */
  async list(userId: number): Promise<MutedUserDict[]> {
    return (await this.repo.listForUser(userId)).map((m) => ({
      id: m.mutedUserId,
      timestamp: Math.floor(m.dateMuted.getTime() / 1000),
    }));
  }

  private readonly realmMutes = new Map<number, { loadedAt: number; mutes: Promise<Map<number, number[]>> }>();

  /** Of `userIds`, those who muted `senderId` (from the per-process cache of the realm's mutes). */
  async mutersOf(realmId: number, senderId: number, userIds: readonly number[]): Promise<Set<number>> {
    let cached = this.realmMutes.get(realmId);
    if (!cached || Date.now() - cached.loadedAt > MUTES_CACHE_MS) {
      cached = { loadedAt: Date.now(), mutes: this.repo.mutesInRealm(realmId) };
      // Shared by the sends that ask meanwhile; kept only while invalidations can reach us.
      if (this.invalidation.canCache) {
        const entry = cached;
        this.realmMutes.set(realmId, entry);
        entry.mutes.catch(() => this.realmMutes.get(realmId) === entry && this.realmMutes.delete(realmId));
      }
    }
    const muters = (await cached.mutes).get(senderId);
    if (!muters) return new Set();
    const wanted = new Set(userIds);
    return new Set(muters.filter((id) => wanted.has(id)));
  }

  /** Every process's copy of the realm's mutes is dropped when the change commits. */
  private forgetRealm(realmId: number): Promise<void> {
    return this.invalidation.publishOnCommit('muted-users', [realmId]);
  }

  async mute(auth: AuthContext, mutedUserId: number): Promise<void> {
    if (mutedUserId === auth.user.id) throw MutedUserErrors.cannotMuteSelf();
    await this.accessTarget(auth, mutedUserId);
    await runInTransaction(this.dataSource, async () => {
      if (!(await this.repo.add(auth.user.id, mutedUserId, new Date()))) throw MutedUserErrors.alreadyMuted();
      await this.forgetRealm(auth.realm.id);
      await this.bus.publish(new UserMutedEvent(auth.realm.id, auth.user.id, mutedUserId));
      await this.sendListEvent(auth);
    });
  }

  async unmute(auth: AuthContext, mutedUserId: number): Promise<void> {
    await this.accessTarget(auth, mutedUserId);
    await runInTransaction(this.dataSource, async () => {
      if (!(await this.repo.remove(auth.user.id, mutedUserId))) throw MutedUserErrors.notMuted();
      await this.forgetRealm(auth.realm.id);
      await this.sendListEvent(auth);
    });
  }

  /** access_user_by_id(allow_bots=True, allow_deactivated=True): any user of the realm. */
  private async accessTarget(auth: AuthContext, userId: number): Promise<void> {
    const [target] = await this.directory.usersByIds(auth.realm.id, [userId]);
    if (!target) throw UserErrors.noSuchUser();
  }

  private async sendListEvent(auth: AuthContext): Promise<void> {
    const mutedUsers = await this.list(auth.user.id);
    this.events.sendOnCommit(auth.realm.id, { type: 'muted_users', muted_users: mutedUsers }, [auth.user.id]);
  }
}
