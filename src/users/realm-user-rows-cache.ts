import { Injectable } from '@nestjs/common';
import { CacheInvalidation } from '../database/cache-invalidation';
import { currentManager } from '../database/transaction';
import type { UserDictSource } from './user-format';
import { UsersRepository } from './users.repository';

/**
 * How long a process trusts its copy of a realm's users. Every change behind it drops every
 * process's copy once it commits (CacheInvalidation topics `user` and `realm`); the age limit is a
 * backstop.
 */
const REALM_USER_ROWS_CACHE_MS = 30_000;
const MAX_REALMS = 50;

/**
 * Per-process cache of the rows every user dict of a realm is made from
 * (UsersRepository.listDictRowsInRealm without ids): POST /register's `realm_users` and GET /users
 * read all of them, 10,000 rows for a realm of 10,000 users. Every write of a user row is followed
 * by `AuthService.userChanged` (a new user's too), which publishes `user`: any of them drops every
 * realm's copy, as does `realm`. Inside a transaction the cache is bypassed. The rows are frozen:
 * every request of the realm shares them.
 */
@Injectable()
export class RealmUserRowsCache {
  private readonly realms = new Map<number, { loadedAt: number; rows: readonly UserDictSource[] }>();
  private readonly loading = new Map<number, { epoch: number; rows: Promise<readonly UserDictSource[]> }>();

  constructor(
    private readonly users: UsersRepository,
    private readonly invalidation: CacheInvalidation,
  ) {
    const clear = () => this.realms.clear();
    invalidation.on('user', clear);
    invalidation.on('realm', clear);
  }

  async rowsInRealm(realmId: number): Promise<readonly UserDictSource[]> {
    const inTransaction = currentManager() !== undefined;
    if (inTransaction) return this.load(realmId, false);
    const entry = this.realms.get(realmId);
    if (entry && Date.now() - entry.loadedAt <= REALM_USER_ROWS_CACHE_MS) return entry.rows;
    if (entry) this.realms.delete(realmId);
    // Parts of one POST /register ask at once (users, groups' activity): one read serves them.
    const pending = this.loading.get(realmId);
    if (pending && pending.epoch === this.invalidation.epoch) return pending.rows;
    const rows = this.load(realmId, true);
    const loading = { epoch: this.invalidation.epoch, rows };
    this.loading.set(realmId, loading);
    try {
      return await rows;
    } finally {
      if (this.loading.get(realmId) === loading) this.loading.delete(realmId);
    }
  }

  /** Reads the realm's rows; `store`: keep them (never inside a transaction). */
  private async load(realmId: number, store: boolean): Promise<readonly UserDictSource[]> {
    const epoch = this.invalidation.epoch;
    const rows = await this.users.listDictRowsInRealm(realmId);
    for (const row of rows) {
      Object.freeze(row.settings);
      Object.freeze(row);
    }
    Object.freeze(rows);
    if (store && this.invalidation.canCache && this.invalidation.epoch === epoch) {
      if (this.realms.size >= MAX_REALMS && !this.realms.has(realmId)) this.realms.clear();
      this.realms.set(realmId, { loadedAt: Date.now(), rows });
    }
    return rows;
  }
}
