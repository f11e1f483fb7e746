import { PushDevicesRepository } from '../../../src/push/push-devices.repository';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';

const HEX = 'c0ffee00'.repeat(8);

describe('push device tokens', () => {
  let t: TestApp;
  let hamletId: number;
  beforeAll(async () => {
    t = await startTestApp();
    const me = await t
      .http()
      .get('/api/v1/users/me')
      .auth(...(await t.auth('hamlet@zulip.com')));
    hamletId = me.body.user_id;
  });
  afterAll(() => t.close());

  const post = async (path: string, form: Record<string, string>, email = 'hamlet@zulip.com') =>
    t
      .http()
      .post(`/api/v1/users/me/${path}`)
      .auth(...(await t.auth(email)))
      .type('form')
      .send(form);
  const del = async (path: string, form: Record<string, string>, email = 'hamlet@zulip.com') =>
    t
      .http()
      .delete(`/api/v1/users/me/${path}`)
      .auth(...(await t.auth(email)))
      .type('form')
      .send(form);
  const devices = () => t.app.get(PushDevicesRepository).devicesOf([hamletId]);

  it('registers an APNs token idempotently and removes it', async () => {
    const res = await post('apns_device_token', { token: HEX, appid: 'org.zulip.Zulip' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expectMatchesOpenApi('post', '/users/me/apns_device_token', res.status, res.body);
    expect((await post('apns_device_token', { token: HEX, appid: 'org.zulip.Zulip' })).status).toBe(200);
    expect((await devices()).filter((d) => d.token === HEX)).toHaveLength(1);
    expect((await devices())[0]).toMatchObject({ kind: 1, iosAppId: 'org.zulip.Zulip' });

    const removed = await del('apns_device_token', { token: HEX });
    expect(removed.status).toBe(200);
    expect(await devices()).toHaveLength(0);
    const again = await del('apns_device_token', { token: HEX });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Token does not exist' });
  });

  it.each([
    [{ token: 'a'.repeat(5000), appid: 'org.zulip.Zulip' }, 'Empty or invalid length token'],
    [{ token: '', appid: 'org.zulip.Zulip' }, 'Empty or invalid length token'],
    [{ token: 'not-hex!', appid: 'org.zulip.Zulip' }, 'Invalid APNS token'],
    [{ token: HEX }, "Missing 'appid' argument"],
    [{ appid: 'org.zulip.Zulip' }, "Missing 'token' argument"],
    [{ token: HEX, appid: "'; tables --" }, 'appid has invalid format'],
  ])('rejects %j with %s', async (form, msg) => {
    const res = await post('apns_device_token', form);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: 'error', msg });
    // Zulip's document omits `var_name` from this endpoint's error schema, though the server sends it.
    if (res.body.code !== 'REQUEST_VARIABLE_MISSING') {
      expectMatchesOpenApi('post', '/users/me/apns_device_token', res.status, res.body);
    }
  });

  it('accepts the longest legal token (4096 characters) without a database error', async () => {
    const long = 'ab'.repeat(2048);
    expect((await post('apns_device_token', { token: long, appid: 'org.zulip.Zulip' })).status).toBe(200);
    expect((await del('apns_device_token', { token: long })).status).toBe(200);
  });

  it('registers and removes FCM tokens', async () => {
    const res = await post('android_gcm_reg_id', { token: 'fcm-token:APA91b' });
    expect(res.status).toBe(200);
    expect((await devices()).map((d) => d.kind)).toEqual([2]);
    expect((await del('android_gcm_reg_id', { token: 'fcm-token:APA91b' })).status).toBe(200);
    const bad = await post('android_gcm_reg_id', { token: '' });
    expect(bad.body).toMatchObject({ msg: 'Empty or invalid length token' });
  });

  it('refuses bots before reading parameters', async () => {
    const res = await post('apns_device_token', {}, 'default-bot@zulip.com');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'This endpoint does not accept bot requests.' });
  });
});
