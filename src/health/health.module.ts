import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis-health';
import { ShutdownState } from './shutdown-state';

/** /health and /health/ready, and the shutdown flag readiness reports (global: a leaf). */
@Global()
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  providers: [RedisHealthIndicator, ShutdownState],
  controllers: [HealthController],
  exports: [ShutdownState],
})
export class HealthModule {}
