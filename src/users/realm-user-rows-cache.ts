import { Injectable } from '@nestjs/common';
import { CacheInvalidation } from '../database/cache-invalidation';
import { PerRealmCache } from '../database/per-realm-cache';
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
 * realm's copy, as does `realm`. Inside a transaction the cache is bypassed (PerRealmCache's
 * rules). The rows are frozen: every request of the realm shares them, and a copy's identity
 * keys what is derived from it (UserDictJson, group members' activity).
 */
@Injectable()
export class RealmUserRowsCache {
  private readonly cache: PerRealmCache<readonly UserDictSource[]>;

  constructor(
    private readonly users: UsersRepository,
    invalidation: CacheInvalidation,
  ) {
    this.cache = new PerRealmCache(invalidation, REALM_USER_ROWS_CACHE_MS, MAX_REALMS);
    const clear = () => this.cache.clear();
    invalidation.on('user', clear);
    invalidation.on('realm', clear);
  }

  rowsInRealm(realmId: number): Promise<readonly UserDictSource[]> {
    return this.cache.get(realmId, async () => {
      const rows = await this.users.listDictRowsInRealm(realmId);
      for (const row of rows) {
        Object.freeze(row.settings);
        Object.freeze(row);
      }
      return Object.freeze(rows);
    });
  }
}
