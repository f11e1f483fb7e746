/**
 * can_access_all_users_group in notifications: a restricted guest notified of a channel message
 * from a sender they may not see (a sender who is not subscribed, sharing nothing with them) is
 * told the sender is Zulip's inaccessible user, as their message feed shows it: the push payload
 * (zerver/lib/push_notifications.py, can_access_sender: sender_email `user<id>@<host>`,
 * sender_full_name "Unknown user", the placeholder avatar; the APNs subtitle likewise) and the
 * missed-message email's sender names.
 *
 * Set-up as in guest-access.e2e-spec.ts: Polonius (guest) leaves Verona and is subscribed to
 * Venice (Desdemona, Prospero, Zoe); Iago is not subscribed to Venice.
 */
import { DomainEventBus } from '../../../src/events/domain-event-bus';
import { Clock } from '../../../src/messaging/clock';
import { MissedMessageEmailsService } from '../../../src/missed-message-emails/missed-message-emails.service';
import { PushNotificationsService } from '../../../src/push/push-notifications.service';
import { waitFor } from '../../helpers/jobs';
import { PushProviderServer } from '../../helpers/push-provider-server';
import { SmtpInbox } from '../../helpers/smtp-inbox';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  addSubscribers,
  call,
  IAGO,
  POLONIUS,
  PROSPERO,
  sendChannel,
  setRealm,
  systemGroupId,
  unsubscribe,
  userId,
} from '../messaging/helpers';

describe('notifications to a restricted guest about a sender they may not see', () => {
  jest.setTimeout(90_000);
  let server: PushProviderServer;
  let smtp: SmtpInbox;
  let t: TestApp;
  let push: PushNotificationsService;
  const id: Record<string, number> = {};
  let everyone: number;
  let members: number;

  const restrict = (on: boolean) => setRealm(t, { can_access_all_users_group: on ? members : everyone });
  const settle = async () => {
    await t.app.get(DomainEventBus).whenIdle();
    await push.whenIdle();
  };

  beforeAll(async () => {
    server = await PushProviderServer.start();
    smtp = await SmtpInbox.start();
    t = await startTestApp({ ...server.env(), ...smtp.appEnv(), PUSH_RETRY_BASE_MS: '20', PUSH_MAX_ATTEMPTS: '2' });
    push = t.app.get(PushNotificationsService);
    for (const e of [POLONIUS, PROSPERO, IAGO]) id[e] = await userId(t, e);
    everyone = await systemGroupId(t, 'role:everyone');
    members = await systemGroupId(t, 'role:members');
    await unsubscribe(t, POLONIUS, 'Verona');
    await addSubscribers(t, 'Venice', [id[POLONIUS]]);
  });
  afterEach(async () => {
    await settle();
    server.reset();
    await t.dataSource.query('DELETE FROM push_device_token');
    await restrict(false);
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
    await smtp?.close();
  });

  async function device(kind: 'fcm' | 'apns'): Promise<string> {
    const token = kind === 'fcm' ? `fcm-guest:APA91b${'g'.repeat(30)}` : 'ab'.repeat(32);
    const path = kind === 'fcm' ? '/api/v1/users/me/android_gcm_reg_id' : '/api/v1/users/me/apns_device_token';
    const form: Record<string, string> = { token };
    if (kind === 'apns') form.appid = 'org.zulip.Zulip';
    const res = await t
      .http()
      .post(path)
      .auth(...(await t.auth(POLONIUS)))
      .type('form')
      .send(form);
    expect(res.status).toBe(200);
    return token;
  }
  const fcmData = (token: string) =>
    server.fcmRequests
      .filter((r) => r.token === token)
      .map((r) => (r.body as { message: { data: Record<string, string> } }).message.data);

  it('push payloads name an inaccessible sender "Unknown user" (FCM and APNs), a peer by name', async () => {
    const fcm = await device('fcm');
    await device('apns');
    await restrict(true);
    const fromIago = await sendChannel(t, IAGO, 'Venice', 'guests', '@**Polonius** a word from outside');
    await settle();
    const [payload] = fcmData(fcm);
    expect(payload).toMatchObject({
      event: 'message',
      zulip_message_id: String(fromIago),
      recipient_type: 'stream',
      stream: 'Venice',
      sender_id: String(id[IAGO]),
      sender_email: `user${id[IAGO]}@zulip.testserver`,
      sender_full_name: 'Unknown user',
      sender_avatar_url: 'http://zulip.testserver/static/images/unknown-user-avatar.png',
    });
    expect(JSON.stringify(server.fcmRequests)).not.toContain('Iago');
    const apns = server.apnsRequests.map(
      (r) => r.body as { aps: { alert: { subtitle: string } }; zulip: { sender_email: string } },
    );
    expect(apns).toHaveLength(1);
    expect(apns[0].aps.alert.subtitle).toBe('Unknown user mentioned you:');
    expect(apns[0].zulip.sender_email).toBe(`user${id[IAGO]}@zulip.testserver`);
    expect(JSON.stringify(server.apnsRequests)).not.toContain('Iago');

    // A subscriber of Venice shares the channel with the guest: shown as themselves.
    server.reset();
    await sendChannel(t, PROSPERO, 'Venice', 'guests', '@**Polonius** a word from a peer');
    await settle();
    expect(fcmData(fcm)[0]).toMatchObject({
      sender_email: 'prospero@zulip.com',
      sender_full_name: expect.not.stringMatching(/Unknown user/),
    });

    // Unrestricted, the guest sees Iago.
    server.reset();
    await restrict(false);
    await sendChannel(t, IAGO, 'Venice', 'guests', '@**Polonius** again');
    await settle();
    expect(fcmData(fcm)[0]).toMatchObject({ sender_full_name: 'Iago', sender_email: 'iago@zulip.com' });
  });

  it('a missed-message email names an inaccessible sender "Unknown user"', async () => {
    await t.dataSource.query('DELETE FROM missed_message_email');
    await restrict(true);
    await sendChannel(t, IAGO, 'Venice', 'email', '@**Polonius** from outside');
    await sendChannel(t, PROSPERO, 'Venice', 'email', '@**Polonius** from a peer');
    await settle();
    t.app.get(Clock).advance(3600 * 1000);
    await t.app.get(MissedMessageEmailsService).sendDue();
    await waitFor(async () => {
      const rows = await t.dataSource.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'email' AND state IN ('created', 'retry', 'active')`,
      );
      return rows[0].n === 0 ? true : undefined;
    }, 20_000);
    // The SMTP server parses what it received asynchronously (slowly on a loaded machine).
    const mails = await waitFor(async () => {
      const got = smtp.mailsTo('polonius@zulip.com');
      return got.length > 0 ? got : undefined;
    }, 20_000);
    expect(mails).toHaveLength(1);
    const prospero = (await call(t, 'get', `/users/${id[PROSPERO]}`, POLONIUS)).body.user.full_name as string;
    expect(mails[0].text).toContain('Unknown user:\n@**Polonius** from outside');
    expect(mails[0].text).toContain(`${prospero}:\n@**Polonius** from a peer`);
    expect(`${mails[0].text}${mails[0].html}`).not.toContain('Iago');
  });
});
