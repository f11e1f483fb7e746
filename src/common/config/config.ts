import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseRateLimitRules, RateLimitRule } from '../rate-limit/rate-limiter';

/** How the server runs. Development mode seeds the demo realm and serves /dev_fetch_api_key. */
export type ServerMode = 'development' | 'production';

/** Every setting the server reads from the environment, parsed once at start-up. */
export interface AppConfig {
  mode: ServerMode;
  host: string;
  port: number;
  /** postgres:// URL; undefined means "start the embedded PostgreSQL under dataDir". */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Key prefix for everything this server keeps in Redis. */
  redisPrefix: string;
  /** Host (and port) clients reach the server at; realms live on `<string_id>.<externalHost>`. */
  externalHost: string;
  externalScheme: 'http' | 'https';
  /** string_id of the realm served on the root host ('' = none). */
  defaultRealm: string;
  /** Server secret: keys the API-key HMAC and the AES key for stored API keys. */
  secretKey: string;
  dataDir: string;
  dbPoolSize: number;
  /** Long-poll heartbeat: a heartbeat is queued after min + random(0..jitter) ms. */
  heartbeatMinMs: number;
  heartbeatJitterMs: number;
  /** An event queue with no connected client for this long is garbage-collected. */
  queueIdleTimeoutMs: number;
  queueGcIntervalMs: number;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  seedDemoRealm: boolean;
  /** Apply pending migrations at start-up (off when a one-shot migrate job does it). */
  runMigrations: boolean;
  /** Per-user API rate limit rules; empty = off. */
  rateLimit: RateLimitRule[];
}

/** Raised for a bad environment; main.ts prints it and exits with status 1. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`Invalid configuration: ${variable} ${reason}`);
  }
}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got '${raw}'`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolVar(env: Env, name: string, dflt: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `must be true or false, got '${raw}'`);
}

function urlVar(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')} (got '${parsed.protocol}')`);
  }
  return raw;
}

/**
 * The secret that keys API-key digests. Production requires SECRET_KEY; development generates one
 * the first time and keeps it under the data directory, so keys survive restarts.
 */
function resolveSecret(env: Env, mode: ServerMode, dataDir: string): string {
  const given = env.SECRET_KEY?.trim();
  if (given) {
    if (given.length < 32) throw new ConfigError('SECRET_KEY', 'must be at least 32 characters long');
    return given;
  }
  if (mode === 'production') throw new ConfigError('SECRET_KEY', 'is required in production mode');
  const file = join(dataDir, 'secret_key');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return stored;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const modeRaw = (env.SERVER_MODE ?? (env.NODE_ENV === 'production' ? 'production' : 'development')).trim();
  if (modeRaw !== 'development' && modeRaw !== 'production') {
    throw new ConfigError('SERVER_MODE', `must be 'development' or 'production', got '${modeRaw}'`);
  }
  const mode: ServerMode = modeRaw;
  const port = intVar(env, 'PORT', 9991, 0, 65535);
  const dataDir = resolve(env.DATA_DIR?.trim() || join(process.cwd(), '.data'));
  const externalHost = (env.EXTERNAL_HOST?.trim() || `localhost:${port}`).toLowerCase();
  if (!/^[a-z0-9.-]+(:\d+)?$/.test(externalHost)) {
    throw new ConfigError('EXTERNAL_HOST', `must be a host name with an optional port, got '${externalHost}'`);
  }
  const scheme = env.EXTERNAL_SCHEME?.trim() || (mode === 'production' ? 'https' : 'http');
  if (scheme !== 'http' && scheme !== 'https') throw new ConfigError('EXTERNAL_SCHEME', `must be http or https`);
  const logLevel = env.LOG_LEVEL?.trim() || 'log';
  if (!['error', 'warn', 'log', 'debug'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of error, warn, log, debug`);
  }
  const defaultRealm = env.DEFAULT_REALM === undefined ? 'zulip' : env.DEFAULT_REALM.trim();
  let rateLimit: RateLimitRule[];
  try {
    rateLimit = parseRateLimitRules(env.RATE_LIMIT ?? '200/60');
  } catch (err) {
    throw new ConfigError('RATE_LIMIT', `must be 'off' or rules like '200/60,2000/3600': ${(err as Error).message}`);
  }
  return {
    mode,
    host: env.HOST?.trim() || '127.0.0.1',
    port,
    databaseUrl: urlVar(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: urlVar(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: env.REDIS_PREFIX?.trim() || 'zulip',
    externalHost,
    externalScheme: scheme,
    defaultRealm,
    secretKey: resolveSecret(env, mode, dataDir),
    dataDir,
    dbPoolSize: intVar(env, 'DB_POOL_SIZE', 10, 1, 200),
    heartbeatMinMs: intVar(env, 'EVENTS_HEARTBEAT_MS', 45_000, 10, 600_000),
    heartbeatJitterMs: intVar(env, 'EVENTS_HEARTBEAT_JITTER_MS', 10_000, 0, 600_000),
    queueIdleTimeoutMs: intVar(env, 'EVENT_QUEUE_IDLE_TIMEOUT_MS', 600_000, 1000, 86_400_000),
    queueGcIntervalMs: intVar(env, 'EVENT_QUEUE_GC_INTERVAL_MS', 60_000, 100, 3_600_000),
    maxBodyBytes: intVar(env, 'MAX_BODY_BYTES', 1_048_576, 16_384, 1_073_741_824),
    logLevel: logLevel as AppConfig['logLevel'],
    seedDemoRealm: boolVar(env, 'SEED_DEMO_REALM', mode === 'development'),
    runMigrations: boolVar(env, 'RUN_MIGRATIONS', true),
    rateLimit,
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
