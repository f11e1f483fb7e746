/**
 * Outgoing email through the job queue to a real SMTP server started here (smtp-server, with
 * authentication), each message parsed with mailparser: From/To/Subject and both parts arrive,
 * HTML is escaped, a transient refusal (451) is retried, a permanent one (550) is not.
 */
import { ParsedMail, simpleParser } from 'mailparser';
import { AddressInfo } from 'node:net';
import { SMTPServer, SMTPServerSession } from 'smtp-server';
import { DataSource } from 'typeorm';
import { runInTransaction } from '../../src/database/transaction';
import { EmailService } from '../../src/email/email.service';
import { jobState, waitFor } from '../helpers/jobs';
import { startTestApp, TestApp } from '../helpers/test-app';

interface Received {
  mail: ParsedMail;
  from: string;
  to: string[];
  user: string | undefined;
}

describe('email', () => {
  jest.setTimeout(60_000);
  let smtp: SMTPServer;
  let t: TestApp;
  let emails: EmailService;
  let ds: DataSource;
  const received: Received[] = [];
  /** Recipients refused with 451 this many more times. */
  const transient = new Map<string, number>();

  beforeAll(async () => {
    smtp = new SMTPServer({
      logger: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _session, cb) {
        if (auth.username === 'mailer' && auth.password === 's3cret') cb(null, { user: auth.username });
        else cb(new Error('Invalid username or password'));
      },
      onRcptTo(address, _session, cb) {
        const left = transient.get(address.address) ?? 0;
        if (address.address.startsWith('nobody@')) {
          cb(Object.assign(new Error('No such user here'), { responseCode: 550 }));
        } else if (left > 0) {
          transient.set(address.address, left - 1);
          cb(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        } else cb();
      },
      onData(stream, session: SMTPServerSession, cb) {
        simpleParser(stream).then(
          (mail) => {
            received.push({
              mail,
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              user: session.user as string | undefined,
            });
            cb();
          },
          (err: Error) => cb(err),
        );
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    t = await startTestApp({
      JOBS_WORKERS: 'on',
      JOBS_POLL_INTERVAL_MS: '100',
      EMAIL_HOST: '127.0.0.1',
      EMAIL_PORT: String(port),
      EMAIL_USE_TLS: 'false',
      EMAIL_HOST_USER: 'mailer',
      EMAIL_HOST_PASSWORD: 's3cret',
      NOREPLY_EMAIL_ADDRESS: 'Zulip <noreply@zulip.testserver>',
    });
    emails = t.app.get(EmailService);
    ds = t.dataSource;
  });

  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  const arrivedFor = (address: string) => waitFor(async () => received.find((r) => r.to.includes(address)));

  it('delivers a templated email with text and HTML parts', async () => {
    const id = await emails.send({
      template: 'test',
      context: { serverUrl: 'http://zulip.testserver', requestedBy: 'Iago <script>alert(1)</script> & co' },
      to: 'hamlet@zulip.com',
    });
    expect(id).not.toBeNull();
    const { mail, from, to, user } = await arrivedFor('hamlet@zulip.com');
    expect(user).toBe('mailer');
    expect(from).toBe('noreply@zulip.testserver');
    expect(to).toEqual(['hamlet@zulip.com']);
    expect(mail.from?.value).toEqual([{ address: 'noreply@zulip.testserver', name: 'Zulip' }]);
    const toHeader = Array.isArray(mail.to) ? mail.to : [mail.to];
    expect(toHeader.flatMap((a) => a?.value ?? [])).toEqual([{ address: 'hamlet@zulip.com', name: '' }]);
    expect(mail.subject).toBe('Zulip test email');
    expect(mail.text).toContain('sent at the request of Iago <script>alert(1)</script> & co.');
    expect(mail.text).toContain('-- \nSent by the Zulip server at http://zulip.testserver.');
    const html = mail.html as string;
    expect(html).toContain('<b>Iago &lt;script&gt;alert(1)&lt;/script&gt; &amp; co</b>');
    expect(html).not.toContain('<script>');
    expect(html).toContain('<a href="http://zulip.testserver">');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    // The SMTP server has the message before the worker records the job as completed.
    await waitFor(async () => (await jobState(ds, id!)) === 'completed');
  });

  it('uses a display name and extra headers when given', async () => {
    await emails.send({
      template: 'test',
      context: { serverUrl: 'http://zulip.testserver', requestedBy: 'iago' },
      to: ['othello@zulip.com'],
      fromName: 'Zulip Dev "notifications"',
      replyTo: 'iago@zulip.com',
      headers: { 'List-Unsubscribe': '<http://zulip.testserver/unsubscribe>' },
    });
    const { mail } = await arrivedFor('othello@zulip.com');
    expect(mail.from?.value).toEqual([{ address: 'noreply@zulip.testserver', name: 'Zulip Dev "notifications"' }]);
    expect(mail.replyTo?.value).toEqual([{ address: 'iago@zulip.com', name: '' }]);
    expect(mail.headerLines.find((h) => h.key === 'list-unsubscribe')?.line).toBe(
      'List-Unsubscribe: <http://zulip.testserver/unsubscribe>',
    );
  });

  it('retries after a transient SMTP failure', async () => {
    transient.set('cordelia@zulip.com', 1);
    const id = await emails.send(
      {
        template: 'test',
        context: { serverUrl: 'http://zulip.testserver', requestedBy: 'iago' },
        to: 'cordelia@zulip.com',
      },
      { retry: { delaySeconds: 1 } },
    );
    await arrivedFor('cordelia@zulip.com');
    expect(transient.get('cordelia@zulip.com')).toBe(0);
    await waitFor(async () => (await jobState(ds, id!)) === 'completed');
    const [job] = await ds.query('SELECT retry_count FROM pgboss.job WHERE id = $1', [id]);
    expect(job.retry_count).toBe(1);
    expect(received.filter((r) => r.to.includes('cordelia@zulip.com'))).toHaveLength(1);
  });

  it('gives up at once on a permanent refusal', async () => {
    const id = await emails.send({
      template: 'test',
      context: { serverUrl: 'http://zulip.testserver', requestedBy: 'iago' },
      to: 'nobody@zulip.com',
    });
    await waitFor(async () => (await jobState(ds, id!)) === 'failed');
    const [job] = await ds.query('SELECT retry_count, output FROM pgboss.job WHERE id = $1', [id]);
    expect(job.retry_count).toBe(0);
    expect(job.output.message).toMatch(/550/);
  });

  it('sends nothing when the enqueuing transaction rolls back', async () => {
    await expect(
      runInTransaction(ds, async () => {
        await emails.send({
          template: 'test',
          context: { serverUrl: 'http://zulip.testserver', requestedBy: 'iago' },
          to: 'prospero@zulip.com',
        });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await new Promise((r) => setTimeout(r, 1000));
    expect(received.some((r) => r.to.includes('prospero@zulip.com'))).toBe(false);
  });

  it('sends at once without the queue (the CLI test email), reporting SMTP errors to the caller', async () => {
    const context = { serverUrl: 'http://zulip.testserver', requestedBy: 'send-test-email' };
    await emails.sendNow({ template: 'test', context, to: 'aaron@zulip.com' });
    expect(received.some((r) => r.to.includes('aaron@zulip.com'))).toBe(true);
    await expect(emails.sendNow({ template: 'test', context, to: 'nobody@zulip.com' })).rejects.toThrow(/550/);
  });

  it('refuses malformed addresses before queueing anything', async () => {
    const context = { serverUrl: 'http://zulip.testserver', requestedBy: 'iago' };
    await expect(emails.send({ template: 'test', context, to: 'not an address' })).rejects.toThrow(/invalid recipient/);
    await expect(emails.send({ template: 'test', context, to: 'a@b.c\r\nBcc: x@y.z' })).rejects.toThrow(
      /invalid recipient/,
    );
    await expect(emails.send({ template: 'test', context, to: [] })).rejects.toThrow(/invalid recipient/);
  });
});
