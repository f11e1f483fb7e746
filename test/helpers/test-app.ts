import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import type { Logger as Pino } from 'pino';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/bootstrap';
import { AppConfig, loadConfig } from '../../src/common/config/config';
import { UsersService } from '../../src/users/users.service';
import { RealmService } from '../../src/realm/realm.service';
import { cloneTemplateDatabase, TEST_SECRET } from './test-db';

export { TEST_SECRET };

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  dataSource: DataSource;
  /** supertest bound to the app's HTTP server. */
  http: () => ReturnType<typeof request>;
  /** The API key of a demo-realm user (or any realm, given its string_id). */
  apiKey(email: string, realm?: string): Promise<string>;
  /** Basic-auth credentials for `email`, for supertest's `.auth(...)`. */
  auth(email: string, realm?: string): Promise<[string, string]>;
  close(): Promise<void>;
}

/**
 * The configuration every test app runs with (API and service tiers); `env` overrides variables.
 */
export function testConfig(env: Record<string, string> = {}): AppConfig {
  return loadConfig({
    SERVER_MODE: 'development',
    SECRET_KEY: TEST_SECRET,
    LOG_LEVEL: 'error',
    EXTERNAL_HOST: 'zulip.testserver',
    // Rate limiting has its own tests; elsewhere it would only make busy test files flaky.
    RATE_LIMIT: 'off',
    AUTH_RATE_LIMIT_USERNAME: 'off',
    AUTH_RATE_LIMIT_IP: 'off',
    // Job workers poll the database; tests that run jobs turn them on (JOBS_WORKERS: 'on').
    JOBS_WORKERS: 'off',
    ...env,
  });
}

/**
 * The whole Nest app over real HTTP on a fresh database cloned from the seeded template.
 * `env` overrides configuration variables (e.g. SERVER_MODE, EVENTS_HEARTBEAT_MS).
 * `options.logger` receives the app's log lines; `options.databaseUrl` rewrites the cloned
 * database's URL (e.g. to go through a proxy).
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { logger?: (config: AppConfig) => Pino; databaseUrl?: (url: string) => string } = {},
): Promise<TestApp> {
  const db = await cloneTemplateDatabase();
  const config = testConfig(env);
  const app = await createApp(config, options.databaseUrl?.(db.url) ?? db.url, { logger: options.logger?.(config) });
  const server = app.getHttpServer();
  const users = app.get(UsersService);
  const realms = app.get(RealmService);
  const keys = new Map<string, string>();
  const apiKey = async (email: string, realmId = 'zulip') => {
    const k = `${realmId}/${email}`;
    const cached = keys.get(k);
    if (cached) return cached;
    const realm = await realms.findByStringId(realmId);
    if (!realm) throw new Error(`no realm ${realmId}`);
    const user = await users.findByEmailInRealm(realm.id, email);
    if (!user) throw new Error(`no user ${email}`);
    const key = users.apiKeyOf(user);
    keys.set(k, key);
    return key;
  };
  return {
    app,
    config,
    dataSource: app.get(DataSource),
    http: () => request(server),
    apiKey,
    auth: async (email, realm) => [email, await apiKey(email, realm)],
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
