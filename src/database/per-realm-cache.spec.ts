import type { CacheInvalidation } from './cache-invalidation';
import { PerRealmCache } from './per-realm-cache';

/** The two things PerRealmCache reads of the invalidation bus. */
function bus(): { epoch: number; canCache: boolean } {
  return { epoch: 0, canCache: true };
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('PerRealmCache', () => {
  it('loads once, then answers from memory until cleared', async () => {
    const cache = new PerRealmCache<string>(bus() as unknown as CacheInvalidation, 60_000, 10);
    let loads = 0;
    const load = async () => `value ${++loads}`;
    expect(await cache.get(1, load)).toBe('value 1');
    expect(await cache.get(1, load)).toBe('value 1');
    expect(await cache.get(2, load)).toBe('value 2');
    cache.clear();
    expect(await cache.get(1, load)).toBe('value 3');
  });

  it('requests arriving during a load share it', async () => {
    const cache = new PerRealmCache<string>(bus() as unknown as CacheInvalidation, 60_000, 10);
    const gate = deferred<string>();
    let loads = 0;
    const load = () => (loads++, gate.promise);
    const first = cache.get(1, load);
    const second = cache.get(1, load);
    gate.resolve('shared');
    expect(await Promise.all([first, second])).toEqual(['shared', 'shared']);
    expect(loads).toBe(1);
  });

  it('a load during which an invalidation arrived is used once, not stored nor shared', async () => {
    const b = bus();
    const cache = new PerRealmCache<string>(b as unknown as CacheInvalidation, 60_000, 10);
    const gate = deferred<string>();
    const first = cache.get(1, () => gate.promise);
    b.epoch++;
    const second = cache.get(1, async () => 'fresh'); // does not join the stale load
    gate.resolve('stale');
    expect(await first).toBe('stale');
    expect(await second).toBe('fresh');
    expect(await cache.get(1, async () => 'third')).toBe('fresh');
  });

  it('stores nothing while the invalidation listener is down', async () => {
    const b = bus();
    b.canCache = false;
    const cache = new PerRealmCache<number>(b as unknown as CacheInvalidation, 60_000, 10);
    let loads = 0;
    await cache.get(1, async () => ++loads);
    await cache.get(1, async () => ++loads);
    expect(loads).toBe(2);
  });

  it('reloads a value past its age, or one the caller cannot use', async () => {
    const cache = new PerRealmCache<{ full: boolean }>(bus() as unknown as CacheInvalidation, 20, 10);
    const partial = { full: false };
    expect(await cache.get(1, async () => partial)).toBe(partial);
    expect(await cache.get(1, async () => ({ full: false }))).toBe(partial);
    const full = await cache.get(
      1,
      async () => ({ full: true }),
      (v) => v.full,
    );
    expect(full.full).toBe(true);
    expect(await cache.get(1, async () => ({ full: false }))).toBe(full);
    await new Promise((r) => setTimeout(r, 30));
    expect(await cache.get(1, async () => ({ full: false }))).not.toBe(full);
  });

  it('keeps at most maxRealms realms', async () => {
    const cache = new PerRealmCache<number>(bus() as unknown as CacheInvalidation, 60_000, 2);
    let loads = 0;
    const load = async () => ++loads;
    await cache.get(1, load);
    await cache.get(2, load);
    await cache.get(3, load); // does not fit: everything is dropped, then 3 is kept
    expect(await cache.get(3, load)).toBe(3);
    expect(await cache.get(1, load)).toBe(4);
  });
});
