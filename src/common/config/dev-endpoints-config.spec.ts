import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopbackHost, loadConfig, startupWarnings } from './config';

const SECRET = 'x'.repeat(40);

describe('development endpoints and the bind address', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'zulip-config-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, SECRET_KEY: SECRET, ...env });

  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1', '::ffff:10.0.0.1'])(
    '%s is not loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );

  it('zero setup (no SERVER_MODE, NODE_ENV or HOST): development endpoints and the demo realm, no warning', () => {
    const c = load({});
    expect(c).toMatchObject({ mode: 'development', host: '127.0.0.1', devEndpoints: true, seedDemoRealm: true });
    expect(startupWarnings(c)).toEqual([]);
  });

  it('development mode on a public address: no development endpoints, no demo realm, a loud warning', () => {
    const c = load({ HOST: '0.0.0.0' });
    expect(c).toMatchObject({ mode: 'development', devEndpoints: false, seedDemoRealm: false });
    const [warning, ...rest] = startupWarnings(c);
    expect(rest).toEqual([]);
    expect(warning).toContain('HOST=0.0.0.0');
    expect(warning).toContain('development endpoints are OFF');
    expect(warning).toContain('ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS');
  });

  it('SEED_DEMO_REALM still seeds when the operator asks', () => {
    expect(load({ HOST: '0.0.0.0', SEED_DEMO_REALM: 'true' })).toMatchObject({
      devEndpoints: false,
      seedDemoRealm: true,
    });
  });

  it('ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS=1 turns them on, with a louder warning', () => {
    const c = load({ HOST: '0.0.0.0', ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS: '1' });
    expect(c).toMatchObject({ devEndpoints: true, seedDemoRealm: true });
    expect(startupWarnings(c)[0]).toMatch(/^DEVELOPMENT MODE ON A PUBLIC ADDRESS/);
    expect(startupWarnings(c)[0]).toContain('take over any account');
  });

  it('production never serves them, whatever the address or the variable', () => {
    for (const HOST of ['127.0.0.1', '0.0.0.0']) {
      const c = load({ SERVER_MODE: 'production', HOST, ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS: '1' });
      expect(c).toMatchObject({ devEndpoints: false, seedDemoRealm: false });
      expect(startupWarnings(c)).toEqual([]);
    }
  });

  it('refuses a value that is not a boolean', () => {
    expect(() => load({ HOST: '0.0.0.0', ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS: 'maybe' })).toThrow(
      /ALLOW_DEV_ENDPOINTS_ON_PUBLIC_ADDRESS must be true or false/,
    );
  });

  it('login rate limits: Zulip-like defaults, configurable, off', () => {
    expect(load({}).authRateLimit).toEqual({
      username: [{ max: 5, windowSeconds: 1800 }],
      ip: [{ max: 100, windowSeconds: 1800 }],
    });
    expect(load({ AUTH_RATE_LIMIT_USERNAME: 'off', AUTH_RATE_LIMIT_IP: '10/60' }).authRateLimit).toEqual({
      username: [],
      ip: [{ max: 10, windowSeconds: 60 }],
    });
    expect(() => load({ AUTH_RATE_LIMIT_IP: 'lots' })).toThrow(/AUTH_RATE_LIMIT_IP/);
  });
});

describe('TRUST_PROXY', () => {
  const load = (value: string) => loadConfig({ SECRET_KEY: 'x'.repeat(40), DATA_DIR: tmpdir(), TRUST_PROXY: value });
  it.each(['loopback', 'uniquelocal, 10.0.0.0/8', '192.168.1.1', '::1, fc00::/7'])('accepts %s', (value) => {
    expect(load(value).trustProxy).toBe(value);
  });
  it.each(['true', 'proxy.example', '10.0.0.0/40', '10.0.0.1/8/1'])('refuses %s', (value) => {
    expect(() => load(value)).toThrow(/TRUST_PROXY must list addresses/);
  });
});
