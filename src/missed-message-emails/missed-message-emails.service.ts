import { PeriodicPass } from '../jobs/periodic-pass';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { onCommit, runInTransaction } from '../database/transaction';
import { EmailService } from '../email/email.service';
import { Clock } from '../messaging/clock';
import { MessagingStateService } from '../messaging/messaging-state.service';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { RealmService } from '../realm/realm.service';
import { UserAccessService } from '../users/user-access.service';
import { canAccessUser, INACCESSIBLE_USER_NAME } from '../users/user-access';
import { UserDirectoryService } from '../users/user-directory.service';
import { UsersService } from '../users/users.service';
import { buildMissedMessageEmail } from './email-content';
import { EmailTrigger } from './email-notifiability';
import { MissedMessageEmailsRepository } from './missed-message-emails.repository';
import { unsubscribeToken } from './unsubscribe-link';

/** Triggers that enable_offline_email_notifications ("DMs and mentions") governs. */
const DM_OR_MENTION = new Set<EmailTrigger>([
  'private_message',
  'mentioned',
  'topic_wildcard_mentioned_in_followed_topic',
  'stream_wildcard_mentioned_in_followed_topic',
  'topic_wildcard_mentioned',
  'stream_wildcard_mentioned',
]);

/** Users looked at per claim attempt. */
const CLAIM_WINDOW = 20;

export type BatchOutcome = 'sent' | 'nothing_left' | 'failed';

/**
 * Sends each user's due batch of missed messages as one email (Zulip's MissedMessageWorker and
 * handle_missedmessage_emails). Every process with JOBS_WORKERS on runs a pass every
 * JOBS_POLL_INTERVAL_MS: it takes a due user's advisory lock (skipping users another process
 * holds), deletes the user's whole batch and queues the email job in one transaction, so a batch
 * is emailed exactly once across processes and a crash before COMMIT leaves it due. Messages
 * read or deleted since they were sent are left out (no email when none is left).
 */
