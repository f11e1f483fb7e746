import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import type { EmailConfig } from '../common/config/config';
import { PermanentJobError } from '../jobs/job-kind';

/** A rendered email, ready for the wire. */
export interface OutgoingEmail {
  from: { name: string; address: string };
  to: string[];
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

/** Where emails go: an SMTP server, the development outbox folder, or nowhere (refused). */
export interface EmailTransport {
  readonly kind: 'smtp' | 'outbox' | 'disabled';
  /** Resolves once the email is accepted; throws PermanentJobError when retrying cannot help. */
  deliver(email: OutgoingEmail): Promise<void>;
  close(): void;
}

/** SMTP reply codes 5xx are permanent refusals; anything else (4xx, network) is worth a retry. */
function classify(err: unknown): Error {
  const e = err as { message?: string; responseCode?: number };
  const message = `SMTP: ${e.message ?? String(err)}`;
  if (typeof e.responseCode === 'number' && e.responseCode >= 500) return new PermanentJobError(message);
  return new Error(message);
}

class SmtpTransport implements EmailTransport {
  readonly kind = 'smtp';
  private readonly transporter: Transporter;

  constructor(smtp: NonNullable<EmailConfig['smtp']>) {
    const implicitTls = smtp.useTls && smtp.port === 465;
    this.transporter = createTransport({
      pool: true,
      maxConnections: 2,
      host: smtp.host,
      port: smtp.port,
      secure: implicitTls,
      // EMAIL_USE_TLS as in Zulip (Django): STARTTLS required; off means plain SMTP.
      requireTLS: smtp.useTls && !implicitTls,
      ignoreTLS: !smtp.useTls,
      auth: smtp.user ? { user: smtp.user, pass: smtp.password } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  }

  async deliver(email: OutgoingEmail): Promise<void> {
    try {
      await this.transporter.sendMail(email);
    } catch (err) {
      throw classify(err);
    }
  }

  close(): void {
    this.transporter.close();
  }
}

/** Development without SMTP: each email becomes <dir>/<time>-<to>.eml, .txt and .html, and a log line. */
class OutboxTransport implements EmailTransport {
  readonly kind = 'outbox';
  private readonly composer = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  async deliver(email: OutgoingEmail): Promise<void> {
    const info = (await this.composer.sendMail(email)) as { message: Buffer };
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const to = email.to
      .join(',')
      .replace(/[^A-Za-z0-9@._+-]+/g, '_')
      .slice(0, 80);
    const base = join(this.dir, `${stamp}-${to}-${randomBytes(3).toString('hex')}`);
    await mkdir(this.dir, { recursive: true });
    await Promise.all([
      writeFile(`${base}.eml`, info.message),
      writeFile(`${base}.txt`, email.text),
      writeFile(`${base}.html`, email.html),
    ]);
    this.logger.log(`email "${email.subject}" to ${email.to.join(', ')} written to ${base}.eml (.txt, .html)`);
  }

  close(): void {}
}

/** Production without EMAIL_HOST: nothing can be sent. */
class DisabledTransport implements EmailTransport {
  readonly kind = 'disabled';
  async deliver(): Promise<void> {
    throw new PermanentJobError('outgoing email is not configured (set EMAIL_HOST)');
  }
  close(): void {}
}

export function createEmailTransport(
  config: EmailConfig,
  mode: 'development' | 'production',
  logger: Logger,
): EmailTransport {
  if (config.smtp) return new SmtpTransport(config.smtp);
  return mode === 'development' ? new OutboxTransport(config.outboxDir, logger) : new DisabledTransport();
}
