import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

const SECRET = 'x'.repeat(40);

/** The ConfigError loadConfig throws for `env`. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`expected loadConfig to fail for ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'zulip-config-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('has development defaults', () => {
    const c = loadConfig({ DATA_DIR: dataDir, SECRET_KEY: SECRET });
    expect(c).toMatchObject({
      mode: 'development',
      host: '127.0.0.1',
      port: 9991,
      databaseUrl: undefined,
      redisUrl: undefined,
      externalHost: 'localhost:9991',
      externalScheme: 'http',
      defaultRealm: 'zulip',
      secretKey: SECRET,
      dataDir,
      heartbeatMinMs: 45_000,
      heartbeatJitterMs: 10_000,
      maxBodyBytes: 1_048_576,
      logLevel: 'log',
      seedDemoRealm: true,
    });
  });

  it('reads every variable it is given', () => {
    const c = loadConfig({
      SERVER_MODE: 'production',
      SECRET_KEY: SECRET,
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://u@db:5432/zulip',
      REDIS_URL: 'redis://cache:6379',
      EXTERNAL_HOST: 'Chat.Example.COM',
      DEFAULT_REALM: '',
      DB_POOL_SIZE: '20',
      EVENTS_HEARTBEAT_MS: '200',
      EVENTS_HEARTBEAT_JITTER_MS: '0',
      MAX_BODY_BYTES: '16384',
      LOG_LEVEL: 'warn',
      SEED_DEMO_REALM: 'yes',
      DATA_DIR: dataDir,
    });
    expect(c).toMatchObject({
      mode: 'production',
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgresql://u@db:5432/zulip',
      redisUrl: 'redis://cache:6379',
      externalHost: 'chat.example.com',
      externalScheme: 'https',
      defaultRealm: '',
      dbPoolSize: 20,
      heartbeatMinMs: 200,
      heartbeatJitterMs: 0,
      maxBodyBytes: 16384,
      logLevel: 'warn',
      seedDemoRealm: true,
    });
  });

  it('takes production mode from NODE_ENV when SERVER_MODE is unset', () => {
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: SECRET, DATA_DIR: dataDir }).mode).toBe('production');
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: SECRET, DATA_DIR: dataDir }).seedDemoRealm).toBe(false);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT', "Invalid configuration: PORT must be an integer, got 'abc'"],
    [{ PORT: '70000' }, 'PORT', 'Invalid configuration: PORT must be between 0 and 65535, got 70000'],
    [{ PORT: '-1' }, 'PORT', 'Invalid configuration: PORT must be between 0 and 65535, got -1'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL', 'Invalid configuration: DATABASE_URL is not a valid URL'],
    [
      { DATABASE_URL: 'mysql://db/zulip' },
      'DATABASE_URL',
      "Invalid configuration: DATABASE_URL must use postgres: or postgresql: (got 'mysql:')",
    ],
    [
      { REDIS_URL: 'http://cache' },
      'REDIS_URL',
      "Invalid configuration: REDIS_URL must use redis: or rediss: (got 'http:')",
    ],
    [
      { SERVER_MODE: 'staging' },
      'SERVER_MODE',
      "Invalid configuration: SERVER_MODE must be 'development' or 'production', got 'staging'",
    ],
    [
      { EXTERNAL_HOST: 'http://chat.example.com' },
      'EXTERNAL_HOST',
      "Invalid configuration: EXTERNAL_HOST must be a host name with an optional port, got 'http://chat.example.com'",
    ],
    [{ EXTERNAL_SCHEME: 'ftp' }, 'EXTERNAL_SCHEME', 'Invalid configuration: EXTERNAL_SCHEME must be http or https'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', 'Invalid configuration: LOG_LEVEL must be one of error, warn, log, debug'],
    [
      { SEED_DEMO_REALM: 'maybe' },
      'SEED_DEMO_REALM',
      "Invalid configuration: SEED_DEMO_REALM must be true or false, got 'maybe'",
    ],
    [
      { MAX_BODY_BYTES: '100' },
      'MAX_BODY_BYTES',
      'Invalid configuration: MAX_BODY_BYTES must be between 16384 and 1073741824, got 100',
    ],
    [{ DB_POOL_SIZE: '0' }, 'DB_POOL_SIZE', 'Invalid configuration: DB_POOL_SIZE must be between 1 and 200, got 0'],
    [{ SECRET_KEY: 'short' }, 'SECRET_KEY', 'Invalid configuration: SECRET_KEY must be at least 32 characters long'],
  ])('%j is refused naming %s', (env, variable, message) => {
    const err = configError({ SECRET_KEY: SECRET, DATA_DIR: dataDir, ...env });
    expect(err.variable).toBe(variable);
    expect(err.message).toBe(message);
  });

  it('requires SECRET_KEY in production mode', () => {
    const err = configError({ SERVER_MODE: 'production', DATA_DIR: dataDir });
    expect(err.variable).toBe('SECRET_KEY');
    expect(err.message).toBe('Invalid configuration: SECRET_KEY is required in production mode');
  });

  describe('development secret', () => {
    it('is generated once under DATA_DIR and reused', () => {
      const first = loadConfig({ DATA_DIR: dataDir }).secretKey;
      expect(first.length).toBeGreaterThanOrEqual(32);
      const file = join(dataDir, 'secret_key');
      expect(readFileSync(file, 'utf8').trim()).toBe(first);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(loadConfig({ DATA_DIR: dataDir }).secretKey).toBe(first);
    });

    it('creates DATA_DIR when it does not exist', () => {
      const nested = join(dataDir, 'a', 'b');
      const secret = loadConfig({ DATA_DIR: nested }).secretKey;
      expect(readFileSync(join(nested, 'secret_key'), 'utf8').trim()).toBe(secret);
    });

    it('differs between data directories', () => {
      const other = mkdtempSync(join(tmpdir(), 'zulip-config-'));
      try {
        expect(loadConfig({ DATA_DIR: other }).secretKey).not.toBe(loadConfig({ DATA_DIR: dataDir }).secretKey);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    });

    it('is replaced when the stored one is too short', () => {
      writeFileSync(join(dataDir, 'secret_key'), 'tiny\n');
      const secret = loadConfig({ DATA_DIR: dataDir }).secretKey;
      expect(secret).not.toBe('tiny');
      expect(secret.length).toBeGreaterThanOrEqual(32);
    });

    it('is not used when SECRET_KEY is given', () => {
      loadConfig({ DATA_DIR: dataDir });
      expect(loadConfig({ DATA_DIR: dataDir, SECRET_KEY: `  ${SECRET}  ` }).secretKey).toBe(SECRET);
    });
  });
});
