import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, pushNotificationsConfigured } from './config';

const SECRET = 'x'.repeat(40);
const EC_PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;
const RSA_PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;
const SERVICE_ACCOUNT = {
  type: 'service_account',
  project_id: 'zulip-test',
  private_key_id: 'abc123',
  private_key: RSA_PEM,
  client_email: 'push@zulip-test.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
};

function load(env: Record<string, string>) {
  return loadConfig({ SECRET_KEY: SECRET, DATA_DIR: dir, ...env });
}

function failure(env: Record<string, string>): string {
  try {
    load(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`expected a ConfigError for ${Object.keys(env).join(', ')}`);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'zulip-push-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('push configuration', () => {
  it('is off with no provider, with the queue defaults', () => {
    const c = load({});
    expect(c.push).toEqual({
      apns: undefined,
      fcm: undefined,
      concurrency: 16,
      maxAttempts: 5,
      retryBaseMs: 1000,
      retryMaxMs: 300_000,
      requestTimeoutMs: 10_000,
      maxQueued: 100_000,
      shutdownTimeoutMs: 5000,
    });
    expect(pushNotificationsConfigured(c)).toBe(false);
  });

  it('reads an APNs token key inline or from a file, production URL by default', () => {
    const inline = load({ APNS_KEY: EC_PEM, APNS_KEY_ID: 'ABC123DEFG', APNS_TEAM_ID: 'TEAM123456' });
    expect(inline.push.apns).toEqual({
      url: 'https://api.push.apple.com',
      keyPem: EC_PEM.trim(),
      keyId: 'ABC123DEFG',
      teamId: 'TEAM123456',
    });
    expect(pushNotificationsConfigured(inline)).toBe(true);

    const file = join(dir, 'AuthKey.p8');
    writeFileSync(file, EC_PEM);
    const fromFile = load({
      APNS_KEY_FILE: file,
      APNS_KEY_ID: 'ABC123DEFG',
      APNS_TEAM_ID: 'TEAM123456',
      APNS_URL: 'https://api.sandbox.push.apple.com/',
    });
    expect(fromFile.push.apns).toMatchObject({ url: 'https://api.sandbox.push.apple.com', keyPem: EC_PEM });
  });

  it('accepts a key whose newlines are written as \\n', () => {
    const escaped = EC_PEM.trim().replace(/\n/g, '\\n');
    const c = load({ APNS_KEY: escaped, APNS_KEY_ID: 'K', APNS_TEAM_ID: 'T' });
    expect(c.push.apns?.keyPem).toBe(EC_PEM.trim());
  });

  it.each([
    [{ APNS_KEY_ID: 'ABC123DEFG' }, 'APNS_KEY (or APNS_KEY_FILE) is required when APNS_KEY_ID is set'],
    [{ APNS_KEY: EC_PEM, APNS_KEY_ID: 'ABC123DEFG' }, 'APNS_TEAM_ID is required when APNS_KEY, APNS_KEY_ID are set'],
    [
      { APNS_URL: 'https://api.sandbox.push.apple.com' },
      'APNS_KEY (or APNS_KEY_FILE) is required when APNS_URL is set',
    ],
    [{ APNS_KEY: EC_PEM, APNS_KEY_FILE: '/x', APNS_KEY_ID: 'K', APNS_TEAM_ID: 'T' }, 'APNS_KEY and APNS_KEY_FILE'],
    [{ APNS_KEY_FILE: '/nonexistent/key.p8', APNS_KEY_ID: 'K', APNS_TEAM_ID: 'T' }, 'APNS_KEY_FILE cannot be read'],
    [{ APNS_KEY: 'not a key', APNS_KEY_ID: 'K', APNS_TEAM_ID: 'T' }, 'APNS_KEY is not a PEM-encoded private key'],
    [{ APNS_KEY: RSA_PEM, APNS_KEY_ID: 'K', APNS_TEAM_ID: 'T' }, 'APNS_KEY must be an EC P-256 private key'],
    [{ APNS_KEY: EC_PEM, APNS_KEY_ID: 'K/1', APNS_TEAM_ID: 'T' }, 'APNS_KEY_ID must be'],
    [{ APNS_KEY: EC_PEM, APNS_KEY_ID: 'K', APNS_TEAM_ID: 'T', APNS_URL: 'ftp://x' }, 'APNS_URL must use'],
  ])('rejects partial or bad APNs settings %#', (env, message) => {
    expect(failure(env)).toContain(message);
  });

  it('reads FCM service-account credentials inline or from a file', () => {
    const c = load({ FCM_CREDENTIALS: JSON.stringify(SERVICE_ACCOUNT) });
    expect(c.push.fcm).toEqual({
      url: 'https://fcm.googleapis.com',
      projectId: 'zulip-test',
      clientEmail: 'push@zulip-test.iam.gserviceaccount.com',
      privateKeyPem: RSA_PEM.trim(),
      privateKeyId: 'abc123',
      tokenUri: 'https://oauth2.googleapis.com/token',
    });
    expect(pushNotificationsConfigured(c)).toBe(true);

    const file = join(dir, 'service-account.json');
    writeFileSync(file, JSON.stringify({ ...SERVICE_ACCOUNT, token_uri: undefined }));
    const fromFile = load({ FCM_CREDENTIALS_FILE: file, FCM_URL: 'http://127.0.0.1:9/' });
    expect(fromFile.push.fcm).toMatchObject({
      url: 'http://127.0.0.1:9',
      tokenUri: 'https://oauth2.googleapis.com/token',
    });
  });

  it.each([
    [{ FCM_URL: 'https://fcm.googleapis.com' }, 'FCM_CREDENTIALS (or FCM_CREDENTIALS_FILE) is required'],
    [{ FCM_CREDENTIALS: '{nope' }, 'FCM_CREDENTIALS must be a service-account JSON object'],
    [{ FCM_CREDENTIALS: '[]' }, 'FCM_CREDENTIALS must be a service-account JSON object'],
    [{ FCM_CREDENTIALS: JSON.stringify({ ...SERVICE_ACCOUNT, client_email: '' }) }, '"client_email"'],
    [{ FCM_CREDENTIALS: JSON.stringify({ ...SERVICE_ACCOUNT, project_id: undefined }) }, '"project_id"'],
    [{ FCM_CREDENTIALS: JSON.stringify({ ...SERVICE_ACCOUNT, private_key: EC_PEM }) }, 'must be an RSA private key'],
    [{ FCM_CREDENTIALS: JSON.stringify({ ...SERVICE_ACCOUNT, token_uri: 'file:///x' }) }, 'invalid "token_uri"'],
    [{ FCM_CREDENTIALS: '{}', FCM_CREDENTIALS_FILE: '/x' }, 'FCM_CREDENTIALS and FCM_CREDENTIALS_FILE'],
  ])('rejects partial or bad FCM settings %#', (env, message) => {
    expect(failure(env)).toContain(message);
  });

  it('parses the queue limits', () => {
    const c = load({ PUSH_CONCURRENCY: '2', PUSH_MAX_ATTEMPTS: '3', PUSH_RETRY_BASE_MS: '10' });
    expect(c.push).toMatchObject({ concurrency: 2, maxAttempts: 3, retryBaseMs: 10 });
    expect(failure({ PUSH_MAX_ATTEMPTS: '0' })).toContain('PUSH_MAX_ATTEMPTS must be between 1 and 100');
  });
});
