import { join } from 'node:path';
import Redis from 'ioredis';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { withAdmin } from './pg-admin';

declare global {
  var __ZULIP_TEST_PG_STOP__: (() => Promise<void>) | undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Redis-backed tests (multi-instance event queues, shared rate limits) run when Redis answers at
 * REDIS_URL or 127.0.0.1:6379; CI provides one, so there an absent Redis is an error.
 */
async function probeRedis(): Promise<void> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let ok = false;
  try {
    await probe.connect();
    ok = (await probe.ping()) === 'PONG';
  } catch {
    ok = false;
  } finally {
    probe.disconnect();
  }
  if (ok) {
    process.env.ZULIP_TEST_REDIS_URL = url;
  } else if (process.env.CI) {
    throw new Error(`Redis is not reachable at ${url}; CI needs it for the multi-instance tests`);
  } else {
    console.warn(`\nRedis is not reachable at ${url}: the Redis-backed tests are skipped.\n`);
  }
}

/**
 * Chooses the PostgreSQL server for this run (DATABASE_URL's, or an embedded one under .data/)
 * and names the template database the test files clone. The first test file to need the
 * template builds it (migrations + demo realm) under an advisory lock: see test-db.ts.
 * This file must not import Nest (ES modules cannot be loaded in Jest's parent process on Node 20).
 */
export default async function globalSetup(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const db = await startEmbeddedPostgres(join(__dirname, '..', '..', '.data', 'test-postgres'), 'postgres');
    adminUrl = db.url;
    globalThis.__ZULIP_TEST_PG_STOP__ = db.stop;
  }
  await withAdmin(adminUrl, async (c) => {
    const old = await c.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname ~ '^zulip_(test_template|t)_[0-9]+_'`,
    );
    // Drop leftovers of earlier runs whose process is gone (names carry the creating pid).
    for (const row of old.rows) {
      const pid = Number(/^zulip_(?:test_template|t)_(\d+)_/.exec(row.datname)?.[1]);
      if (isAlive(pid)) continue;
      await c.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    }
  });
  await probeRedis();
  process.env.ZULIP_TEST_ADMIN_URL = adminUrl;
  process.env.ZULIP_TEST_TEMPLATE = `zulip_test_template_${process.pid}_${Date.now().toString(36)}`;
}
