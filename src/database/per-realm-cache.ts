import type { CacheInvalidation } from './cache-invalidation';
import { currentManager } from './transaction';

/**
 * The skeleton of a per-process cache of one value per realm (a realm's channels, its users'
 * rows) kept correct by {@link CacheInvalidation}: its owner clears it from the topics' handlers;
 * this class keeps the rules every such cache follows.
 *
 * - Inside a transaction the cache is bypassed (the transaction may see its own uncommitted
 *   writes; nothing it reads is stored).
 * - A value older than `maxAgeMs` is loaded again (a backstop: invalidations drop it first).
 * - Requests arriving while a realm's value loads share that load, unless an invalidation arrived
 *   since it started.
 * - A loaded value is stored only when no invalidation arrived during the load (it may predate
 *   the change) and the invalidation listener is up (else this process could miss one).
 * - At most `maxRealms` realms are kept (all are dropped when a new one does not fit).
 */
export class PerRealmCache<T> {
  private readonly entries = new Map<number, { loadedAt: number; value: T }>();
  private readonly loading = new Map<number, { epoch: number; value: Promise<T> }>();

  constructor(
    private readonly invalidation: CacheInvalidation,
    private readonly maxAgeMs: number,
    private readonly maxRealms: number,
  ) {}

  clear(): void {
    this.entries.clear();
  }

  /**
   * The realm's value: the cached one when fresh and `usable`, else `load()`'s (shared with a
   * load in flight whose value is usable).
   */
  async get(realmId: number, load: () => Promise<T>, usable: (value: T) => boolean = () => true): Promise<T> {
    if (currentManager() !== undefined) return load();
    const entry = this.entries.get(realmId);
    if (entry && Date.now() - entry.loadedAt > this.maxAgeMs) this.entries.delete(realmId);
    else if (entry && usable(entry.value)) return entry.value;
    const pending = this.loading.get(realmId);
    if (pending && pending.epoch === this.invalidation.epoch) {
      const value = await pending.value;
      if (usable(value)) return value;
    }
    const epoch = this.invalidation.epoch;
    const value = load();
    const loading = { epoch, value };
    this.loading.set(realmId, loading);
    try {
      const loaded = await value;
      if (this.invalidation.canCache && this.invalidation.epoch === epoch) {
        if (this.entries.size >= this.maxRealms && !this.entries.has(realmId)) this.entries.clear();
        this.entries.set(realmId, { loadedAt: Date.now(), value: loaded });
      }
      return loaded;
    } finally {
      if (this.loading.get(realmId) === loading) this.loading.delete(realmId);
    }
  }
}
