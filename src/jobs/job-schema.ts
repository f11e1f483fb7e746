import PgBoss from 'pg-boss';
import type { DataSource } from 'typeorm';
import { BossDb, poolDb, poolOf } from './boss-db';

/** The PostgreSQL schema pg-boss keeps its tables in (owned by the jobs module). */
export const JOB_SCHEMA = 'pgboss';

/**
 * A pg-boss instance on our connections. Cron scheduling (pg-boss's timekeeper) is off: nothing
 * uses it yet, and it would add a clock-skew poll and two internal queues.
 */
export function newBoss(
  db: BossDb,
  options: { migrate: boolean; supervise: boolean; maintenanceIntervalSeconds?: number },
): PgBoss {
  return new PgBoss({ db, schema: JOB_SCHEMA, schedule: false, ...options });
}

/**
 * Installs pg-boss's schema, or upgrades it to this pg-boss version (pg-boss's own versioned
 * migrations, under an advisory lock). Runs with our TypeORM migrations (src/migrate.ts).
 */
export async function installJobSchema(dataSource: DataSource): Promise<void> {
  const boss = newBoss(poolDb(poolOf(dataSource)), { migrate: true, supervise: false });
  await boss.start();
  await boss.stop({ graceful: false, close: false });
}
