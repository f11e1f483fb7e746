import { Global, Module } from '@nestjs/common';
import { DbPoolMetrics } from './db-pool.metrics';
import { MetricsController } from './metrics.controller';
import { MetricsListener } from './metrics-listener';
import { MetricsRegistry } from './metrics.registry';

/**
 * Prometheus metrics (a leaf: any module may inject MetricsRegistry and add its own), GET
 * /metrics, and the database pool gauges.
 */
@Global()
@Module({
  providers: [MetricsRegistry, MetricsListener, DbPoolMetrics],
  controllers: [MetricsController],
  exports: [MetricsRegistry],
})
export class MetricsModule {}
