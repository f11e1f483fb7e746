import { PushNotificationsService } from '../../../src/push/push-notifications.service';
import { PushProviderServer } from '../../helpers/push-provider-server';
import { startTestApp, TestApp } from '../../helpers/test-app';

/** What clients are told about push: on exactly when a provider is configured. */
async function advertised(t: TestApp) {
  const settings = await t.http().get('/api/v1/server_settings');
  expect(settings.status).toBe(200);
  const reg = await t
    .http()
    .post('/api/v1/register')
    .auth(...(await t.auth('hamlet@zulip.com')))
    .type('form')
    .send({ fetch_event_types: JSON.stringify(['realm']) });
  expect(reg.status).toBe(200);
  return {
    server: settings.body.push_notifications_enabled as boolean,
    realm: reg.body.realm_push_notifications_enabled as boolean,
    endTimestamp: reg.body.realm_push_notifications_enabled_end_timestamp as unknown,
  };
}

describe('push notifications enabled', () => {
  it('is false with no provider configured, and nothing is queued', async () => {
    const t = await startTestApp();
    try {
      expect(await advertised(t)).toEqual({ server: false, realm: false, endTimestamp: null });
      const push = t.app.get(PushNotificationsService);
      expect(push.enabled).toBe(false);
      const queued = await push.notifyMessage({
        realm: { id: 1, name: 'Zulip Dev', url: 'http://zulip.testserver' },
        message: {
          id: 1,
          sender: { id: 1, email: 'a@zulip.com', fullName: 'A', avatarUrl: '/a' },
          recipient: { type: 'direct', participants: [] },
          content: 'hi',
          dateSent: 0,
        },
        recipients: [{ userId: 2, trigger: 'direct_message' }],
      });
      expect(queued).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('is true with only one provider (APNs) configured', async () => {
    const server = await PushProviderServer.start();
    const t = await startTestApp(server.apnsEnv());
    try {
      expect(await advertised(t)).toEqual({ server: true, realm: true, endTimestamp: null });
    } finally {
      await t.close();
      await server.close();
    }
  });
});
