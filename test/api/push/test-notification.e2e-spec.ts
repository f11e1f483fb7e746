/**
 * POST /mobile_push/test_notification (Zulip's send_test_push_notification_api): the mobile app's
 * "send a test notification" button. Delivered to our APNs/FCM stand-in.
 */
import { PushNotificationsService } from '../../../src/push/push-notifications.service';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { PushProviderServer } from '../../helpers/push-provider-server';
import { startTestApp, TestApp } from '../../helpers/test-app';

const APNS_TOKEN = 'c0ffee00'.repeat(8);
const FCM_TOKEN = `fcm-test:APA91b${'z'.repeat(30)}`;

describe('POST /mobile_push/test_notification', () => {
  let server: PushProviderServer;
  let t: TestApp;
  let push: PushNotificationsService;
  let hamletId: number;

  beforeAll(async () => {
    server = await PushProviderServer.start();
    t = await startTestApp({ ...server.env(), PUSH_RETRY_BASE_MS: '20', PUSH_MAX_ATTEMPTS: '2' });
    push = t.app.get(PushNotificationsService);
    const me = await t
      .http()
      .get('/api/v1/users/me')
      .auth(...(await t.auth('hamlet@zulip.com')));
    hamletId = me.body.user_id;
  });
  beforeEach(async () => {
    await register('apns_device_token', { token: APNS_TOKEN, appid: 'org.zulip.Zulip' });
    await register('android_gcm_reg_id', { token: FCM_TOKEN });
    await register('android_gcm_reg_id', { token: FCM_TOKEN }, 'othello@zulip.com');
  });
  afterEach(async () => {
    await push.whenIdle();
    server.reset();
    await t.dataSource.query('DELETE FROM push_device_token');
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  async function register(path: string, form: Record<string, string>, email = 'hamlet@zulip.com') {
    const res = await t
      .http()
      .post(`/api/v1/users/me/${path}`)
      .auth(...(await t.auth(email)))
      .type('form')
      .send(form);
    expect(res.status).toBe(200);
  }
  async function testNotify(form: Record<string, string>, email = 'hamlet@zulip.com') {
    const res = await t
      .http()
      .post('/api/v1/mobile_push/test_notification')
      .auth(...(await t.auth(email)))
      .type('form')
      .send(form);
    await push.whenIdle();
    return res;
  }

  it('sends Zulip’s test payload to every device of the caller, and nobody else’s', async () => {
    const res = await testNotify({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expectMatchesOpenApi('post', '/mobile_push/test_notification', 200, res.body);

    expect(server.apnsRequests.map((r) => r.token)).toEqual([APNS_TOKEN]);
    expect(server.fcmRequests.map((r) => r.token)).toEqual([FCM_TOKEN]); // othello's device: not his test
    const base = {
      server: 'zulip.testserver',
      realm_uri: 'http://zulip.testserver',
      realm_url: 'http://zulip.testserver',
      realm_name: 'Zulip Dev',
    };
    const apns = server.apnsRequests[0].body;
    expect(apns.aps).toEqual({
      alert: {
        title: 'Test notification',
        body: 'This is a test notification from Zulip Dev (http://zulip.testserver).',
      },
      sound: 'default',
    });
    expect(apns.zulip).toMatchObject({ ...base, user_id: hamletId, event: 'test' });
    const fcm = server.fcmRequests[0].body.message;
    expect(fcm.android.priority).toBe('high');
    expect(fcm.data).toMatchObject({ ...base, user_id: String(hamletId), event: 'test' });
    expect(Number(fcm.data.time)).toBeGreaterThan(Date.now() / 1000 - 60);
  });

  it('with a token, sends only to that device', async () => {
    const res = await testNotify({ token: FCM_TOKEN });
    expect(res.status).toBe(200);
    expect(server.apnsRequests).toHaveLength(0);
    expect(server.fcmRequests.map((r) => r.token)).toEqual([FCM_TOKEN]);
  });

  it('refuses a token the caller has not registered, even another user’s', async () => {
    await t.dataSource.query('DELETE FROM push_device_token WHERE user_id = $1', [hamletId]);
    for (const token of ['invalid', FCM_TOKEN, APNS_TOKEN.toUpperCase()]) {
      const res = await testNotify({ token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'Device not recognized', code: 'INVALID_PUSH_DEVICE_TOKEN' });
      expectMatchesOpenApi('post', '/mobile_push/test_notification', 400, res.body);
    }
    expect(server.apnsRequests).toHaveLength(0);
    expect(server.fcmRequests).toHaveLength(0);
  });

  it('succeeds with nothing sent when the caller has no device', async () => {
    const res = await testNotify({}, 'cordelia@zulip.com');
    expect(res.status).toBe(200);
    expect(server.fcmRequests).toHaveLength(0);
  });

  it('refuses bots before reading parameters', async () => {
    const res = await testNotify({ token: 'x' }, 'default-bot@zulip.com');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'This endpoint does not accept bot requests.' });
  });

  it('refuses a deactivated user', async () => {
    const auth = await t.auth('othello@zulip.com');
    await t
      .http()
      .delete(
        `/api/v1/users/${
          (
            await t
              .http()
              .get('/api/v1/users/me')
              .auth(...auth)
          ).body.user_id
        }`,
      )
      .auth(...(await t.auth('iago@zulip.com')))
      .expect(200);
    const res = await t
      .http()
      .post('/api/v1/mobile_push/test_notification')
      .auth(...auth)
      .type('form')
      .send({});
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ result: 'error', msg: 'Account is deactivated' });
    expect(server.fcmRequests).toHaveLength(0);
  });
});

describe('POST /mobile_push/test_notification without push configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('still checks the token, and otherwise succeeds with nothing to send', async () => {
    const auth = await t.auth('hamlet@zulip.com');
    await t
      .http()
      .post('/api/v1/users/me/android_gcm_reg_id')
      .auth(...auth)
      .type('form')
      .send({ token: FCM_TOKEN })
      .expect(200);
    const unknown = await t
      .http()
      .post('/api/v1/mobile_push/test_notification')
      .auth(...auth)
      .type('form')
      .send({ token: 'nope' });
    expect(unknown.body).toMatchObject({ code: 'INVALID_PUSH_DEVICE_TOKEN' });
    const ok = await t
      .http()
      .post('/api/v1/mobile_push/test_notification')
      .auth(...auth)
      .type('form')
      .send({ token: FCM_TOKEN });
    expect(ok.status).toBe(200);
  });
});
