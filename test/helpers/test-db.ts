import 'reflect-metadata';
import { createApp } from '../../src/bootstrap';
import { loadConfig } from '../../src/common/config/config';
import { runMigrations } from '../../src/migrate';
import { seedDemoRealm } from '../../src/seed/demo-realm';
import { urlForDatabase, withAdmin } from './pg-admin';

/** Where the test PostgreSQL server is and which migrated, seeded database to clone. */
export interface TestDbInfo {
  adminUrl: string;
  template: string;
}

export function testDbInfo(): TestDbInfo {
  const adminUrl = process.env.ZULIP_TEST_ADMIN_URL;
  const template = process.env.ZULIP_TEST_TEMPLATE;
  if (!adminUrl || !template) throw new Error('test database not prepared: run tests through jest (globalSetup)');
  return { adminUrl, template };
}

/**
 * Builds the template database once per run: migrations, then the demo realm through the real
 * services. Test workers race for it; a PostgreSQL advisory lock lets exactly one build it.
 */
async function ensureTemplate(info: TestDbInfo): Promise<void> {
  await withAdmin(info.adminUrl, async (c) => {
    await c.query('SELECT pg_advisory_lock(hashtext($1))', [info.template]);
    try {
      const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [info.template]);
      if (exists.rowCount) return;
      const building = `${info.template}_b`;
      await c.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await c.query(`CREATE DATABASE "${building}"`);
      const url = urlForDatabase(info.adminUrl, building);
      await runMigrations(url);
      const config = loadConfig({
        SERVER_MODE: 'development',
        SECRET_KEY: TEST_SECRET,
        LOG_LEVEL: 'error',
        JOBS_WORKERS: 'off',
      });
      const app = await createApp(config, url);
      await seedDemoRealm(app);
      await app.close();
      await c.query(`ALTER DATABASE "${building}" RENAME TO "${info.template}"`);
    } finally {
      await c.query('SELECT pg_advisory_unlock(hashtext($1))', [info.template]);
    }
  });
}

export const TEST_SECRET = 'test-secret-key-0123456789-abcdefghijklmnop';

let counter = 0;

/** A fresh database cloned from the template (migrated + demo realm); dropped by the returned function. */
export async function cloneTemplateDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const info = testDbInfo();
  await ensureTemplate(info);
  const name = `zulip_t_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  await withAdmin(info.adminUrl, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${info.template}"`));
  return {
    url: urlForDatabase(info.adminUrl, name),
    drop: () =>
      withAdmin(info.adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
