/**
 * GET /server_settings (zerver/views/auth.py api_get_server_settings), with and without a realm
 * on the request's host; the answers kept serialised per realm (server-settings.controller.ts).
 */
import { RealmService } from '../../../src/realm/realm.service';
import { Role } from '../../../src/realm/system-groups';
import { UsersService } from '../../../src/users/users.service';
import { call, callInRealm } from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';

const SERVICE_KEYS = ['service_feature_level', 'service_version', 'service_merge_base'] as const;

/** DECISIONS #2: we also send service_*; Zulip's OpenAPI document forbids unknown keys, so drop them. */
function withoutServiceKeys(body: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...body };
  for (const k of SERVICE_KEYS) delete copy[k];
  return copy;
}

const REALM_FIELDS = [
  'email_auth_enabled',
  'require_email_format_usernames',
  'realm_url',
  'realm_uri',
  'realm_name',
  'realm_icon',
  'realm_description',
  'realm_web_public_access_enabled',
];

const AUTH_METHOD_KEYS = [
  'password',
  'dev',
  'email',
  'ldap',
  'remoteuser',
  'github',
  'azuread',
  'gitlab',
  'apple',
  'google',
  'saml',
  'openid connect',
];

function expectServerFields(body: Record<string, unknown>): void {
  expect(body).toMatchObject({
    result: 'success',
    msg: '',
    zulip_feature_level: 406,
    zulip_version: expect.any(String),
    zulip_merge_base: expect.any(String),
    push_notifications_enabled: false,
    is_incompatible: false,
    external_authentication_methods: [],
  });
  expect(body.service_feature_level).toBe(body.zulip_feature_level);
  expect(body.service_version).toBe(body.zulip_version);
  expect(body.service_merge_base).toBe(body.zulip_merge_base);
  expect(Object.keys(body.authentication_methods as object).sort()).toEqual([...AUTH_METHOD_KEYS].sort());
  expect(body.authentication_methods).toMatchObject({ password: true, email: true, ldap: false, github: false });
  expectMatchesOpenApi('get', '/server_settings', 200, withoutServiceKeys(body));
}

describe('GET /server_settings with the default realm on the root host', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('needs no credentials and gives server and realm fields', async () => {
    const res = await t.http().get('/api/v1/server_settings');
    expect(res.status).toBe(200);
    expectServerFields(res.body);
    expect(res.body).toMatchObject({
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_url: 'http://zulip.testserver',
      realm_uri: 'http://zulip.testserver',
      realm_name: 'Zulip Dev',
      realm_icon: expect.any(String),
      realm_web_public_access_enabled: true,
    });
    expect(res.body.realm_description).toContain('The Zulip development environment default organization.');
    expect(res.body.realm_description).toMatch(/^<p>.*<\/p>$/s);
    expect(res.body.authentication_methods.dev).toBe(true);
    expect(res.body).not.toHaveProperty('ignored_parameters_unsupported');
  });

  it("does not depend on the caller's credentials", async () => {
    const anonymous = await t.http().get('/api/v1/server_settings');
    const authed = await t
      .http()
      .get('/api/v1/server_settings')
      .auth(...(await t.auth('hamlet@zulip.com')));
    expect(authed.status).toBe(200);
    expect(authed.body).toEqual(anonymous.body);
  });

  it("serves the realm on its subdomain (the default realm's URL stays the root)", async () => {
    const res = await t.http().get('/api/v1/server_settings').set('Host', 'zulip.zulip.testserver');
    expect(res.status).toBe(200);
    expectServerFields(res.body);
    expect(res.body).toMatchObject({ realm_name: 'Zulip Dev', realm_url: 'http://zulip.testserver' });
  });

  it('serves another realm on its subdomain', async () => {
    const res = await t.http().get('/api/v1/server_settings').set('Host', 'zulipinternal.zulip.testserver');
    expect(res.status).toBe(200);
    expectServerFields(res.body);
    expect(res.body).toMatchObject({
      realm_name: 'System bot realm',
      realm_url: 'http://zulipinternal.zulip.testserver',
      realm_uri: 'http://zulipinternal.zulip.testserver',
      realm_web_public_access_enabled: false,
    });
  });

  it('accepts a Host header with a port and in upper case', async () => {
    const res = await t.http().get('/api/v1/server_settings').set('Host', 'ZULIPINTERNAL.zulip.testserver:443');
    expect(res.status).toBe(200);
    expect(res.body.realm_name).toBe('System bot realm');
  });

  it('an unknown subdomain → 400 Invalid subdomain', async () => {
    const res = await t.http().get('/api/v1/server_settings').set('Host', 'nosuchrealm.zulip.testserver');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg: 'Invalid subdomain', code: 'BAD_REQUEST' });
    expectMatchesOpenApi('get', '/server_settings', res.status, res.body);
  });

  it('a host outside EXTERNAL_HOST (an IP address) serves the default realm', async () => {
    const res = await t.http().get('/api/v1/server_settings').set('Host', '127.0.0.1:9991');
    expect(res.status).toBe(200);
    expect(res.body.realm_name).toBe('Zulip Dev');
  });

  it('is_incompatible is true for the ZulipInvalid client only', async () => {
    const bad = await t.http().get('/api/v1/server_settings').set('User-Agent', 'ZulipInvalid/1.0');
    expect(bad.status).toBe(200);
    expect(bad.body.is_incompatible).toBe(true);
    expectMatchesOpenApi('get', '/server_settings', 200, withoutServiceKeys(bad.body));
    for (const ua of ['ZulipMobile/27.0 (Android 14)', 'ZulipInvalidity/1.0', 'zulip-js/2.1.0', '']) {
      const ok = await t.http().get('/api/v1/server_settings').set('User-Agent', ua);
      expect(ok.body.is_incompatible).toBe(false);
    }
  });

  it('reports unknown parameters as ignored', async () => {
    const res = await t.http().get('/api/v1/server_settings').query({ foo: '1' });
    expect(res.status).toBe(200);
    expect(res.body.ignored_parameters_unsupported).toEqual(['foo']);
  });

  it('answers HEAD', async () => {
    const res = await t.http().head('/api/v1/server_settings');
    expect(res.status).toBe(200);
  });
});

