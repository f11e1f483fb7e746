/**
 * Sending a message pushes it to recipients' phones: the MessageSentEvent subscriber, the
 * notifiability decision on real settings, and delivery to our APNs/FCM stand-in.
 */
import { DomainEventBus } from '../../../src/events/domain-event-bus';
import { PushNotificationsService } from '../../../src/push/push-notifications.service';
import { PushProviderServer } from '../../helpers/push-provider-server';
import { registerQueue } from '../../helpers/events';
import { startTestApp, TestApp } from '../../helpers/test-app';

describe('push notifications for sent messages', () => {
  let server: PushProviderServer;
  let t: TestApp;
  let push: PushNotificationsService;
  let seq = 0;

  beforeAll(async () => {
    server = await PushProviderServer.start();
    t = await startTestApp({ ...server.env(), PUSH_RETRY_BASE_MS: '20', PUSH_MAX_ATTEMPTS: '2' });
    push = t.app.get(PushNotificationsService);
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

  async function fcmDevice(email: string): Promise<string> {
    const token = `fcm-msg-${++seq}:APA91b${'y'.repeat(30)}`;
    const res = await t
      .http()
      .post('/api/v1/users/me/android_gcm_reg_id')
      .auth(...(await t.auth(email)))
      .type('form')
      .send({ token });
    expect(res.status).toBe(200);
    return token;
  }
  async function send(email: string, form: Record<string, string>) {
    const res = await t
      .http()
      .post('/api/v1/messages')
      .auth(...(await t.auth(email)))
      .type('form')
      .send(form);
    expect(res.status).toBe(200);
    // The subscriber runs after commit, off the request; wait for it and for delivery to drain.
    await t.app.get(DomainEventBus).whenIdle();
    await push.whenIdle();
    return res.body.id as number;
  }
  const data = (token: string) =>
    server.fcmRequests
      .filter((r) => r.token === token)
      .map((r) => (r.body as { message: { data: Record<string, string> } }).message.data);

  it('pushes a direct message to the idle recipient, with Zulip’s payload', async () => {
    const token = await fcmDevice('othello@zulip.com');
    const id = await send('hamlet@zulip.com', { type: 'direct', to: '["othello@zulip.com"]', content: 'Hi **there**' });
    const [payload] = data(token);
    expect(payload).toMatchObject({
      event: 'message',
      zulip_message_id: String(id),
      recipient_type: 'private',
      sender_full_name: 'King Hamlet',
      sender_email: 'hamlet@zulip.com',
      content: 'Hi there',
    });
  });

  it('no push for messages from a user the recipient muted', async () => {
    const token = await fcmDevice('othello@zulip.com');
    const hamlet = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE delivery_email = 'hamlet@zulip.com'`,
    );
    const muted = await t
      .http()
      .post(`/api/v1/users/me/muted_users/${hamlet[0].id}`)
      .auth(...(await t.auth('othello@zulip.com')))
      .type('form')
      .send({});
    expect(muted.status).toBe(200);
    await send('hamlet@zulip.com', { type: 'direct', to: '["othello@zulip.com"]', content: 'you muted me' });
    await send('hamlet@zulip.com', {
      type: 'stream',
      to: 'Verona',
      topic: 'push',
      content: '@**Othello, the Moor of Venice** muted mention',
    });
    expect(data(token)).toHaveLength(0);
    await t
      .http()
      .delete(`/api/v1/users/me/muted_users/${hamlet[0].id}`)
      .auth(...(await t.auth('othello@zulip.com')));
    await send('hamlet@zulip.com', { type: 'direct', to: '["othello@zulip.com"]', content: 'unmuted now' });
    expect(data(token)).toHaveLength(1);
  });

  it('pushes a personal mention in a channel, but not an ordinary channel message', async () => {
    const token = await fcmDevice('othello@zulip.com');
    await send('hamlet@zulip.com', { type: 'stream', to: 'Verona', topic: 'push', content: 'no mention here' });
    expect(data(token)).toHaveLength(0);
    await send('hamlet@zulip.com', {
      type: 'stream',
      to: 'Verona',
      topic: 'push',
      content: '@**Othello, the Moor of Venice** look',
    });
    expect(data(token)).toEqual([
      expect.objectContaining({ recipient_type: 'stream', stream: 'Verona', topic: 'push', event: 'message' }),
    ]);
  });

  it('does not push to a user at an active client unless online push is on', async () => {
    const token = await fcmDevice('othello@zulip.com');
    // At a client: an event queue, and active in presence (as every Zulip app reports).
    await registerQueue(t, 'othello@zulip.com');
    await t
      .http()
      .post('/api/v1/users/me/presence')
      .auth(...(await t.auth('othello@zulip.com')))
      .type('form')
      .send({ status: 'active', ping_only: 'true' });
    await t.dataSource.query(
      `UPDATE user_profile SET enable_online_push_notifications = false WHERE delivery_email = 'othello@zulip.com'`,
    );
    // Settings are read at send time, so the change applies at once.
    await send('hamlet@zulip.com', { type: 'direct', to: '["othello@zulip.com"]', content: 'while online' });
    expect(data(token)).toHaveLength(0);
    await t.dataSource.query(
      `UPDATE user_profile SET enable_online_push_notifications = true WHERE delivery_email = 'othello@zulip.com'`,
    );
    await send('hamlet@zulip.com', { type: 'direct', to: '["othello@zulip.com"]', content: 'online push on' });
    expect(data(token)).toHaveLength(1);
  });

  it('never pushes to the sender', async () => {
    const token = await fcmDevice('hamlet@zulip.com');
    await send('hamlet@zulip.com', { type: 'direct', to: '["othello@zulip.com"]', content: 'mine' });
    expect(data(token)).toHaveLength(0);
  });
});
