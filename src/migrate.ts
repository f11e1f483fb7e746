import { DataSource } from 'typeorm';
import { installJobSchema } from './jobs/job-schema';
import { dataSourceOptions } from './data-source-options';

/**
 * Applies pending migrations (each in its own transaction) and returns their names; then installs
 * or upgrades the job queue's own schema (pg-boss manages `pgboss` itself).
 */
export async function runMigrations(url: string): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(url, 2));
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    await installJobSchema(ds);
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