describe('GET /server_settings: the answers kept serialised per realm', () => {
  let t: TestApp;
  const LEAR = 'goneril@lear.example';
  const get = (host = 'zulip.testserver') => t.http().get('/api/v1/server_settings').set('Host', host);

  beforeAll(async () => {
    t = await startTestApp();
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: LEAR, fullName: 'Goneril', role: Role.OWNER });
  });
  afterAll(() => t.close());

  it('sends the same JSON again, with its length and type', async () => {
    const first = await get('lear.zulip.testserver');
    const again = await get('lear.zulip.testserver');
    expect(first.body.realm_name).toBe('Lear & Co');
    expect(again.text).toBe(first.text);
    expect(again.headers['content-length']).toBe(String(Buffer.byteLength(first.text)));
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it("a change to a realm shows in its next answer, and only in that realm's", async () => {
    const zulipBefore = (await get()).text;
    await get('lear.zulip.testserver');
    const patched = await callInRealm(t, 'lear', 'patch', '/realm', LEAR, {
      name: 'Lear Renamed',
      description: 'Now *bold*',
    });
    expect(patched.status).toBe(200);
    expect((await get('lear.zulip.testserver')).body).toMatchObject({
      realm_name: 'Lear Renamed',
      realm_description: '<p>Now <em>bold</em></p>',
    });
    expect((await get()).text).toBe(zulipBefore);
    expect((await call(t, 'patch', '/realm', 'iago@zulip.com', { name: 'Zulip Renamed' })).status).toBe(200);
    expect((await get()).body.realm_name).toBe('Zulip Renamed');
    expect((await get('lear.zulip.testserver')).body.realm_name).toBe('Lear Renamed');
  });

  it('ignored parameters are per request; the rest of the answer is the same', async () => {
    const res = await t.http().get('/api/v1/server_settings').query({ bogus: '1', another: 'x' });
    expect(res.body.ignored_parameters_unsupported).toEqual(['another', 'bogus']);
    const { ignored_parameters_unsupported: _ignored, ...rest } = res.body as Record<string, unknown>;
    expect(rest).toEqual((await get()).body);
    expect((await get()).body).not.toHaveProperty('ignored_parameters_unsupported');
  });

  it('HEAD and a conditional GET (rendered by Express itself) give the same JSON', async () => {
    const plain = await get();
    const head = await t.http().head('/api/v1/server_settings');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(plain.headers['content-length']);
    const conditional = await get().set('If-None-Match', '"nothing"');
    expect(conditional.status).toBe(200);
    expect(conditional.text).toBe(plain.text);
  });
});

describe('GET /server_settings with no realm on the root host', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DEFAULT_REALM: '' });
  });
  afterAll(() => t.close());

  it('gives only the server fields on the root host', async () => {
    const res = await t.http().get('/api/v1/server_settings');
    expect(res.status).toBe(200);
    expectServerFields(res.body);
    for (const field of REALM_FIELDS) expect(res.body).not.toHaveProperty(field);
  });

  it('gives the realm fields on a realm subdomain, with the subdomain URL', async () => {
    const res = await t.http().get('/api/v1/server_settings').set('Host', 'zulip.zulip.testserver');
    expect(res.status).toBe(200);
    expectServerFields(res.body);
    for (const field of REALM_FIELDS) expect(res.body).toHaveProperty(field);
    expect(res.body).toMatchObject({ realm_name: 'Zulip Dev', realm_url: 'http://zulip.zulip.testserver' });
  });

  it('the root host authenticates nobody: Account is not associated with this subdomain', async () => {
    const res = await t
      .http()
      .get('/api/v1/users/me')
      .auth(...(await t.auth('hamlet@zulip.com')));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Account is not associated with this subdomain',
      code: 'UNAUTHORIZED',
    });
    const onSubdomain = await t
      .http()
      .get('/api/v1/users/me')
      .set('Host', 'zulip.zulip.testserver')
      .auth(...(await t.auth('hamlet@zulip.com')));
    expect(onSubdomain.status).toBe(200);
    expect(onSubdomain.body.email).toBe('hamlet@zulip.com');
  });
});

describe('GET /server_settings in production mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SERVER_MODE: 'production' });
  });
  afterAll(() => t.close());

  it('does not offer dev authentication', async () => {
    const res = await t.http().get('/api/v1/server_settings');
    expect(res.status).toBe(200);
    expectServerFields(res.body);
    expect(res.body.authentication_methods.dev).toBe(false);
  });
});
