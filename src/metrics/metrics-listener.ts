import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { bearerMatches } from './metrics.controller';
import { MetricsRegistry } from './metrics.registry';

/**
 * With METRICS_PORT set, GET /metrics is served by a plain HTTP listener of its own (host
 * METRICS_HOST), so the public port never exposes it; METRICS_TOKEN, if set, is required there too.
 * main.ts starts it next to the public listener (the admin CLI, which builds the same modules,
 * does not).
 */
@Injectable()
export class MetricsListener implements OnApplicationShutdown {
  private server: Server | undefined;
  private readonly logger = new Logger('Metrics');

  constructor(
    private readonly metrics: MetricsRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(): Promise<void> {
    const { metricsPort, metricsHost, metricsToken } = this.config.ops;
    if (metricsPort === undefined) return;
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      } else if (metricsToken !== undefined && !bearerMatches(req.headers.authorization, metricsToken)) {
        res.writeHead(401, { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer realm="metrics"' });
        res.end('metrics token required\n');
      } else {
        this.metrics.render().then(
          (text) => res.writeHead(200, { 'Content-Type': this.metrics.contentType }).end(text),
          () => res.writeHead(500).end(),
        );
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(metricsPort, metricsHost, () => resolve());
    });
    this.server = server;
    this.logger.debug(`metrics on http://${metricsHost}:${this.port()}/metrics`);
  }

  /** The port actually bound (METRICS_PORT=0 picks a free one). */
  port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
