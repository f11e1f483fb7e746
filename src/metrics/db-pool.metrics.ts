import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MetricsRegistry } from './metrics.registry';

/** The parts of pg's Pool we read. */
interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

/** PostgreSQL connection pool: connections in use and idle, and queries waiting for one. */
@Injectable()
export class DbPoolMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    const pool = (): PgPool | undefined => (this.dataSource.driver as unknown as { master?: PgPool }).master;
    this.metrics.gauge({
      name: 'zulip_db_pool_connections',
      help: 'PostgreSQL pool connections by state (in_use, idle).',
      labelNames: ['state'],
      collect() {
        const p = pool();
        this.set({ state: 'in_use' }, p ? p.totalCount - p.idleCount : 0);
        this.set({ state: 'idle' }, p ? p.idleCount : 0);
      },
    });
    this.metrics.gauge({
      name: 'zulip_db_pool_waiting',
      help: 'Queries waiting for a free PostgreSQL pool connection.',
      collect() {
        this.set(pool()?.waitingCount ?? 0);
      },
    });
    this.metrics.gauge({
      name: 'zulip_db_pool_max',
      help: 'Size of the PostgreSQL pool (DB_POOL_SIZE).',
      collect() {
        this.set(pool()?.options?.max ?? 0);
      },
    });
  }
}
