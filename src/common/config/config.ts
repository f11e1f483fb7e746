import { createPrivateKey, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
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
  /** Most event queues per user; registering one more removes the user's oldest. */
  maxQueuesPerUser: number;
  /** Presence pings are written in batches at most this often (ms); see src/presence. */
  presenceFlushMs: number;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  /** Largest uploaded file (POST /user_uploads), MiB; POST /register's max_file_upload_size_mib. */
  maxFileUploadSizeMib: number;
  /**
   * Upload quota of every realm: MiB of attachments in total (Zulip derives it from the plan);
   * null = unlimited. /register's realm_upload_quota_mib.
   */
  uploadQuotaMib: number | null;
  /** Most push device tokens per user; registering one more removes the least recently updated. */
  maxPushDevicesPerUser: number;
  /** Largest custom emoji image (POST /realm/emoji/{name}), MiB; Zulip's MAX_EMOJI_FILE_SIZE_MIB. */
  maxEmojiFileSizeMib: number;
  /** Where uploaded files live: `<uploadsDir>/<realm_id>/<random>/<name>`. */
  uploadsDir: string;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  seedDemoRealm: boolean;
  /** Apply pending migrations at start-up (off when a one-shot migrate job does it). */
  runMigrations: boolean;
  /** Per-user API rate limit rules; empty = off. */
  rateLimit: RateLimitRule[];
  /**
   * Password logins (POST /fetch_api_key): attempts per username (cleared by a success, as Zulip's
   * authenticate_by_username: 5 per 30 minutes) and per client address; empty = off.
   */
  authRateLimit: { username: RateLimitRule[]; ip: RateLimitRule[] };
  /**
   * Express's `trust proxy` (TRUST_PROXY: addresses, subnets or names like `loopback`): whose
   * X-Forwarded-For is believed for the client address. Undefined: the socket's peer address.
   */
  trustProxy: string | undefined;
  /**
   * Development endpoints (/dev_fetch_api_key, server_settings' dev login, open /metrics): on in
   * development mode when the server listens on a loopback address only, or when
   * ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS says so.
   */
  devEndpoints: boolean;
  /** Mobile push: the providers configured (none = push off) and the delivery queue's limits. */
  push: PushConfig;
  /** Logs, metrics and shutdown (issue 16). */
  ops: OpsConfig;
  /** The durable job queue (src/jobs). */
  jobs: JobsConfig;
  /** Outgoing email (src/email). */
  email: EmailConfig;
}

// ---- operations: logs, metrics, shutdown -------------------------------------------------------

export interface OpsConfig {
  /** `json` (one JSON object per line) or `pretty` (coloured text for a terminal). */
  logFormat: 'json' | 'pretty';
  /** GET /metrics on a separate listener (not the public port); undefined = on the public port. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** Bearer token required by GET /metrics; undefined = none (then the public port serves metrics in development only). */
  metricsToken: string | undefined;
  /** SIGTERM: readiness fails at once, new requests keep being served this long, then the drain starts. */
  shutdownDelayMs: number;
  /** SIGTERM: everything (delay, drain, background work) must end within this; then the process exits anyway. */
  shutdownGraceMs: number;
}

function parseOps(env: Env, mode: ServerMode, host: string): OpsConfig {
  const logFormat = env.LOG_FORMAT?.trim() || (mode === 'production' ? 'json' : 'pretty');
  if (logFormat !== 'json' && logFormat !== 'pretty') throw new ConfigError('LOG_FORMAT', `must be json or pretty`);
  const metricsPort = env.METRICS_PORT?.trim() ? intVar(env, 'METRICS_PORT', 0, 0, 65535) : undefined;
  const metricsToken = env.METRICS_TOKEN?.trim() || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters long');
  }
  return {
    logFormat,
    metricsPort,
    metricsHost: env.METRICS_HOST?.trim() || host,
    metricsToken,
    shutdownDelayMs: intVar(env, 'SHUTDOWN_DELAY_MS', 0, 0, 600_000),
    shutdownGraceMs: intVar(env, 'SHUTDOWN_GRACE_MS', 15_000, 100, 3_600_000),
  };
}

