import type { Server } from 'node:http';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { EventsService } from '../events/events.service';
import { ShutdownState } from '../health/shutdown-state';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * The SIGTERM sequence, within SHUTDOWN_GRACE_MS:
 * 1. readiness fails (GET /health/ready → 503) and responses carry `Connection: close`;
 * 2. after SHUTDOWN_DELAY_MS (time for a load balancer to notice), stop accepting connections and
 *    answer the parked long-polls (clients poll again, elsewhere);
 * 3. wait for the requests in flight to finish (a send that was acknowledged is committed);
 * 4. close the app: background work stops in the modules' destroy hooks (push queue, event
 *    deliveries to Redis, jobs), then the database pool.
 * Returns false when the grace period ran out and connections were cut.
 */
export async function drainAndClose(
  app: INestApplication,
  options: { delayMs: number; graceMs: number },
  logger: LoggerService,
): Promise<boolean> {
  const deadline = Date.now() + options.graceMs;
  app.get(ShutdownState).draining = true;
  if (options.delayMs > 0) await sleep(Math.min(options.delayMs, deadline - Date.now()));

  const server = app.getHttpServer() as Server;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  app.get(EventsService).drain();
  // Keep-alive connections close as soon as they are idle (their request done).
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  const drained = await Promise.race([closed.then(() => true), sleep(deadline - Date.now()).then(() => false)]);
  clearInterval(sweep);
  if (!drained) {
    logger.warn('requests still running at the end of the grace period (SHUTDOWN_GRACE_MS); closing them', 'Shutdown');
    server.closeAllConnections();
  }
  await app.close();
  return drained;
}
