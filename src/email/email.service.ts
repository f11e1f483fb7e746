import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { defineJobKind, EnqueueOptions, PermanentJobError } from '../jobs/job-kind';
import { JobsService } from '../jobs/jobs.service';
import { EMAIL_TEMPLATES, EmailContext, EmailTemplateName } from './email-templates';
import { createEmailTransport, EmailTransport } from './email-transport';
import { EmailTemplate, renderEmail } from './templates/layout';

/** An email to send: a template, its context, and the envelope. */
export interface EmailMessage<N extends EmailTemplateName> {
  template: N;
  context: EmailContext<N>;
  to: string | string[];
  /** Display name for the From line (the address is always NOREPLY_EMAIL_ADDRESS). */
  fromName?: string;
  replyTo?: string;
  /** Extra headers, e.g. List-Unsubscribe. */
  headers?: Record<string, string>;
}

/** What an `email` job carries: the template is rendered when the job runs. */
interface EmailJob {
  template: string;
  context: object;
  to: string[];
  fromName?: string;
  replyTo?: string;
  headers?: Record<string, string>;
}

/**
 * Outgoing email goes through the job queue: retried with backoff when the SMTP server fails
 * (4xx, connection errors), given up at once on a permanent refusal (5xx).
 */
export const EMAIL_JOB = defineJobKind<EmailJob>('email', {
  retryLimit: 5,
  retryDelaySeconds: 10,
  retryBackoff: true,
  expireInSeconds: 120,
});

const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && ADDRESS.test(value);
}

function parseAddress(value: string): { name: string; address: string } {
  const m = /^\s*"?([^"<>]*?)"?\s*<([^<>]+)>\s*$/.exec(value);
  return m ? { name: m[1], address: m[2] } : { name: '', address: value.trim() };
}

/**
 * Sends email from templates (src/email/templates): queues an `email` job, which renders the
 * template and hands it to SMTP — or, in development with no EMAIL_HOST, writes it under
 * `.data/emails/` and logs where. In production with no EMAIL_HOST nothing is queued and each
 * refused email is logged as an error.
 */
@Injectable()
export class EmailService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Email');
  private readonly transport: EmailTransport;
  private readonly from: { name: string; address: string };

  constructor(
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.transport = createEmailTransport(config.email, config.mode, this.logger);
    this.from = parseAddress(config.email.noreplyAddress);
  }

  /** False in production without EMAIL_HOST: features may refuse what needs an email. */
  get canSend(): boolean {
    return this.transport.kind !== 'disabled';
  }

  onModuleInit(): void {
    this.jobs.register(EMAIL_JOB, (job) => this.deliver(job));
    if (this.transport.kind === 'disabled') {
      this.logger.error('EMAIL_HOST is not set: outgoing email is disabled in production (emails are refused)');
    } else if (this.transport.kind === 'outbox') {
      this.logger.log(`no EMAIL_HOST: emails are written to ${this.config.email.outboxDir}`);
    }
  }

  /** After the job queue has drained (it stops in onModuleDestroy). */
  onApplicationShutdown(): void {
    this.transport.close();
  }

  /**
   * Queues an email (inside the caller's transaction, if any). Returns the job id, or null when
   * email is disabled (logged). Addresses must be valid: check user input before calling.
   */
  /**
   * Renders and sends at once, without the queue (the admin CLI's send-test-email, which must
   * report SMTP errors to the person at the terminal). Throws what the transport throws.
   */
  async sendNow<N extends EmailTemplateName>(message: EmailMessage<N>): Promise<void> {
    await this.deliver(this.toJob(message));
  }

  async send<N extends EmailTemplateName>(
    message: EmailMessage<N>,
    options: Pick<EnqueueOptions, 'runAt' | 'retry'> = {},
  ): Promise<string | null> {
    const job = this.toJob(message);
    if (!this.canSend) {
      this.logger.error(`email "${job.template}" to ${job.to.length} recipient(s) refused: EMAIL_HOST is not set`);
      return null;
    }
    return this.jobs.enqueue(EMAIL_JOB, job, options);
  }

  /** Checks the addresses and builds the job payload. */
  private toJob<N extends EmailTemplateName>(message: EmailMessage<N>): EmailJob {
    const to = typeof message.to === 'string' ? [message.to] : [...message.to];
    const bad = to.find((a) => !isEmailAddress(a));
    if (to.length === 0 || bad !== undefined) throw new Error(`invalid recipient address: ${JSON.stringify(bad)}`);
    if (message.replyTo !== undefined && !isEmailAddress(message.replyTo)) throw new Error('invalid reply-to address');
    return {
      template: message.template,
      context: message.context as object,
      to,
      ...(message.fromName !== undefined ? { fromName: message.fromName } : {}),
      ...(message.replyTo !== undefined ? { replyTo: message.replyTo } : {}),
      ...(message.headers !== undefined ? { headers: message.headers } : {}),
    };
  }

  private async deliver(job: EmailJob): Promise<void> {
    const templates = EMAIL_TEMPLATES as Record<string, EmailTemplate<object>>;
    const template = Object.hasOwn(templates, job.template) ? templates[job.template] : undefined;
    if (!template) throw new PermanentJobError(`unknown email template '${job.template}'`);
    const rendered = renderEmail(template, job.context);
    await this.transport.deliver({
      from: { name: job.fromName ?? this.from.name, address: this.from.address },
      to: job.to,
      replyTo: job.replyTo,
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      headers: job.headers,
    });
  }
}
