/**
 * Missed-message emails (Zulip's maybe_enqueue_notifications, MissedMessageWorker and
 * handle_missedmessage_emails; test_message_notification_emails.py): messages for users who are
 * away are batched per user for `email_notifications_batching_period_seconds` and sent as one
 * email through the job queue to a real SMTP server; read or deleted messages are left out; the
 * unsubscribe link turns the emails off. Time is messaging's injectable Clock.
 */
import { DomainEventBus } from '../../../src/events/domain-event-bus';
import { Clock } from '../../../src/messaging/clock';
import { MissedMessageEmailsService } from '../../../src/missed-message-emails/missed-message-emails.service';
import { waitFor } from '../../helpers/jobs';
import { SmtpInbox, startTestAppWithInbox } from '../../helpers/smtp-inbox';
import type { TestApp } from '../../helpers/test-app';
import {
  call,
  openQueue,
  sendChannel,
  sendDirect,
  setRealm,
  subscribe,
  takeEvents,
  userId,
} from '../messaging/helpers';

describe('missed-message emails', () => {
  jest.setTimeout(90_000);
  let smtp: SmtpInbox;
  let t: TestApp;

  beforeAll(async () => ({ t, smtp } = await startTestAppWithInbox()));
  afterAll(() => t?.close());

  const settle = () => t.app.get(DomainEventBus).whenIdle();
  const advance = (seconds: number) => t.app.get(Clock).advance(seconds * 1000);
  /** Runs a sending pass now and waits until every queued email job has been handled. */
  const drain = async () => {
    await settle();
    await t.app.get(MissedMessageEmailsService).sendDue();
    await waitFor(async () => {
      const rows = await t.dataSource.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'email' AND state IN ('created', 'retry', 'active')`,
      );
      return rows[0].n === 0 ? true : undefined;
    }, 20_000);
    // The SMTP server parses what it received asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 200));
  };
  const mailsTo = (address: string) => smtp.mailsTo(address);
  const pending = async (email: string) => {
    const rows = await t.dataSource.query<Array<{ message_id: number }>>(
      `SELECT e.message_id FROM missed_message_email e JOIN user_profile u ON u.id = e.user_profile_id
        WHERE u.delivery_email = $1 ORDER BY e.message_id`,
      [email],
    );
    return rows.map((r) => r.message_id);
  };
  const fullName = async (email: string) =>
    (
      await t.dataSource.query<Array<{ full_name: string }>>(
        `SELECT full_name FROM user_profile WHERE delivery_email = $1`,
        [email],
      )
    )[0].full_name;

  let unsubscribeLink = '';

  it('batches two direct messages of one period into one email, once', async () => {
    const othello = await userId(t, 'othello@zulip.com');
    const hamlet = await userId(t, 'hamlet@zulip.com');
    const first = await sendDirect(t, 'othello@zulip.com', [hamlet], 'First **missed** message');
    await settle();
    advance(60);
    const second = await sendDirect(t, 'othello@zulip.com', [hamlet], 'Second missed message');
    await settle();
    expect(await pending('hamlet@zulip.com')).toEqual([first, second]);

    // The period (120 s by default) runs from the first message: not due yet.
    advance(59);
    await drain();
    expect(mailsTo('hamlet@zulip.com')).toHaveLength(0);

    advance(2);
    // Two passes at once (two processes): one email.
    await Promise.all([
      t.app.get(MissedMessageEmailsService).sendDue(),
      t.app.get(MissedMessageEmailsService).sendDue(),
    ]);
    await drain();
    const mails = mailsTo('hamlet@zulip.com');
    expect(mails).toHaveLength(1);
    const mail = mails[0];
    const othelloName = await fullName('othello@zulip.com');
    expect(mail.subject).toBe(`DMs with ${othelloName}`);
    expect(mail.from?.value[0]).toEqual({ name: 'Zulip notifications', address: 'noreply@zulip.testserver' });
    expect(mail.replyTo?.value[0].address).toBe('noreply@zulip.testserver');
    expect(mail.text).toContain(`You and ${othelloName}`);
    expect(mail.text).toContain(`${othelloName}:\nFirst **missed** message`);
    expect(mail.text).toContain('Second missed message');
    expect(mail.text).toContain(`http://zulip.testserver/#narrow/dm/${othello}-dm`);
    expect(mail.html).toContain('<strong>missed</strong>');
    expect(mail.html).toContain(`href="http://zulip.testserver/#narrow/dm/${othello}-dm"`);
    const match = /http:\/\/zulip\.testserver(\/accounts\/unsubscribe\/missed_messages\/[0-9.A-Za-z_-]+)/.exec(
      mail.text ?? '',
    );
    expect(match).not.toBeNull();
    unsubscribeLink = match![1];
    const listUnsubscribe = mail.headerLines.find((h) => h.key === 'list-unsubscribe');
    expect(listUnsubscribe?.line).toContain(unsubscribeLink);
    expect(await pending('hamlet@zulip.com')).toEqual([]);
  });

  it('the unsubscribe link turns the emails off (with its event), and only for its user', async () => {
    const q = await openQueue(t, 'hamlet@zulip.com', ['user_settings']);
    const page = await t.http().get(unsubscribeLink);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('unsubscribed from missed-message emails');
    expect(await takeEvents(t, q)).toContainEqual({
      type: 'user_settings',
      op: 'update',
      property: 'enable_offline_email_notifications',
      value: false,
    });
    const rows = await t.dataSource.query<Array<{ on: boolean }>>(
      `SELECT enable_offline_email_notifications AS on FROM user_profile WHERE delivery_email = 'hamlet@zulip.com'`,
    );
    expect(rows[0].on).toBe(false);
    // Opening it again is harmless.
    expect((await t.http().get(unsubscribeLink)).status).toBe(200);
    // A forged or altered link is refused.
    const forged = unsubscribeLink.replace(/\.[A-Za-z0-9_-]{32}$/, '.' + 'A'.repeat(32));
    expect((await t.http().get(forged)).status).toBe(404);
    expect((await t.http().get('/accounts/unsubscribe/digest/1.1.' + 'A'.repeat(32))).status).toBe(404);
    expect((await t.http().get('/accounts/unsubscribe/missed_messages/junk')).status).toBe(404);

    // No more emails for direct messages to hamlet.
    await sendDirect(t, 'othello@zulip.com', [await userId(t, 'hamlet@zulip.com')], 'After unsubscribing');
    await settle();
    expect(await pending('hamlet@zulip.com')).toEqual([]);
  });

  it('leaves out messages read before the period ends (no email when none is left)', async () => {
    const cordelia = await userId(t, 'cordelia@zulip.com');
    const id = await sendDirect(t, 'othello@zulip.com', [cordelia], 'Read it soon');
    await settle();
    expect(await pending('cordelia@zulip.com')).toEqual([id]);
    const res = await call(t, 'post', '/messages/flags', 'cordelia@zulip.com', {
      messages: [id],
      op: 'add',
      flag: 'read',
    });
    expect(res.status).toBe(200);
    advance(121);
    await drain();
    expect(mailsTo('cordelia@zulip.com')).toHaveLength(0);
    expect(await pending('cordelia@zulip.com')).toEqual([]);
  });

  it('a deleted message takes its pending row along', async () => {
    const cordelia = await userId(t, 'cordelia@zulip.com');
    const id = await sendDirect(t, 'othello@zulip.com', [cordelia], 'Deleted soon');
    await settle();
    expect(await pending('cordelia@zulip.com')).toEqual([id]);
    expect((await call(t, 'delete', `/messages/${id}`, 'othello@zulip.com')).status).toBe(200);
    expect(await pending('cordelia@zulip.com')).toEqual([]);
    advance(121);
    await drain();
    expect(mailsTo('cordelia@zulip.com')).toHaveLength(0);
  });

  it('sends nothing when the setting is off, the sender is muted, or the user is online', async () => {
    const prospero = await userId(t, 'prospero@zulip.com');
    expect(
      (await call(t, 'patch', '/settings', 'prospero@zulip.com', { enable_offline_email_notifications: false })).status,
    ).toBe(200);
    await sendDirect(t, 'othello@zulip.com', [prospero], 'Setting off');

    const aaron = await userId(t, 'AARON@zulip.com');
    const othello = await userId(t, 'othello@zulip.com');
    expect((await call(t, 'post', `/users/me/muted_users/${othello}`, 'AARON@zulip.com')).status).toBe(200);
    await sendDirect(t, 'othello@zulip.com', [aaron], 'Muted sender');

    // Online: an event queue and recent activity in presence.
    const iago = await userId(t, 'iago@zulip.com');
    await openQueue(t, 'iago@zulip.com', ['message']);
    expect((await call(t, 'post', '/users/me/presence', 'iago@zulip.com', { status: 'active' })).status).toBe(200);
    await sendDirect(t, 'othello@zulip.com', [iago], 'You are online');

    // A bot never gets one; the sender never gets one for their own message.
    await settle();
    expect(await pending('prospero@zulip.com')).toEqual([]);
    expect(await pending('AARON@zulip.com')).toEqual([]);
    expect(await pending('iago@zulip.com')).toEqual([]);
    expect(await pending('othello@zulip.com')).toEqual([]);
    advance(121);
    await drain();
    expect(mailsTo('prospero@zulip.com')).toHaveLength(0);
    expect(mailsTo('AARON@zulip.com')).toHaveLength(0);
    expect(mailsTo('iago@zulip.com')).toHaveLength(0);
  });

  it('emails mentions and channels with email notifications on, with channel and topic headers', async () => {
    await subscribe(t, 'shiva@zulip.com', 'Verona');
    const shiva = await userId(t, 'shiva@zulip.com');
    const shivaName = await fullName('shiva@zulip.com');
    // A plain channel message: channel email notifications are off by default.
    await sendChannel(t, 'othello@zulip.com', 'Verona', 'lunch', 'Nothing for shiva');
    await settle();
    expect(await pending('shiva@zulip.com')).toEqual([]);
    const mention = await sendChannel(t, 'othello@zulip.com', 'Verona', 'lunch', `Hi @**${shivaName}|${shiva}**`);
    await settle();
    expect(await pending('shiva@zulip.com')).toEqual([mention]);
    advance(121);
    await drain();
    const mails = mailsTo('shiva@zulip.com');
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('#Verona > lunch');
    expect(mails[0].text).toContain('#Verona > lunch');
    expect(mails[0].text).toMatch(/http:\/\/zulip\.testserver\/#narrow\/channel\/\d+-Verona\/topic\/lunch/);
    expect(mails[0].html).toMatch(/href="http:\/\/zulip\.testserver\/#narrow\/channel\/\d+-Verona"/);

    // The channel's email_notifications override: every message of the channel.
    const verona = (await call(t, 'get', '/get_stream_id', 'shiva@zulip.com', { stream: 'Verona' })).body as {
      stream_id: number;
    };
    expect(
      (
        await call(t, 'post', '/users/me/subscriptions/properties', 'shiva@zulip.com', {
          subscription_data: [{ stream_id: verona.stream_id, property: 'email_notifications', value: true }],
        })
      ).status,
    ).toBe(200);
    const plain = await sendChannel(t, 'othello@zulip.com', 'Verona', 'dinner', 'Channel email on');
    await settle();
    expect(await pending('shiva@zulip.com')).toEqual([plain]);
    advance(121);
    await drain();
    expect(mailsTo('shiva@zulip.com')).toHaveLength(2);
    expect(mailsTo('shiva@zulip.com')[1].subject).toBe('#Verona > dinner');
  });

  it('keeps the content out when the user or the organization says so', async () => {
    const zoe = await userId(t, 'ZOE@zulip.com');
    expect(
      (await call(t, 'patch', '/settings', 'ZOE@zulip.com', { message_content_in_email_notifications: false })).status,
    ).toBe(200);
    await sendDirect(t, 'othello@zulip.com', [zoe], 'Secret words for zoe');
    await settle();
    advance(121);
    await drain();
    const [mail] = mailsTo('ZOE@zulip.com');
    expect(mail.subject).toBe('New messages');
    expect(mail.text).not.toContain('Secret words');
    expect(mail.html).not.toContain('Secret words');
    expect(mail.text).toContain('you have disabled message content');
    expect(mail.text).toContain('/accounts/unsubscribe/missed_messages/');

    await setRealm(t, { message_content_allowed_in_email_notifications: false });
    const desdemona = await userId(t, 'desdemona@zulip.com');
    await sendDirect(t, 'othello@zulip.com', [desdemona], 'Secret words for desdemona');
    await settle();
    advance(121);
    await drain();
    const [other] = mailsTo('desdemona@zulip.com');
    expect(other.subject).toBe('New messages');
    expect(other.text).not.toContain('Secret words');
    expect(other.text).toContain('your organization has disabled message content');
    await setRealm(t, { message_content_allowed_in_email_notifications: true });
  });

  it('group direct messages; a queue without recent presence activity still counts as away', async () => {
    const cordelia = await userId(t, 'cordelia@zulip.com');
    const desdemona = await userId(t, 'desdemona@zulip.com');
    const othello = await userId(t, 'othello@zulip.com');
    await openQueue(t, 'cordelia@zulip.com', ['message']);
    await sendDirect(t, 'othello@zulip.com', [cordelia, desdemona], 'To both of you');
    await settle();
    advance(121);
    await drain();
    const [mail] = mailsTo('cordelia@zulip.com');
    const others = [othello, desdemona].sort((a, b) => a - b);
    const names = await Promise.all(
      others.map((id) => fullName(id === othello ? 'othello@zulip.com' : 'desdemona@zulip.com')),
    );
    expect(mail.subject).toBe(`Group DMs with ${names[0]} and ${names[1]}`);
    expect(mail.text).toContain(`http://zulip.testserver/#narrow/dm/${others.join(',')}-group`);
  });

  it('uses the user batching period', async () => {
    const polonius = await userId(t, 'polonius@zulip.com');
    expect(
      (await call(t, 'patch', '/settings', 'polonius@zulip.com', { email_notifications_batching_period_seconds: 600 }))
        .status,
    ).toBe(200);
    await sendDirect(t, 'othello@zulip.com', [polonius], 'Slow batch');
    await settle();
    advance(300);
    await drain();
    expect(mailsTo('polonius@zulip.com')).toHaveLength(0);
    advance(301);
    await drain();
    expect(mailsTo('polonius@zulip.com')).toHaveLength(1);
  });
});
