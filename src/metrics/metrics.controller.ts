import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../common/auth/decorators';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Errors } from '../common/errors/zulip-error';
import { MetricsRegistry } from './metrics.registry';

/** Is `header` "Bearer <token>"? Compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * GET /metrics on the public port, in Prometheus' text format. Served when METRICS_TOKEN is set
 * (then only with `Authorization: Bearer <token>`) or in development mode; never when
 * METRICS_PORT moves metrics to their own listener (metrics-listener.ts).
 */
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @Get('metrics')
  async metricsText(@Req() req: Request, @Res() res: Response): Promise<void> {
    const { metricsPort, metricsToken } = this.config.ops;
    if (metricsPort !== undefined || (metricsToken === undefined && !this.config.devEndpoints)) {
      throw Errors.routeNotFound();
    }
    if (metricsToken !== undefined && !bearerMatches(req.headers.authorization, metricsToken)) {
      res.status(401).setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.type('text/plain').send('metrics token required\n');
      return;
    }
    res.status(200).setHeader('Content-Type', this.metrics.contentType);
    res.send(await this.metrics.render());
  }
}
