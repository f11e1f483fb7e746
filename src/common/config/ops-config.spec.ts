import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

const SECRET = 'x'.repeat(40);

describe('loadConfig: logs, metrics, shutdown', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'zulip-config-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, SECRET_KEY: SECRET, ...env });

  it('has defaults: pretty logs in development, JSON in production, metrics on the public port, 15 s grace', () => {
    expect(load({}).ops).toEqual({
      logFormat: 'pretty',
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      metricsToken: undefined,
      shutdownDelayMs: 0,
      shutdownGraceMs: 15_000,
    });
    expect(load({ SERVER_MODE: 'production' }).ops.logFormat).toBe('json');
    expect(load({ LOG_LEVEL: 'info' }).logLevel).toBe('log');
  });

  it('reads LOG_FORMAT, METRICS_PORT/HOST/TOKEN and SHUTDOWN_*', () => {
    expect(
      load({
        LOG_FORMAT: 'json',
        HOST: '0.0.0.0',
        METRICS_PORT: '9464',
        METRICS_TOKEN: 'a-long-enough-token',
        SHUTDOWN_DELAY_MS: '2000',
        SHUTDOWN_GRACE_MS: '30000',
      }).ops,
    ).toEqual({
      logFormat: 'json',
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      metricsToken: 'a-long-enough-token',
      shutdownDelayMs: 2000,
      shutdownGraceMs: 30_000,
    });
    expect(load({ METRICS_PORT: '9464', METRICS_HOST: '127.0.0.2' }).ops.metricsHost).toBe('127.0.0.2');
    expect(load({ METRICS_TOKEN: '  ' }).ops.metricsToken).toBeUndefined();
  });

  it.each([
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT'],
    [{ METRICS_PORT: 'abc' }, 'METRICS_PORT'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
    [{ SHUTDOWN_GRACE_MS: '10' }, 'SHUTDOWN_GRACE_MS'],
    [{ SHUTDOWN_DELAY_MS: '-1' }, 'SHUTDOWN_DELAY_MS'],
  ])('%j is refused naming %s', (env, variable) => {
    expect(() => load(env)).toThrow(ConfigError);
    try {
      load(env);
    } catch (err) {
      expect((err as ConfigError).variable).toBe(variable);
    }
  });
});
