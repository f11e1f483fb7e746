import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createApp } from '../../../src/bootstrap';
import { loadConfig } from '../../../src/common/config/config';
import { CacheInvalidation } from '../../../src/database/cache-invalidation';
import { RealmService } from '../../../src/realm/realm.service';
import { cloneTemplateDatabase, TEST_SECRET } from '../../helpers/test-db';

/** Two app instances on one cloned database (and one Redis, when the test run has one). */
export interface TwoInstances {
  a: INestApplication;
  b: INestApplication;
  /** The demo realm's id. */
  realmId: number;
  databaseUrl: string;
  userId(email: string): Promise<number>;
  /**
   * Runs a change on A and waits until B heard of it: a NOTIFY reaches the other process a
   * moment after the commit, usually before a client gets A's answer, but not always on a
   * loaded machine.
   */
  heardOnB(change: () => Promise<unknown>): Promise<void>;
  close(): Promise<void>;
}

export async function startTwoInstances(redisPrefix: string): Promise<TwoInstances> {
  const env = (): Record<string, string> => ({
    SERVER_MODE: 'development',
    SECRET_KEY: TEST_SECRET,
    LOG_LEVEL: 'error',
    EXTERNAL_HOST: 'zulip.testserver',
    RATE_LIMIT: 'off',
    JOBS_WORKERS: 'off',
    ...(process.env.ZULIP_TEST_REDIS_URL
      ? { REDIS_URL: process.env.ZULIP_TEST_REDIS_URL, REDIS_PREFIX: `${redisPrefix}-${process.pid}` }
      : {}),
  });
  const db = await cloneTemplateDatabase();
  const a = await createApp(loadConfig(env()), db.url);
  const b = await createApp(loadConfig(env()), db.url);
  const realmId = (await a.get(RealmService).findByStringId('zulip'))!.id;
  return {
    a,
    b,
    realmId,
    databaseUrl: db.url,
    userId: async (email) =>
      (
        await a
          .get(DataSource)
          .query<Array<{ id: number }>>('SELECT id FROM user_profile WHERE delivery_email = $1', [email])
      )[0].id,
    heardOnB: async (change) => {
      const bus = b.get(CacheInvalidation);
      const before = bus.epoch;
      await change();
      for (let i = 0; i < 200 && bus.epoch === before; i++) await new Promise((r) => setTimeout(r, 10));
      expect(bus.epoch).not.toBe(before);
    },
    close: async () => {
      await a.close();
      await b.close();
      await db.drop();
    },
  };
}
