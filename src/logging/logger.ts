import { Logger as NestPinoLogger, type PinoLogger } from 'nestjs-pino';
import { destination, type DestinationStream, type Logger as Pino, pino, stdTimeFunctions } from 'pino';
import pretty from 'pino-pretty';
import type { AppConfig } from '../common/config/config';

/** Our LOG_LEVEL names (Nest's) → pino's. */
const PINO_LEVEL: Record<AppConfig['logLevel'], string> = { error: 'error', warn: 'warn', log: 'info', debug: 'debug' };

/** Fields of the access line (request-log.ts), shown in the message by the pretty format. */
const ACCESS_FIELDS = ['reqId', 'method', 'route', 'path', 'status', 'ms', 'userId', 'realm', 'aborted'];

/**
 * Keys never written, whatever a log call passes: credentials and message text. The access line
 * lists its fields explicitly and carries none of them; this is the safety net for the rest.
 */
const REDACT = [
  'authorization',
  'password',
  'api_key',
  'apiKey',
  'token',
  'content',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
];

/** Human-readable lines for a terminal: `12:00:01.123 INFO (Main): message`. */
function prettyStream(): DestinationStream {
  return pretty({
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', 'context', ...ACCESS_FIELDS].join(','),
    messageFormat: (log, messageKey) => {
      const f = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
      const ctx = log.context ? `(${f(log.context)}) ` : '';
      if (log.status === undefined || log.method === undefined) return ctx + f(log[messageKey]);
      const user = log.userId !== undefined ? ` user ${f(log.userId)}@${f(log.realm)}` : '';
      const route = f(log.route) || f(log.path);
      return `${f(log.method)} ${route} ${f(log.status)} ${f(log.ms)} ms${user} [${f(log.reqId)}]`;
    },
    sync: true,
  });
}

/**
 * The process's root logger: JSON lines (LOG_FORMAT=json, the production default) or pretty text
 * (the development default), at LOG_LEVEL. `dest` replaces stdout (tests).
 */
export function createRootLogger(config: Pick<AppConfig, 'logLevel' | 'ops'>, dest?: DestinationStream): Pino {
  const stream =
    dest ?? (config.ops.logFormat === 'pretty' ? prettyStream() : destination({ dest: 1, sync: false, minLength: 0 }));
  return pino(
    {
      level: PINO_LEVEL[config.logLevel],
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    stream,
  );
}

/** Nest's own start-up chatter ("Mapped {/api/v1/…}", "… dependencies initialized"): debug, not info. */
const QUIET_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/**
 * Nest's logger (every `new Logger('Context')` in the code) written through pino, via
 * nestjs-pino's adapter. Built on a given root logger rather than nestjs-pino's process-wide one,
 * so that each app (tests start many) logs where it was told to.
 */
export class AppLogger extends NestPinoLogger {
  constructor(readonly root: Pino) {
    super(root as unknown as PinoLogger, {});
  }

  override log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    if (typeof context === 'string' && QUIET_CONTEXTS.has(context)) super.debug(message, ...params);
    else super.log(message, ...params);
  }
}
