import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

const SECRET = 'x'.repeat(40);
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'zulip-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const load = (env: Record<string, string>) => loadConfig({ SECRET_KEY: SECRET, DATA_DIR: dir, ...env });

function failure(env: Record<string, string>): string {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('job queue configuration', () => {
  it('has defaults', () => {
    expect(load({}).jobs).toEqual({
      workers: true,
      concurrency: 4,
      pollIntervalMs: 1000,
      maintenanceIntervalSeconds: 30,
      shutdownTimeoutMs: 10_000,
    });
  });

  it('reads JOBS_*', () => {
    const jobs = load({
      JOBS_WORKERS: 'off',
      JOBS_CONCURRENCY: '8',
      JOBS_POLL_INTERVAL_MS: '250',
      JOBS_MAINTENANCE_INTERVAL_SECONDS: '5',
      JOBS_SHUTDOWN_TIMEOUT_MS: '0',
    }).jobs;
    expect(jobs).toEqual({
      workers: false,
      concurrency: 8,
      pollIntervalMs: 250,
      maintenanceIntervalSeconds: 5,
      shutdownTimeoutMs: 0,
    });
  });

  it('refuses bad values', () => {
    expect(failure({ JOBS_WORKERS: 'maybe' })).toBe(
      "Invalid configuration: JOBS_WORKERS must be true or false, got 'maybe'",
    );
    expect(failure({ JOBS_CONCURRENCY: '0' })).toMatch(/JOBS_CONCURRENCY must be between 1 and 1000/);
    expect(failure({ JOBS_POLL_INTERVAL_MS: '10' })).toMatch(/JOBS_POLL_INTERVAL_MS must be between 50/);
  });
});

describe('email configuration', () => {
  it('has no SMTP by default; the noreply address follows EXTERNAL_HOST', () => {
    const email = load({ EXTERNAL_HOST: 'chat.example.com:8443' }).email;
    expect(email).toEqual({
      smtp: undefined,
      noreplyAddress: 'noreply@chat.example.com',
      outboxDir: join(dir, 'emails'),
      gatewayPattern: '%s@chat.example.com',
    });
  });

  it('EMAIL_GATEWAY_PATTERN: an address with one %s, or empty for none', () => {
    expect(load({ EMAIL_GATEWAY_PATTERN: '%s@mail.example.com' }).email.gatewayPattern).toBe('%s@mail.example.com');
    expect(load({ EMAIL_GATEWAY_PATTERN: '' }).email.gatewayPattern).toBe('');
    expect(() => load({ EMAIL_GATEWAY_PATTERN: 'mail.example.com' })).toThrow(/EMAIL_GATEWAY_PATTERN/);
    expect(() => load({ EMAIL_GATEWAY_PATTERN: '%s.%s@x.com' })).toThrow(/EMAIL_GATEWAY_PATTERN/);
  });

  it('reads the SMTP settings (Zulip names), STARTTLS on port 587 by default', () => {
    expect(load({ EMAIL_HOST: 'smtp.example.com' }).email.smtp).toEqual({
      host: 'smtp.example.com',
      port: 587,
      user: undefined,
      password: undefined,
      useTls: true,
    });
    const email = load({
      EMAIL_HOST: 'smtp.example.com',
      EMAIL_PORT: '2525',
      EMAIL_HOST_USER: 'zulip',
      EMAIL_HOST_PASSWORD: ' pass word ',
      EMAIL_USE_TLS: 'false',
      NOREPLY_EMAIL_ADDRESS: 'Example Chat <noreply@example.com>',
    }).email;
    expect(email.smtp).toEqual({
      host: 'smtp.example.com',
      port: 2525,
      user: 'zulip',
      password: ' pass word ',
      useTls: false,
    });
    expect(email.noreplyAddress).toBe('Example Chat <noreply@example.com>');
  });

  it('refuses incomplete or bad settings', () => {
    expect(failure({ EMAIL_HOST_USER: 'zulip', EMAIL_HOST_PASSWORD: 'x' })).toMatch(/EMAIL_HOST is required/);
    expect(failure({ EMAIL_HOST: 'smtp.example.com', EMAIL_HOST_USER: 'zulip' })).toMatch(
      /EMAIL_HOST_PASSWORD is required/,
    );
    expect(failure({ EMAIL_HOST: 'smtp.example.com', EMAIL_PORT: '70000' })).toMatch(/EMAIL_PORT must be between/);
    expect(failure({ EMAIL_HOST: 'smtp.example.com', EMAIL_USE_TLS: 'sometimes' })).toMatch(/EMAIL_USE_TLS/);
    expect(failure({ NOREPLY_EMAIL_ADDRESS: 'nobody' })).toMatch(/NOREPLY_EMAIL_ADDRESS must be an address/);
    expect(failure({ NOREPLY_EMAIL_ADDRESS: 'Name <not an address>' })).toMatch(/NOREPLY_EMAIL_ADDRESS/);
  });
});
