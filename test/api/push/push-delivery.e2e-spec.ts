/**
 * Push delivery through the real PushNotificationsService, with the whole app on PostgreSQL and
 * the providers pointed at our APNs/FCM stand-in (test/helpers/push-provider-server.ts).
 */
import { Logger } from '@nestjs/common';
import { runInTransaction } from '../../../src/database/transaction';
import { PushDevicesRepository } from '../../../src/push/push-devices.repository';
import { NotifyMessageInput, PushNotificationsService } from '../../../src/push/push-notifications.service';
import type { PushRealm } from '../../../src/push/push-payloads';
import { RealmService } from '../../../src/realm/realm.service';
import { PushProviderServer } from '../../helpers/push-provider-server';
import { startTestApp, TestApp } from '../../helpers/test-app';

const APP_ID = 'org.zulip.Zulip';
let tokenSeq = 0;
/** A fresh APNs token (hex) or FCM registration id per use, so scripted failures never leak between tests. */
const apnsToken = () => (++tokenSeq).toString(16).padStart(8, '0').repeat(8);
const fcmToken = () => `fcm-${++tokenSeq}:APA91bH${'x'.repeat(40)}`;

describe('push notification delivery', () => {
  let server: PushProviderServer;
  let t: TestApp;
  let push: PushNotificationsService;
  let realm: PushRealm;
  let hamletId: number;
  let othelloId: number;
  let warn: jest.SpyInstance;
  let debug: jest.SpyInstance;

  beforeAll(async () => {
    server = await PushProviderServer.start();
    t = await startTestApp({
      ...server.env(),
      PUSH_RETRY_BASE_MS: '20',
      PUSH_RETRY_MAX_MS: '5000',
      PUSH_MAX_ATTEMPTS: '3',
      PUSH_CONCURRENCY: '4',
    });
    push = t.app.get(PushNotificationsService);
    const realms = t.app.get(RealmService);
    const zulip = (await realms.findByStringId('zulip'))!;
    realm = { id: zulip.id, name: zulip.name, url: realms.realmUrl(zulip) };
    const me = async (email: string) =>
      (
        await t
          .http()
          .get('/api/v1/users/me')
          .auth(...(await t.auth(email)))
      ).body.user_id as number;
    hamletId = await me('hamlet@zulip.com');
    othelloId = await me('othello@zulip.com');
  });
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn');
    debug = jest.spyOn(Logger.prototype, 'debug');
  });
  afterEach(async () => {
    await push.whenIdle();
    warn.mockRestore();
    debug.mockRestore();
    const problems = [...server.problems];
    server.reset();
    await t.dataSource.query('DELETE FROM push_device_token');
    expect(problems).toEqual([]);
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  async function register(email: string, kind: 'apns' | 'fcm', token: string) {
    const res = await t
      .http()
      .post(kind === 'apns' ? '/api/v1/users/me/apns_device_token' : '/api/v1/users/me/android_gcm_reg_id')
      .auth(...(await t.auth(email)))
      .type('form')
      .send(kind === 'apns' ? { token, appid: APP_ID } : { token });
    expect(res.status).toBe(200);
  }
  const devicesOf = (userId: number) => t.app.get(PushDevicesRepository).devicesOf([userId]);

  function mention(messageId = 4242, recipients = [hamletId]): NotifyMessageInput {
    return {
      realm,
      message: {
        id: messageId,
        sender: {
          id: othelloId,
          email: 'othello@zulip.com',
          fullName: 'Othello, the Moor of Venice',
          avatarUrl: 'https://secure.gravatar.com/avatar/0fbe1a4c0e0a2b8f?d=identicon&version=1',
        },
        recipient: { type: 'channel', channelId: 3, channelName: 'Verona', topic: 'push' },
        renderedContent:
          `<p><span class="user-mention" data-user-id="${hamletId}">@King Hamlet</span> ` +
          'to be <em>or not</em> <span class="emoji emoji-1f914">:thinking:</span></p>',
        dateSent: new Date('2024-05-01T12:00:00Z'),
      },
      recipients: recipients.map((userId) => ({ userId, trigger: 'mentioned' as const })),
    };
  }

  it('advertises push in server_settings and /register when a provider is configured', async () => {
    const settings = await t.http().get('/api/v1/server_settings');
    expect(settings.body.push_notifications_enabled).toBe(true);
    const reg = await t
      .http()
      .post('/api/v1/register')
      .auth(...(await t.auth('hamlet@zulip.com')))
      .type('form')
      .send({ fetch_event_types: JSON.stringify(['realm']) });
    expect(reg.body.realm_push_notifications_enabled).toBe(true);
    expect(push.enabled).toBe(true);
  });

  it('delivers Zulip’s payloads to the APNs and FCM devices of each recipient', async () => {
    const [apns, fcm] = [apnsToken(), fcmToken()];
    await register('hamlet@zulip.com', 'apns', apns);
    await register('hamlet@zulip.com', 'fcm', fcm);
    await register('othello@zulip.com', 'fcm', fcmToken()); // the sender is not a recipient here

    expect(await push.notifyMessage(mention())).toBe(2);
    await push.whenIdle();

    expect(server.apnsRequests).toHaveLength(1);
    const a = server.apnsRequests[0];
    expect(a).toMatchObject({ token: apns, status: 200 });
    expect(a.headers).toMatchObject({ 'apns-topic': APP_ID, 'apns-push-type': 'alert', 'apns-priority': '10' });
    expect(a.body.aps).toEqual({
      alert: {
        title: '#Verona > push',
        subtitle: 'Othello, the Moor of Venice mentioned you:',
        body: '@King Hamlet to be or not 🤔',
      },
      sound: 'default',
      badge: 0,
    });
    expect(a.body.zulip).toEqual({
      server: 'zulip.testserver',
      realm_id: realm.id,
      realm_uri: realm.url,
      realm_url: realm.url,
      realm_name: 'Zulip Dev',
      user_id: hamletId,
      sender_id: othelloId,
      sender_email: 'othello@zulip.com',
      time: 1714564800,
      recipient_type: 'stream',
      stream: 'Verona',
      stream_id: 3,
      topic: 'push',
      message_ids: [4242],
    });

    expect(server.fcmRequests).toHaveLength(1);
    expect(server.fcmRequests[0]).toMatchObject({ token: fcm, status: 200 });
    expect(server.fcmRequests[0].body.message).toEqual({
      token: fcm,
      android: { priority: 'high' },
      data: {
        server: 'zulip.testserver',
        realm_id: String(realm.id),
        realm_uri: realm.url,
        realm_url: realm.url,
        realm_name: 'Zulip Dev',
        user_id: String(hamletId),
        sender_id: String(othelloId),
        sender_email: 'othello@zulip.com',
        time: '1714564800',
        recipient_type: 'stream',
        stream: 'Verona',
        stream_id: '3',
        topic: 'push',
        event: 'message',
        zulip_message_id: '4242',
        content: '@King Hamlet to be or not 🤔',
        content_truncated: 'False',
        sender_full_name: 'Othello, the Moor of Venice',
        sender_avatar_url: 'https://secure.gravatar.com/avatar/0fbe1a4c0e0a2b8f?d=identicon&version=1',
      },
    });
    expect(push.stats()).toMatchObject({ pending: 0 });
  });

  it('queues nothing for recipients without devices', async () => {
    expect(await push.notifyMessage(mention(1, [othelloId]))).toBe(0);
    expect(await push.notifyMessage({ ...mention(), recipients: [] })).toBe(0);
    expect(server.apnsRequests.length + server.fcmRequests.length).toBe(0);
  });

  it('removes devices whose token the provider reports invalid', async () => {
    const [deadApns, deadFcm, badFcm, goodApns] = [apnsToken(), fcmToken(), fcmToken(), apnsToken()];
    for (const [kind, token] of [
      ['apns', deadApns],
      ['fcm', deadFcm],
      ['fcm', badFcm],
      ['apns', goodApns],
    ] as const) {
      await register('hamlet@zulip.com', kind, token);
    }
    server.failApns(deadApns, { status: 410, reason: 'Unregistered' });
    server.failFcm(deadFcm, { status: 404, errorStatus: 'NOT_FOUND', errorCode: 'UNREGISTERED' });
    server.failFcm(badFcm, {
      status: 400,
      errorStatus: 'INVALID_ARGUMENT',
      errorCode: 'INVALID_ARGUMENT',
      field: 'message.token',
    });

    expect(await push.notifyMessage(mention())).toBe(4);
    await push.whenIdle();

    expect((await devicesOf(hamletId)).map((d) => d.token)).toEqual([goodApns]);
    // One attempt each: a dead token is not retried.
    expect(server.apnsRequests.map((r) => [r.token, r.status])).toEqual(
      expect.arrayContaining([
        [deadApns, 410],
        [goodApns, 200],
      ]),
    );
    expect(server.fcmRequests).toHaveLength(2);
  });

  it('retries failed sends with backoff until they succeed', async () => {
    const [apns, fcm] = [apnsToken(), fcmToken()];
    await register('hamlet@zulip.com', 'apns', apns);
    await register('hamlet@zulip.com', 'fcm', fcm);
    server.failApns(apns, { status: 503, reason: 'ServiceUnavailable', times: 1 });
    server.failFcm(fcm, { status: 500, errorStatus: 'INTERNAL', times: 2 });
    const before = push.stats();

    await push.notifyMessage(mention());
    await push.whenIdle();

    expect(server.apnsRequests.map((r) => r.status)).toEqual([503, 200]);
    expect(server.fcmRequests.map((r) => r.status)).toEqual([500, 500, 200]);
    const after = push.stats();
    expect(after.delivered - before.delivered).toBe(2);
    expect(after.retried - before.retried).toBe(3);
    expect(after.gaveUp - before.gaveUp).toBe(0);
    expect(await devicesOf(hamletId)).toHaveLength(2);
  });

  it('gives up after the maximum number of attempts, logging the device id but never the token', async () => {
    const fcm = fcmToken();
    await register('hamlet@zulip.com', 'fcm', fcm);
    server.failFcm(fcm, { status: 503, errorStatus: 'UNAVAILABLE', errorCode: 'UNAVAILABLE' });
    const [device] = await devicesOf(hamletId);

    await push.notifyMessage(mention());
    await push.whenIdle();

    expect(server.fcmRequests.map((r) => r.status)).toEqual([503, 503, 503]); // PUSH_MAX_ATTEMPTS=3
    const logged = warn.mock.calls.map((c) => String(c[0]));
    expect(logged).toEqual([
      `Giving up on message notification to device ${device.id} (user ${hamletId}) after 3 attempts: FCM: UNAVAILABLE`,
    ]);
    expect([...logged, ...debug.mock.calls.map((c) => String(c[0]))].some((m) => m.includes(fcm))).toBe(false);
    // A provider outage is not the token's fault: the device stays.
    expect(await devicesOf(hamletId)).toHaveLength(1);
  });

  it('waits at least the Retry-After the provider asks for', async () => {
    const fcm = fcmToken();
    await register('hamlet@zulip.com', 'fcm', fcm);
    server.failFcm(fcm, {
      status: 429,
      errorStatus: 'RESOURCE_EXHAUSTED',
      errorCode: 'QUOTA_EXCEEDED',
      retryAfter: '1',
      times: 1,
    });

    await push.notifyMessage(mention());
    await push.whenIdle();

    expect(server.fcmRequests.map((r) => r.status)).toEqual([429, 200]);
    // The retry was scheduled for the provider's second, not the 20 ms backoff.
    const delays = debug.mock.calls
      .map((c) => /^Retrying message notification to device \d+ in (\d+) ms/.exec(String(c[0]))?.[1])
      .filter((d): d is string => d !== undefined)
      .map(Number);
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThanOrEqual(1000);
  });

  it('sends Zulip’s remove notification to every device of the user', async () => {
    const [apns, fcm] = [apnsToken(), fcmToken()];
    await register('hamlet@zulip.com', 'apns', apns);
    await register('hamlet@zulip.com', 'fcm', fcm);

    expect(await push.removeNotifications({ realm, userId: hamletId, messageIds: [12, 10, 11] })).toBe(2);
    await push.whenIdle();

    expect(server.apnsRequests[0].body).toEqual({
      aps: { badge: 0 },
      zulip: expect.objectContaining({ event: 'remove', zulip_message_ids: '10,11,12', user_id: hamletId }),
    });
    expect(server.fcmRequests[0].body.message).toMatchObject({
      android: { priority: 'normal' },
      data: { event: 'remove', zulip_message_ids: '10,11,12', zulip_message_id: '10', user_id: String(hamletId) },
    });
  });

  it('never runs a delivery inside the caller’s transaction', async () => {
    const fcm = fcmToken();
    await register('hamlet@zulip.com', 'fcm', fcm);
    server.failFcm(fcm, { status: 404, errorStatus: 'NOT_FOUND', errorCode: 'UNREGISTERED' });
    // Called (wrongly) from inside a transaction that then rolls back: the device removal made by
    // the delivery still happens, on its own connection.
    await runInTransaction(t.dataSource, async () => {
      await push.notifyMessage(mention());
      throw new Error('rollback');
    }).catch(() => undefined);
    await push.whenIdle();
    expect(await devicesOf(hamletId)).toHaveLength(0);
  });
});