@Injectable()
export class MissedMessageEmailsService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('MissedMessageEmails');
  private readonly poller = new PeriodicPass('missed-message email pass', () => this.sendDue(), this.logger);
  private outcomes: Counter<'outcome'> | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: MissedMessageEmailsRepository,
    private readonly messaging: MessagingStateService,
    private readonly users: UsersService,
    private readonly directory: UserDirectoryService,
    private readonly userAccess: UserAccessService,
    private readonly realms: RealmService,
    private readonly email: EmailService,
    private readonly clock: Clock,
    private readonly metrics: MetricsRegistry,
  ) {}

  /** The bare address of NOREPLY_EMAIL_ADDRESS (which may carry a display name). */
  private get noreplyAddress(): string {
    const raw = this.config.email.noreplyAddress;
    return /<([^<>]+)>\s*$/.exec(raw)?.[1].trim() ?? raw.trim();
  }

  onModuleInit(): void {
    this.outcomes = this.metrics.counter({
      name: 'zulip_missed_message_emails_total',
      help: 'Due missed-message batches, by outcome (sent; nothing_left: every message read or deleted; failed).',
      labelNames: ['outcome'],
    });
    this.metrics.registerJobQueue('missed_message_emails', () => this.repo.dueCount(this.clock.now()));
  }

  onApplicationBootstrap(): void {
    if (this.config.jobs.workers) this.poller.start(this.config.jobs.pollIntervalMs);
  }

  async onModuleDestroy(): Promise<void> {
    await this.poller.stop();
  }

  /** Handles every due batch this process can claim; returns how many batches it took. */
  async sendDue(): Promise<number> {
    let count = 0;
    while (!this.poller.stopped) {
      const outcome = await this.sendOne();
      if (outcome === null) break;
      count++;
    }
    return count;
  }

  /**
   * Claims one due batch and emails it; null when no batch is due or every due one is taken. A
   * batch that cannot be emailed (an unexpected error) is dropped and logged rather than retried
   * at every pass.
   */
  async sendOne(): Promise<BatchOutcome | null> {
    let claimed: number | null = null;
    let outcome: BatchOutcome | null;
    try {
      outcome = await runInTransaction(this.dataSource, async () => {
        const now = this.clock.now();
        for (const userId of await this.repo.dueUsers(now, CLAIM_WINDOW)) {
          if (!(await this.repo.tryLockUser(userId))) continue;
          const batch = await this.repo.takeDueBatch(userId, now);
          if (batch.length === 0) continue; // sent by another process meanwhile
          claimed = userId;
          return this.sendBatch(userId, batch);
        }
        return null;
      });
    } catch (err) {
      if (claimed === null) throw err;
      const userId: number = claimed;
      this.logger.error(`missed-message email for user ${userId} dropped: ${String(err)}`);
      await runInTransaction(this.dataSource, async () => {
        if (await this.repo.tryLockUser(userId)) await this.repo.takeDueBatch(userId, this.clock.now());
      });
      outcome = 'failed';
    }
    if (outcome) this.outcomes?.inc({ outcome });
    return outcome;
  }

  private async sendBatch(
    userId: number,
    batch: Array<{ realmId: number; messageId: number; trigger: string }>,
  ): Promise<BatchOutcome> {
    const realm = await this.realms.getRealm(batch[0].realmId);
    const user = await this.users.findByIdInRealm(realm.id, userId);
    if (realm.deactivated || !user || !user.isActive || user.isBot) return 'nothing_left';
    // A setting turned off since (the unsubscribe link, say) stops what it governs.
    const kept = batch.filter(
      (row) => user.settings.enable_offline_email_notifications || !DM_OR_MENTION.has(row.trigger as EmailTrigger),
    );
    const messages = await this.messaging.unreadAmong(
      realm.id,
      userId,
      kept.map((row) => row.messageId),
    );
    if (messages.length === 0) return 'nothing_left';

    const nameIds = new Set<number>();
    for (const m of messages) {
      nameIds.add(m.senderId);
      for (const id of m.dmUserIds ?? []) nameIds.add(id);
    }
    const rows = await this.directory.usersByIds(realm.id, [...nameIds]);
    // A restricted guest is told only the names of users they may see (can_access_all_users_group):
    // a channel message from anyone else is from "Unknown user", as in their message feed. One
    // query for the guest's peers among these users; none for anyone else.
    const access = await this.userAccess.forViewer(user, realm, [...nameIds]);
    const names = new Map(rows.map((u) => [u.id, canAccessUser(access, u) ? u.fullName : INACCESSIBLE_USER_NAME]));
    const realmUrl = this.realms.realmUrl(realm);
    const built = buildMissedMessageEmail(
      userId,
      { name: realm.name, url: realmUrl },
      messages,
      (id) => names.get(id) ?? INACCESSIBLE_USER_NAME,
    );
    const byUser = user.settings.message_content_in_email_notifications !== true;
    const byRealm = !realm.messageContentAllowedInEmailNotifications;
    const showContent = !byUser && !byRealm;
    const unsubscribeUrl =
      `${realmUrl}/accounts/unsubscribe/missed_messages/` +
      unsubscribeToken(this.config.secretKey, 'missed_messages', realm.id, userId);
    await this.email.send({
      template: 'missed_message',
      to: user.deliveryEmail,
      fromName: 'Zulip notifications',
      // Replies cannot reach a conversation here (no incoming email gateway): the no-reply address.
      replyTo: this.noreplyAddress,
      headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>` },
      context: {
        realmName: realm.name,
        realmUrl,
        fullName: user.fullName,
        subject: built.subject,
        showContent,
        contentDisabledByUser: byUser,
        contentDisabledByRealm: byRealm,
        messageCount: messages.length,
        // Without content: only the links, no names, topics or text.
        conversations: showContent
          ? built.conversations
          : built.conversations.map((c) => ({ header: '', url: c.url, senders: [] })),
        settingsUrl: `${realmUrl}/#settings/notifications`,
        unsubscribeUrl,
      },
    });
    onCommit(() => this.logger.log(`missed-message email queued for user ${userId} (${messages.length} messages)`));
    return 'sent';
  }
}
