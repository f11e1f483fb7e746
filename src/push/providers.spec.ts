import { generateKeyPairSync } from 'node:crypto';
import { loadConfig } from '../common/config/config';
import { APNS_KEY_ID, APNS_TEAM_ID, PushProviderServer } from '../../test/helpers/push-provider-server';
import { ApnsProvider } from './apns.provider';
import { FcmProvider } from './fcm.provider';
import { DeviceKind } from './push-device.entity';
import { removeNotification } from './push-payloads';
import type { PushTarget } from './push-provider';

const payload = removeNotification(
  { serverHost: 'zulip.testserver', emptyTopicName: 'general chat' },
  { id: 2, name: 'Zulip Dev', url: 'http://zulip.testserver' },
  10,
  [1, 2],
);
const apnsDevice = (token: string): PushTarget => ({
  id: '7',
  userId: 10,
  kind: DeviceKind.APNS,
  token,
  iosAppId: 'org.zulip.Zulip',
});
const fcmDevice = (token: string): PushTarget => ({ id: '8', userId: 10, kind: DeviceKind.FCM, token, iosAppId: null });

describe('push providers against our provider server', () => {
  let server: PushProviderServer;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    server = await PushProviderServer.start();
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
    const problems = [...server.problems];
    server.reset();
    expect(problems).toEqual([]);
  });
  afterAll(() => server.close());

  const config = (extra: Record<string, string> = {}) =>
    loadConfig({ SECRET_KEY: 'x'.repeat(40), DATA_DIR: '/tmp', ...server.env(), ...extra }).push;
  function apns(now?: () => number) {
    const p = new ApnsProvider(config().apns!, { requestTimeoutMs: 2000, now });
    closers.push(() => p.close());
    return p;
  }
  function fcm(now?: () => number, extra: Record<string, string> = {}) {
    const p = new FcmProvider(config(extra).fcm!, { requestTimeoutMs: 2000, now });
    closers.push(() => p.close());
    return p;
  }

  describe('APNs', () => {
    it('sends over HTTP/2 with the provider token and Apple’s headers', async () => {
      const p = apns();
      expect(await p.send(apnsDevice('aa11'), payload)).toEqual({ outcome: 'delivered' });
      expect(await p.send(apnsDevice('bb22'), payload)).toEqual({ outcome: 'delivered' });
      const [first, second] = server.apnsRequests;
      expect(first.token).toBe('aa11');
      expect(first.headers).toMatchObject({
        'apns-topic': 'org.zulip.Zulip',
        'apns-push-type': 'alert',
        'apns-priority': '10',
        'content-type': 'application/json',
      });
      expect(Number(first.headers['apns-expiration'])).toBeGreaterThan(Date.now() / 1000 + 86000);
      expect(first.body).toEqual(payload.apns.body);
      const [header] = first.headers.authorization.slice('bearer '.length).split('.');
      expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'ES256', kid: APNS_KEY_ID });
      // The token is cached…
      expect(second.headers.authorization).toBe(first.headers.authorization);
      expect(APNS_TEAM_ID).toBeTruthy();
    });

    it('re-signs its provider token after 50 minutes', async () => {
      let now = Date.now() - 55 * 60 * 1000;
      const p = apns(() => now);
      const before = p.providerToken();
      now += 49 * 60 * 1000;
      expect(p.providerToken()).toBe(before);
      now += 6 * 60 * 1000;
      expect(p.providerToken()).not.toBe(before);
      expect(await p.send(apnsDevice('cc33'), payload)).toEqual({ outcome: 'delivered' });
    });

    it.each([
      [410, 'Unregistered', { outcome: 'invalid_token', reason: 'Unregistered' }],
      [400, 'BadDeviceToken', { outcome: 'invalid_token', reason: 'BadDeviceToken' }],
      [400, 'DeviceTokenNotForTopic', { outcome: 'invalid_token', reason: 'DeviceTokenNotForTopic' }],
      [400, 'PayloadTooLarge', { outcome: 'failed', reason: 'PayloadTooLarge' }],
      [403, 'InvalidProviderToken', { outcome: 'failed', reason: 'InvalidProviderToken' }],
      [429, 'TooManyRequests', { outcome: 'retry', reason: 'TooManyRequests' }],
      [500, 'InternalServerError', { outcome: 'retry', reason: 'InternalServerError' }],
      [503, undefined, { outcome: 'retry', reason: 'HTTP 503' }],
    ])('maps HTTP %s %s', async (status, reason, expected) => {
      server.failApns('dd44', { status, reason });
      expect(await apns().send(apnsDevice('dd44'), payload)).toEqual(expected);
    });

    it('passes Retry-After on, and signs a new token after ExpiredProviderToken', async () => {
      const p = apns();
      server.failApns('ee55', { status: 429, reason: 'TooManyRequests', retryAfter: '3', times: 1 });
      expect(await p.send(apnsDevice('ee55'), payload)).toEqual({
        outcome: 'retry',
        reason: 'TooManyRequests',
        retryAfterMs: 3000,
      });
      const before = p.providerToken();
      server.failApns('ee55', { status: 403, reason: 'ExpiredProviderToken', times: 1 });
      expect(await p.send(apnsDevice('ee55'), payload)).toMatchObject({ outcome: 'retry' });
      await new Promise((r) => setTimeout(r, 1100)); // iat has one-second resolution
      expect(p.providerToken()).not.toBe(before);
    });

    it('reconnects after the connection is lost', async () => {
      const p = apns();
      expect(await p.send(apnsDevice('ff66'), payload)).toEqual({ outcome: 'delivered' });
      server.dropApnsConnections();
      // A send racing the close may fail (and would be retried); the next one uses a new connection.
      let result = await p.send(apnsDevice('ff66'), payload);
      if (result.outcome === 'retry') result = await p.send(apnsDevice('ff66'), payload);
      expect(result).toEqual({ outcome: 'delivered' });
    });

    it('retries when the server is unreachable', async () => {
      const other = await PushProviderServer.start();
      await other.close();
      const p = new ApnsProvider({ ...config().apns!, url: other.apnsUrl }, { requestTimeoutMs: 2000 });
      closers.push(() => p.close());
      expect(await p.send(apnsDevice('ff66'), payload)).toMatchObject({ outcome: 'retry' });
    });

    it('refuses a device without an app id', async () => {
      expect(await apns().send({ ...apnsDevice('aa'), iosAppId: null }, payload)).toMatchObject({ outcome: 'failed' });
    });
  });

  describe('FCM', () => {
    it('exchanges the service-account assertion once and sends data-only messages', async () => {
      const p = fcm();
      server.accessTokens.length = 0;
      const results = await Promise.all(['t1', 't2', 't3'].map((t) => p.send(fcmDevice(t), payload)));
      expect(results).toEqual(Array(3).fill({ outcome: 'delivered' }));
      expect(server.accessTokens).toHaveLength(1);
      expect(server.fcmRequests.map((r) => r.token).sort()).toEqual(['t1', 't2', 't3']);
      expect(server.fcmRequests[0].body).toEqual({
        message: { token: server.fcmRequests[0].token, data: payload.fcm.data, android: { priority: 'normal' } },
      });
    });

    it('fetches a new access token when the cached one expires or is refused', async () => {
      // Google checks iat against its clock, so the fake clock starts in the past and catches up.
      let now = Date.now() - 3540_000;
      const p = fcm(() => now);
      server.accessTokens.length = 0;
      await p.send(fcmDevice('t1'), payload);
      now += 3000_000;
      await p.send(fcmDevice('t1'), payload);
      expect(server.accessTokens).toHaveLength(1);
      now += 540_000; // 60 s before the token's expiry
      await p.send(fcmDevice('t1'), payload);
      expect(server.accessTokens).toHaveLength(2);
      server.accessTokens.length = 0; // the server forgets its tokens: 401
      const result = await p.send(fcmDevice('t1'), payload);
      expect(result).toMatchObject({ outcome: 'retry', reason: 'UNAUTHENTICATED' });
      server.problems.length = 0;
      expect(await p.send(fcmDevice('t1'), payload)).toEqual({ outcome: 'delivered' });
    });

    it.each([
      [{ status: 404, errorStatus: 'NOT_FOUND', errorCode: 'UNREGISTERED' }, 'invalid_token'],
      [
        { status: 400, errorStatus: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT', field: 'message.token' },
        'invalid_token',
      ],
      [
        {
          status: 400,
          errorStatus: 'INVALID_ARGUMENT',
          message: 'The registration token is not a valid FCM registration token',
        },
        'invalid_token',
      ],
      [{ status: 400, errorStatus: 'INVALID_ARGUMENT', message: 'Invalid value at message.data' }, 'failed'],
      [{ status: 403, errorStatus: 'PERMISSION_DENIED', errorCode: 'SENDER_ID_MISMATCH' }, 'failed'],
      [{ status: 429, errorStatus: 'RESOURCE_EXHAUSTED', errorCode: 'QUOTA_EXCEEDED', retryAfter: '7' }, 'retry'],
      [{ status: 503, errorStatus: 'UNAVAILABLE', errorCode: 'UNAVAILABLE' }, 'retry'],
      [{ status: 500, errorStatus: 'INTERNAL', errorCode: 'INTERNAL' }, 'retry'],
    ])('maps %j to %s', async (failure, outcome) => {
      server.failFcm('bad', failure);
      const result = await fcm().send(fcmDevice('bad'), payload);
      expect(result.outcome).toBe(outcome);
      if ('retryAfter' in failure) expect(result).toMatchObject({ retryAfterMs: 7000 });
    });

    it('fails (without retrying) when the token endpoint refuses the credentials', async () => {
      const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      }) as string;
      const creds = { ...JSON.parse(server.env().FCM_CREDENTIALS), private_key: otherKey };
      const result = await fcm(undefined, { FCM_CREDENTIALS: JSON.stringify(creds) }).send(fcmDevice('t1'), payload);
      expect(result).toEqual({ outcome: 'failed', reason: 'token endpoint: invalid_grant' });
      expect(server.problems).toEqual(['FCM token: bad signature']);
      server.problems.length = 0;
    });

    it('retries when FCM is unreachable', async () => {
      const other = await PushProviderServer.start();
      await other.close();
      const result = await fcm(undefined, { FCM_URL: other.fcmUrl }).send(fcmDevice('t1'), payload);
      expect(result).toMatchObject({ outcome: 'retry' });
    });
  });
});