describe('push notification shutdown', () => {
  it('cancels waiting retries and stops cleanly when the app closes', async () => {
    const server = await PushProviderServer.start();
    const t = await startTestApp({ ...server.fcmEnv(), PUSH_RETRY_BASE_MS: '600000', PUSH_RETRY_MAX_MS: '3600000' });
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      const push = t.app.get(PushNotificationsService);
      const token = fcmToken();
      const res = await t
        .http()
        .post('/api/v1/users/me/android_gcm_reg_id')
        .auth(...(await t.auth('hamlet@zulip.com')))
        .type('form')
        .send({ token });
      expect(res.status).toBe(200);
      server.failFcm(token, { status: 503, errorStatus: 'UNAVAILABLE' });
      const realms = t.app.get(RealmService);
      const zulip = (await realms.findByStringId('zulip'))!;
      const hamlet = (
        await t
          .http()
          .get('/api/v1/users/me')
          .auth(...(await t.auth('hamlet@zulip.com')))
      ).body.user_id as number;
      await push.removeNotifications({
        realm: { id: zulip.id, name: zulip.name, url: realms.realmUrl(zulip) },
        userId: hamlet,
        messageIds: [1],
      });
      // The first attempt fails and a retry is scheduled ten minutes out.
      while (push.stats().retried === 0) await new Promise((r) => setTimeout(r, 10));
      expect(push.stats().pending).toBe(1);
    } finally {
      await t.close();
      await server.close();
    }
    expect(server.fcmRequests).toHaveLength(1);
    expect(warn.mock.calls.map((c) => String(c[0]))).toContain('Stopped with 1 push notification undelivered');
    warn.mockRestore();
  });
});
