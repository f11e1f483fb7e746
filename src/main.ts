import 'reflect-metadata';
import type { Server } from 'node:http';
import { INestApplication, Logger } from '@nestjs/common';
import { createApp } from './bootstrap';
import { AppConfig, ConfigError, loadConfig, startupWarnings } from './common/config/config';
import { EmbeddedDatabaseError, resolveDatabase, ResolvedDatabase } from './database/database-url';
import { runMigrations } from './migrate';
import { drainAndClose } from './lifecycle/shutdown';
import { checkDatabase, explainDatabaseError, explainListenError, maskUrl, StartupError } from './lifecycle/startup';
import { AppLogger, createRootLogger } from './logging/logger';
import { MetricsListener } from './metrics/metrics-listener';
import { seedDemoRealm } from './seed/demo-realm';

type Step = (message: string) => void;

/** What start-up has brought up so far (stopped again when a later step fails). */
interface Started {
  db?: ResolvedDatabase;
  app?: INestApplication;
}

/** The configuration, or exit with the sentence that says what is wrong. */
function loadConfigOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${err.message}. See the configuration table in README.md.`);
      process.exit(1);
    }
    throw err;
  }
}

/** The database (DATABASE_URL or the embedded one, recorded in `started` at once), checked. */
async function openDatabase(config: AppConfig, logger: AppLogger, step: Step, started: Started) {
  if (!config.databaseUrl) step(`database: starting the embedded PostgreSQL (DATABASE_URL is not set)`);
  const db = (started.db = await resolveDatabase(config, (line) => logger.warn(line, 'EmbeddedPostgres')));
  const version = await checkDatabase(db.url);
  step(
    db.embedded
      ? `database: embedded PostgreSQL ${version} in ${db.embedded.dataDir}, port ${db.embedded.port}`
      : `database: PostgreSQL ${version} at ${maskUrl(db.url)}`,
  );
  return db;
}

async function migrateDatabase(config: AppConfig, db: ResolvedDatabase, step: Step): Promise<void> {
  if (!config.runMigrations) {
    step('migrations: not run here (RUN_MIGRATIONS=false)');
    return;
  }
  let applied: string[];
  try {
    applied = await runMigrations(db.url);
  } catch (err) {
    throw (
      explainDatabaseError(err, db.url) ??
      new StartupError(
        `Database migrations failed: ${err instanceof Error ? err.message : String(err)}. ` +
          `The failed migration was rolled back; fix the cause (see the PostgreSQL log) and start again.`,
      )
    );
  }
  step(applied.length > 0 ? `migrations: applied ${applied.join(', ')}` : 'migrations: schema up to date');
}

/**
 * Connections the kernel queues for accept() (Linux caps it at net.core.somaxconn). Node's default
 * is 511: when thousands of long-poll clients connect at once (a restart, a network blip), the
 * queue overflows while the event loop is busy, the kernel drops their SYNs and, past the SYN
 * queue, answers with SYN cookies that fail and reset connections when the ACK waits too long.
 */
const LISTEN_BACKLOG = 8192;

/** The HTTP server and the metrics listener. */
async function listen(app: INestApplication, config: AppConfig, step: Step): Promise<void> {
  // The HTTP server itself (the app is initialised), so that a listen error is ours to explain.
  const server = app.getHttpServer() as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(explainListenError(err, config.host, config.port) ?? err));
    server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  const port = (server.address() as { port: number } | null)?.port ?? config.port;
  const listener = app.get(MetricsListener);
  try {
    await listener.start();
  } catch (err) {
    throw explainListenError(err, config.ops.metricsHost, config.ops.metricsPort ?? 0, 'METRICS_PORT') ?? err;
  }
  const metrics =
    config.ops.metricsPort !== undefined
      ? `metrics on port ${listener.port()}`
      : config.ops.metricsToken || config.devEndpoints
        ? 'metrics at /metrics'
        : 'metrics off (set METRICS_PORT or METRICS_TOKEN)';
  step(
    `listening on http://${config.host}:${port} (${config.mode} mode; realms at ${config.externalScheme}://` +
      `${config.externalHost}; ${metrics})`,
  );
  if (config.devEndpoints && config.seedDemoRealm) {
    const local = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
    step(`API key for a demo user: curl -sX POST ${local}/api/v1/dev_fetch_api_key -d username=iago@zulip.com`);
  }
}

