import { ParsedMail, simpleParser } from 'mailparser';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './jobs';
import { startTestApp, TestApp } from './test-app';

export interface ReceivedMail {
  /** The envelope's recipients. */
  to: string[];
  mail: ParsedMail;
}

/**
 * A real SMTP server (npm smtp-server) on a free loopback port that parses and keeps every mail it
 * receives, for tests of outgoing email. `appEnv()` points a test app at it with the job workers
 * on, as email goes through the job queue.
 */
export class SmtpInbox {
  readonly received: ReceivedMail[] = [];
  private readonly server: SMTPServer;

  private constructor() {
    this.server = new SMTPServer({
      logger: false,
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      onData: (stream, session, cb) => {
        simpleParser(stream).then(
          (mail) => {
            this.received.push({ to: session.envelope.rcptTo.map((r) => r.address), mail });
            cb();
          },
          (err: Error) => cb(err),
        );
      },
    });
  }

  static async start(): Promise<SmtpInbox> {
    const inbox = new SmtpInbox();
    await new Promise<void>((resolve) => inbox.server.listen(0, '127.0.0.1', resolve));
    return inbox;
  }

  /** Environment for startTestApp: send through this server, run the jobs. */
  appEnv(): Record<string, string> {
    return {
      JOBS_WORKERS: 'on',
      JOBS_POLL_INTERVAL_MS: '100',
      EMAIL_HOST: '127.0.0.1',
      EMAIL_PORT: String((this.server.server.address() as AddressInfo).port),
      EMAIL_USE_TLS: 'false',
      NOREPLY_EMAIL_ADDRESS: 'Zulip <noreply@zulip.testserver>',
    };
  }

  /** Waits for the next mail to `address` and takes it out of the inbox. */
  async takeMailTo(address: string, timeoutMs = 20_000): Promise<ParsedMail> {
    const found = await waitFor(async () => this.received.find((m) => m.to.includes(address)), timeoutMs);
    this.received.splice(this.received.indexOf(found), 1);
    return found.mail;
  }

  /** Every mail received so far for `address` (without waiting). */
  mailsTo(address: string): ParsedMail[] {
    return this.received.filter((m) => m.to.includes(address)).map((m) => m.mail);
  }

  close(): Promise<void> {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A test app whose email goes to a fresh SmtpInbox (job workers on, as email goes through the job
 * queue); `env` adds configuration. Closing the app closes the inbox:
 *   beforeAll(async () => ({ t, smtp } = await startTestAppWithInbox()));
 *   afterAll(() => t?.close());
 */
export async function startTestAppWithInbox(
  env: Record<string, string> = {},
): Promise<{ t: TestApp; smtp: SmtpInbox }> {
  const smtp = await SmtpInbox.start();
  let t: TestApp;
  try {
    t = await startTestApp({ ...smtp.appEnv(), ...env });
  } catch (err) {
    await smtp.close();
    throw err;
  }
  const closeApp = t.close;
  t.close = async () => {
    try {
      await closeApp();
    } finally {
      await smtp.close();
    }
  };
  return { t, smtp };
}