export interface JobsConfig {
  /** Run job handlers in this process (off: it only enqueues). */
  workers: boolean;
  /** Jobs of one kind running at once in this process (a kind may set its own). */
  concurrency: number;
  /** How often an idle worker looks for due jobs. */
  pollIntervalMs: number;
  /** How often expired jobs (their worker died) are put back for retry, and old jobs archived. */
  maintenanceIntervalSeconds: number;
  /** On shutdown, how long running jobs may finish before they are handed back for retry. */
  shutdownTimeoutMs: number;
}

export interface SmtpConfig {
  host: string;
  port: number;
  user: string | undefined;
  password: string | undefined;
  /** STARTTLS required (implicit TLS on port 465); false: plain SMTP. */
  useTls: boolean;
}

export interface EmailConfig {
  /** Undefined: development writes emails to outboxDir; production refuses to send. */
  smtp: SmtpConfig | undefined;
  /** From address of every email, `addr@host` or `Name <addr@host>`. */
  noreplyAddress: string;
  /** Where development writes the emails it would have sent. */
  outboxDir: string;
  /**
   * Zulip's EMAIL_GATEWAY_PATTERN: channel email addresses are this with `%s` replaced by the
   * channel's token ('' = no email gateway: the addresses are empty).
   */
  gatewayPattern: string;
}

/** APNs with a token-based (.p8) key. */
export interface ApnsConfig {
  /** https://api.push.apple.com (production), https://api.sandbox.push.apple.com, or h2c http:// for tests. */
  url: string;
  /** PEM of the ES256 (P-256) private key. */
  keyPem: string;
  keyId: string;
  teamId: string;
}

/** FCM HTTP v1 with a service account. */
export interface FcmConfig {
  url: string;
  projectId: string;
  clientEmail: string;
  /** PEM of the service account's RSA private key. */
  privateKeyPem: string;
  privateKeyId: string | undefined;
  tokenUri: string;
}

export interface PushConfig {
  apns: ApnsConfig | undefined;
  fcm: FcmConfig | undefined;
  /** Sends in flight at once. */
  concurrency: number;
  /** Attempts per device (first try included) before giving up. */
  maxAttempts: number;
  /** First retry delay; doubles per attempt, with jitter, up to retryMaxMs. */
  retryBaseMs: number;
  /** Longest wait before a retry; a provider asking for longer (Retry-After) makes us give up. */
  retryMaxMs: number;
  requestTimeoutMs: number;
  /** Jobs waiting (queued or scheduled for retry) beyond which new jobs are dropped. */
  maxQueued: number;
  /** On shutdown, how long in-flight sends may finish. */
  shutdownTimeoutMs: number;
}