/** Every start-up step, in order; `started` records what needs stopping if one fails. */
async function startUp(
  config: AppConfig,
  root: ReturnType<typeof createRootLogger>,
  logger: AppLogger,
  step: Step,
  started: Started,
) {
  step(
    `configuration: ${config.mode} mode, log level ${config.logLevel === 'log' ? 'info' : config.logLevel}, ` +
      `${config.ops.logFormat} logs, data in ${config.dataDir}`,
  );
  for (const warning of startupWarnings(config)) logger.warn(`!!! ${warning}`, 'Start');
  const db = await openDatabase(config, logger, step, started);
  await migrateDatabase(config, db, step);
  const app = (started.app = await createApp(config, db.url, { logger: root }));
  if (config.seedDemoRealm) {
    const created = await seedDemoRealm(app);
    step(`demo realm: ${created ? 'created' : 'present'} (zulip, "Zulip Dev"; users iago, hamlet, … @zulip.com)`);
  }
  await listen(app, config, step);
  return { app, db };
}

/** Logs why start-up failed (one sentence when the failure is known) and stops what was started. */
async function failStartUp(err: unknown, logger: AppLogger, started: Started): Promise<void> {
  const { db, app } = started;
  const known =
    err instanceof StartupError || err instanceof EmbeddedDatabaseError
      ? err
      : db
        ? explainDatabaseError(err, db.url)
        : undefined;
  if (known) logger.fatal(known.message, 'Start');
  else logger.fatal(err instanceof Error ? err : new Error(String(err)), 'Start');
  await app?.close().catch(() => undefined);
  await db?.stop().catch(() => undefined);
}

/** SIGINT/SIGTERM: drain HTTP, close the app and the database; a second Ctrl-C stops waiting. */
function handleSignals(
  config: AppConfig,
  logger: AppLogger,
  step: Step,
  exit: (code: number) => void,
  { app, db }: Required<Started>,
): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      if (signal === 'SIGINT') exit(1); // a second Ctrl-C: stop waiting
      return;
    }
    stopping = true;
    const { shutdownDelayMs: delayMs, shutdownGraceMs: graceMs } = config.ops;
    step(`${signal}: shutting down (readiness fails now; up to ${graceMs} ms for requests in flight)`);
    setTimeout(() => {
      logger.error('shutdown did not finish within SHUTDOWN_GRACE_MS; exiting now', 'Shutdown');
      exit(1);
    }, graceMs + 5000).unref();
    drainAndClose(app, { delayMs, graceMs }, logger)
      .then(() => db.stop())
      .then(() => {
        step('stopped');
        exit(0);
      })
      .catch((err: unknown) => {
        logger.error(err instanceof Error ? err : new Error(String(err)), 'Shutdown');
        exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

/**
 * Start-up, one line per step: configuration, database, migrations, demo realm, listening. A
 * known failure ends with one sentence and its fix (StartupError), never a stack trace.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const root = createRootLogger(config);
  const logger = new AppLogger(root);
  Logger.overrideLogger(logger);
  const step: Step = (message) => logger.log(message, 'Start');
  const exit = (code: number) => root.flush(() => process.exit(code));

  const started: Started = {};
  let running: Required<Started>;
  try {
    running = await startUp(config, root, logger, step, started);
  } catch (err) {
    await failStartUp(err, logger, started);
    return exit(1);
  }
  handleSignals(config, logger, step, exit, running);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
