import { withAdmin } from './pg-admin';

export default async function globalTeardown(): Promise<void> {
  const adminUrl = process.env.ZULIP_TEST_ADMIN_URL;
  const template = process.env.ZULIP_TEST_TEMPLATE;
  if (adminUrl && template) {
    await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`)).catch(
      () => undefined,
    );
  }
  await globalThis.__ZULIP_TEST_PG_STOP__?.();
}