/** True when at least one push provider is configured (server_settings, /register). */
export function pushNotificationsConfigured(config: Pick<AppConfig, 'push'>): boolean {
  return config.push.apns !== undefined || config.push.fcm !== undefined;
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

/** A value given inline or as a file (never both); undefined when neither is set. */
function inlineOrFile(env: Env, inlineName: string, fileName: string): { value: string; from: string } | undefined {
  const inline = env[inlineName]?.trim();
  const file = env[fileName]?.trim();
  if (inline && file) throw new ConfigError(inlineName, `and ${fileName} are both set; set only one`);
  if (inline) return { value: inline, from: inlineName };
  if (!file) return undefined;
  try {
    return { value: readFileSync(file, 'utf8'), from: fileName };
  } catch (err) {
    throw new ConfigError(fileName, `cannot be read: ${(err as Error).message}`);
  }
}

/** A PEM private key of the given type; `\n` escapes (common in environment files) are accepted. */
function privateKeyPem(variable: string, raw: string, type: 'ec' | 'rsa'): string {
  const pem = raw.includes('\\n') && !raw.includes('\n') ? raw.replace(/\\n/g, '\n') : raw;
  let key;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new ConfigError(variable, `is not a PEM-encoded private key`);
  }
  if (type === 'ec' && (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')) {
    throw new ConfigError(variable, `must be an EC P-256 private key (an APNs .p8 key)`);
  }
  if (type === 'rsa' && key.asymmetricKeyType !== 'rsa') throw new ConfigError(variable, `must be an RSA private key`);
  return pem;
}

/** APNS_KEY | APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID (all or none), APNS_URL. */
function parseApns(env: Env): ApnsConfig | undefined {
  const key = inlineOrFile(env, 'APNS_KEY', 'APNS_KEY_FILE');
  const keyId = env.APNS_KEY_ID?.trim();
  const teamId = env.APNS_TEAM_ID?.trim();
  const url = urlVar(env, 'APNS_URL', ['https:', 'http:']);
  const given = [key?.from, keyId && 'APNS_KEY_ID', teamId && 'APNS_TEAM_ID', url && 'APNS_URL'].filter(
    (v): v is string => !!v,
  );
  if (given.length === 0) return undefined;
  const missing = [!key && 'APNS_KEY (or APNS_KEY_FILE)', !keyId && 'APNS_KEY_ID', !teamId && 'APNS_TEAM_ID'].filter(
    (v): v is string => !!v,
  );
  if (missing.length > 0) {
    throw new ConfigError(missing[0], `is required when ${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} set`);
  }
  if (!/^[A-Za-z0-9]+$/.test(keyId!))
    throw new ConfigError('APNS_KEY_ID', `must be the key's identifier (letters and digits)`);
  if (!/^[A-Za-z0-9]+$/.test(teamId!))
    throw new ConfigError('APNS_TEAM_ID', `must be the team identifier (letters and digits)`);
  return {
    url: (url ?? 'https://api.push.apple.com').replace(/\/+$/, ''),
    keyPem: privateKeyPem(key!.from, key!.value, 'ec'),
    keyId: keyId!,
    teamId: teamId!,
  };
}

/** FCM_CREDENTIALS | FCM_CREDENTIALS_FILE (a service-account JSON), FCM_URL. */
function parseFcm(env: Env): FcmConfig | undefined {
  const creds = inlineOrFile(env, 'FCM_CREDENTIALS', 'FCM_CREDENTIALS_FILE');
  const url = urlVar(env, 'FCM_URL', ['https:', 'http:']);
  if (!creds) {
    if (url) throw new ConfigError('FCM_CREDENTIALS', '(or FCM_CREDENTIALS_FILE) is required when FCM_URL is set');
    return undefined;
  }
  let json: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(creds.value);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    json = parsed as Record<string, unknown>;
  } catch {
    throw new ConfigError(creds.from, 'must be a service-account JSON object');
  }
  const field = (name: string, required: boolean): string | undefined => {
    const v = json[name];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
    if (required) throw new ConfigError(creds.from, `is missing the service account's "${name}"`);
    return undefined;
  };
  const tokenUri = field('token_uri', false) ?? 'https://oauth2.googleapis.com/token';
  if (!/^https?:\/\//.test(tokenUri)) throw new ConfigError(creds.from, `has an invalid "token_uri"`);
  return {
    url: (url ?? 'https://fcm.googleapis.com').replace(/\/+$/, ''),
    projectId: field('project_id', true)!,
    clientEmail: field('client_email', true)!,
    privateKeyPem: privateKeyPem(creds.from, field('private_key', true)!, 'rsa'),
    privateKeyId: field('private_key_id', false),
    tokenUri,
  };
}

function parsePush(env: Env): PushConfig {
  return {
    apns: parseApns(env),
    fcm: parseFcm(env),
    concurrency: intVar(env, 'PUSH_CONCURRENCY', 16, 1, 1000),
    maxAttempts: intVar(env, 'PUSH_MAX_ATTEMPTS', 5, 1, 100),
    retryBaseMs: intVar(env, 'PUSH_RETRY_BASE_MS', 1000, 1, 3_600_000),
    retryMaxMs: intVar(env, 'PUSH_RETRY_MAX_MS', 300_000, 1, 86_400_000),
    requestTimeoutMs: intVar(env, 'PUSH_REQUEST_TIMEOUT_MS', 10_000, 100, 600_000),
    maxQueued: intVar(env, 'PUSH_MAX_QUEUED', 100_000, 1, 10_000_000),
    shutdownTimeoutMs: intVar(env, 'PUSH_SHUTDOWN_TIMEOUT_MS', 5000, 0, 600_000),
  };
}

function parseJobs(env: Env): JobsConfig {
  return {
    workers: boolVar(env, 'JOBS_WORKERS', true),
    concurrency: intVar(env, 'JOBS_CONCURRENCY', 4, 1, 1000),
    pollIntervalMs: intVar(env, 'JOBS_POLL_INTERVAL_MS', 1000, 50, 60_000),
    maintenanceIntervalSeconds: intVar(env, 'JOBS_MAINTENANCE_INTERVAL_SECONDS', 30, 1, 3600),
    shutdownTimeoutMs: intVar(env, 'JOBS_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
  };
}

const EMAIL_ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+$/;

function parseEmail(env: Env, externalHost: string, dataDir: string): EmailConfig {
  const host = env.EMAIL_HOST?.trim();
  const user = env.EMAIL_HOST_USER?.trim() || undefined;
  const password = env.EMAIL_HOST_PASSWORD || undefined;
  if (!host && (user || password))
    throw new ConfigError('EMAIL_HOST', 'is required when EMAIL_HOST_USER or EMAIL_HOST_PASSWORD is set');
  if (user && !password) throw new ConfigError('EMAIL_HOST_PASSWORD', 'is required when EMAIL_HOST_USER is set');
  const noreply = env.NOREPLY_EMAIL_ADDRESS?.trim() || `noreply@${externalHost.replace(/:\d+$/, '')}`;
  const bare = /^[^<>]*<([^<>]+)>$/.exec(noreply)?.[1] ?? noreply;
  if (!EMAIL_ADDRESS.test(bare)) {
    throw new ConfigError('NOREPLY_EMAIL_ADDRESS', `must be an address (or 'Name <address>'), got '${noreply}'`);
  }
  return {
    smtp: host
      ? {
          host,
          port: intVar(env, 'EMAIL_PORT', 587, 1, 65535),
          user,
          password,
          useTls: boolVar(env, 'EMAIL_USE_TLS', true),
        }
      : undefined,
    noreplyAddress: noreply,
    outboxDir: join(dataDir, 'emails'),
    gatewayPattern: parseGatewayPattern(env, externalHost),
  };
}

function parseGatewayPattern(env: Env, externalHost: string): string {
  if (env.EMAIL_GATEWAY_PATTERN === undefined) return `%s@${externalHost.replace(/:\d+$/, '')}`;
  const pattern = env.EMAIL_GATEWAY_PATTERN.trim();
  if (pattern !== '' && (pattern.split('%s').length !== 2 || !EMAIL_ADDRESS.test(pattern))) {
    throw new ConfigError(
      'EMAIL_GATEWAY_PATTERN',
      `must be an address with one %s (like %s@chat.example.com), got '${pattern}'`,
    );
  }
  return pattern;
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

function rulesVar(env: Env, name: string, dflt: string): RateLimitRule[] {
  try {
    return parseRateLimitRules(env[name] ?? dflt);
  } catch (err) {
    throw new ConfigError(name, `must be 'off' or rules like '200/60,2000/3600': ${(err as Error).message}`);
  }
}

/** TRUST_PROXY: a comma-separated list of addresses, subnets and Express's names. */
function parseTrustProxy(env: Env): string | undefined {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw) return undefined;
  for (const part of raw.split(',').map((p) => p.trim())) {
    const [address, bits, extra] = part.split('/');
    const named = ['loopback', 'linklocal', 'uniquelocal'].includes(part);
    const subnet = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 6 ? 128 : 32));
    if (!named && (extra !== undefined || isIP(address) === 0 || !subnet)) {
      throw new ConfigError(
        'TRUST_PROXY',
        `must list addresses, subnets, loopback, linklocal or uniquelocal; got '${part}'`,
      );
    }
  }
  return raw;
}

