import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

/** Applies pending migrations (each in its own transaction) and returns their names. */
export async function runMigrations(url: string): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(url, 2));
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
