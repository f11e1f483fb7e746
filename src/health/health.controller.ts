import { Controller, Get, Logger, Res } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '../common/auth/decorators';
import { RAW_RESPONSE } from '../common/http/envelope.interceptor';
import { RedisHealthIndicator } from './redis-health';
import { ShutdownState } from './shutdown-state';

/** A dependency that does not answer within this is "down". */
const CHECK_TIMEOUT_MS = 2000;

function raw(_target: object, _key: string, descriptor: PropertyDescriptor): void {
  Reflect.defineMetadata(RAW_RESPONSE, true, descriptor.value as object);
}

/**
 * Liveness and readiness (outside /api/v1, no credentials), with @nestjs/terminus:
 * - GET /health: the process is up and serving HTTP (200 always; restart it when this fails).
 * - GET /health/ready: PostgreSQL answers, Redis answers (when REDIS_URL is set), and the server
 *   is not shutting down; 503 otherwise. Load balancers and compose health checks use this one.
 */
@Controller('health')
export class HealthController {
  private readonly logger = new Logger('Health');
  private lastReady: boolean | undefined;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly shutdown: ShutdownState,
  ) {}

  @Public()
  @Get()
  @raw
  live() {
    return { status: 'ok' };
  }

  @Public()
  @Get('ready')
  async ready(@Res() res: Response): Promise<void> {
    const checks = [
      () => {
        const s = this.indicator.check('server');
        return this.shutdown.draining ? s.down({ message: 'shutting down' }) : s.up();
      },
      () => this.db.pingCheck('database').withTimeout(CHECK_TIMEOUT_MS),
    ];
    if (this.redis.configured) checks.push(() => this.redis.pingCheck('redis', CHECK_TIMEOUT_MS));
    try {
      const result = await this.health.check(checks);
      this.transition(true, '');
      res.status(200).json(result);
    } catch (err) {
      const body = (err as { getResponse?: () => unknown }).getResponse?.();
      if (!body) throw err;
      const down = Object.keys((body as { error?: Record<string, unknown> }).error ?? {}).join(', ');
      this.transition(false, down);
      res.status(503).json(body);
    }
  }

  /** One line when readiness changes, not one per probe. */
  private transition(ready: boolean, down: string): void {
    if (this.lastReady === ready) return;
    const first = this.lastReady === undefined;
    this.lastReady = ready;
    if (!ready) this.logger.warn(`not ready: ${down} down`);
    else if (!first) this.logger.log('ready again');
  }
}