/** 127.0.0.0/8, ::1 and `localhost`: addresses no other machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * Warnings main.ts logs loudly at start: development mode on an address other machines can reach
 * (its endpoints hand out any user's API key; the demo realm has a known password).
 */
export function startupWarnings(config: AppConfig): string[] {
  if (config.mode !== 'development' || isLoopbackHost(config.host)) return [];
  if (config.devEndpoints) {
    return [
      `DEVELOPMENT MODE ON A PUBLIC ADDRESS (HOST=${config.host}) WITH ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS: ` +
        `anyone who can reach this server can take over any account through /api/v1/dev_fetch_api_key. ` +
        `Never do this on a network you do not control; set SERVER_MODE=production for real use.`,
    ];
  }
  return [
    `Development mode on a public address (HOST=${config.host}): development endpoints are OFF ` +
      `(/api/v1/dev_fetch_api_key, open /metrics) and the demo realm is not seeded unless SEED_DEMO_REALM is set. ` +
      `Set SERVER_MODE=production for real use, or ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS=1 if you really mean it.`,
  ];
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
  const logLevel = (env.LOG_LEVEL?.trim() || 'log').replace(/^info$/, 'log');
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
  const host = env.HOST?.trim() || '127.0.0.1';
  const devEndpoints =
    mode === 'development' && (isLoopbackHost(host) || boolVar(env, 'ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS', false));
  return {
    mode,
    host,
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
    maxQueuesPerUser: intVar(env, 'EVENT_QUEUES_PER_USER', 50, 1, 10_000),
    uploadQuotaMib: env.UPLOAD_QUOTA_MIB?.trim() ? intVar(env, 'UPLOAD_QUOTA_MIB', 0, 0, 100_000_000) : null,
    maxPushDevicesPerUser: intVar(env, 'PUSH_DEVICES_PER_USER', 20, 1, 1000),
    presenceFlushMs: intVar(env, 'PRESENCE_FLUSH_MS', 1000, 10, 3_600_000),
    maxBodyBytes: intVar(env, 'MAX_BODY_BYTES', 1_048_576, 16_384, 1_073_741_824),
    maxFileUploadSizeMib: intVar(env, 'MAX_FILE_UPLOAD_SIZE_MIB', 25, 0, 10_240),
    maxEmojiFileSizeMib: intVar(env, 'MAX_EMOJI_FILE_SIZE_MIB', 5, 0, 100),
    uploadsDir: resolve(env.UPLOADS_DIR?.trim() || join(dataDir, 'uploads')),
    logLevel: logLevel as AppConfig['logLevel'],
    // The demo realm's users have a known password: by default only where dev endpoints are on.
    seedDemoRealm: boolVar(env, 'SEED_DEMO_REALM', devEndpoints),
    runMigrations: boolVar(env, 'RUN_MIGRATIONS', true),
    rateLimit,
    authRateLimit: {
      username: rulesVar(env, 'AUTH_RATE_LIMIT_USERNAME', '5/1800'),
      ip: rulesVar(env, 'AUTH_RATE_LIMIT_IP', '100/1800'),
    },
    trustProxy: parseTrustProxy(env),
    devEndpoints,
    push: parsePush(env),
    ops: parseOps(env, mode, host),
    jobs: parseJobs(env),
    email: parseEmail(env, externalHost, dataDir),
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
