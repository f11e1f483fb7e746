import { PeriodicPass } from '../jobs/periodic-pass';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { onCommit, runInTransaction } from '../database/transaction';
import { EventsService } from '../events/events.service';
import { Clock } from '../messaging/clock';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { globalTime } from '../messaging/message-report.service';
import { MessageSendService } from '../messaging/message-send.service';
import { RealmService } from '../realm/realm.service';
import { UsersService } from '../users/users.service';
import { DeliveryType, ScheduledMessage } from './scheduled-message.entity';
import { ScheduledMessageErrors } from './scheduled-message.errors';
import { ScheduledMessagesRepository } from './scheduled-messages.repository';
import { scheduledMessageDict, ScheduledMessagesService } from './scheduled-messages.service';

/** Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES. */
const LATE_CUTOFF_MS = 10 * 60_000;

/** Refusals that mean nobody is there to read a failure notice. */
class AccountGone extends Error {
  constructor(override readonly cause: ZulipError) {
    super(cause.message);
  }
}

/** Zulip's send_failed_scheduled_message_notification text. */
export function failureNotice(scheduledAt: Date, error: string): string {
  return (
    `The message you scheduled for ${globalTime(scheduledAt)} was not sent because of the following error:` +
    `\n\n> ${error}\n\n[View scheduled messages](#scheduled)\n\n`
  );
}

/**
 * Sends scheduled messages and reminders when they fall due (Zulip's deliver_scheduled_messages
 * worker). Every process with JOBS_WORKERS on polls every JOBS_POLL_INTERVAL_MS; a due row is
 * claimed with FOR UPDATE SKIP LOCKED, sent through the normal send path as its sender (every
 * check again), and marked delivered in the same transaction, so two processes can never both
 * deliver it and a crash before COMMIT leaves it due. State lives only in the table: a restart
 * loses nothing. The clock is messaging's injectable Clock.
 */
@Injectable()
export class ScheduledDeliveryService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ScheduledMessages');
  private readonly poller = new PeriodicPass('delivery pass', () => this.deliverDue(), this.logger);
  private outcomes: Counter<'outcome'> | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: ScheduledMessagesRepository,
    private readonly scheduled: ScheduledMessagesService,
    private readonly sender: MessageSendService,
    private readonly users: UsersService,
    private readonly realms: RealmService,
    private readonly events: EventsService,
    private readonly clock: Clock,
    private readonly metrics: MetricsRegistry,
  ) {}

  onModuleInit(): void {
    this.outcomes = this.metrics.counter({
      name: 'zulip_scheduled_messages_total',
      help: 'Scheduled messages and reminders handled at their time, by outcome (delivered, failed).',
      labelNames: ['outcome'],
    });
    this.metrics.registerJobQueue('scheduled_messages', () => this.repo.dueCount(this.clock.now()));
  }

  onApplicationBootstrap(): void {
    if (this.config.jobs.workers) this.poller.start(this.config.jobs.pollIntervalMs);
  }

  async onModuleDestroy(): Promise<void> {
    await this.poller.stop();
  }

  /** Delivers every due row this process can claim; returns how many were attempted. */
  async deliverDue(): Promise<number> {
    let count = 0;
    while (!this.poller.stopped) {
      const attempted = await this.deliverOne();
      if (!attempted) break;
      count++;
    }
    return count;
  }

  /** Claims and delivers (or fails) one due row; false when none is due. */
  async deliverOne(): Promise<boolean> {
    let claimed: ScheduledMessage | null = null;
    try {
      return await runInTransaction(this.dataSource, async () => {
        claimed = await this.repo.claimDue(this.clock.now());
        if (!claimed) return false;
        await this.deliver(claimed);
        onCommit(() => this.outcomes?.inc({ outcome: 'delivered' }));
        return true;
      });
    } catch (err) {
      if (!claimed) throw err;
      await this.recordFailure(claimed, err);
      this.outcomes?.inc({ outcome: 'failed' });
      return true;
    }
  }

  private async authFor(row: ScheduledMessage): Promise<AuthContext> {
    const realm = await this.realms.getRealm(row.realmId);
    // Zulip's validate_account_and_subdomain, repeated at delivery.
    if (realm.deactivated) throw new AccountGone(Errors.realmDeactivated());
    const user = await this.users.findByIdInRealm(row.realmId, row.senderId);
    if (!user || !user.isActive) throw new AccountGone(Errors.userDeactivated());
    return { user, realm };
  }

  private async deliver(row: ScheduledMessage): Promise<void> {
    const auth = await this.authFor(row);
    let messageId: number;
    if (row.deliveryType === DeliveryType.REMIND) {
      let content = row.content;
      try {
        content = await this.scheduled.reminderText(auth, row.reminderTargetMessageId!, row.reminderNote);
      } catch (err) {
        // Out of reach now: the text as it was when the reminder was set.
        if (!(err instanceof ZulipError)) throw err;
      }
      const id = await this.sender.sendNotificationBotMessage(auth.realm, row.senderId, content);
      if (id === null) throw ScheduledMessageErrors.reminderNotSent();
      messageId = id;
      this.events.sendOnCommit(row.realmId, { type: 'reminders', op: 'remove', reminder_id: row.id }, [row.senderId]);
    } else {
      if (this.clock.now().getTime() > row.scheduledTimestamp.getTime() + LATE_CUTOFF_MS) {
        throw ScheduledMessageErrors.tooLate();
      }
      const result = await this.sender.sendMessage(auth, {
        type: row.recipientType as 'stream' | 'private',
        to: JSON.stringify(row.recipientType === 'stream' ? row.streamId : row.toUserIds),
        topic: row.subject,
        content: row.content,
        queueId: undefined,
        localId: undefined,
        readBySender: row.readBySender,
        clientName: row.sendingClient,
      });
      messageId = result.id;
      this.events.sendOnCommit(
        row.realmId,
        { type: 'scheduled_messages', op: 'remove', scheduled_message_id: row.id },
        [row.senderId],
      );
    }
    if (!(await this.repo.markDelivered(row.id, messageId))) throw new Error(`scheduled message ${row.id} changed`);
  }

  /**
   * Zulip's failure branch of try_deliver_one_scheduled_message: the row is marked failed (once,
   * whoever gets there first); a scheduled message's sender gets the updated row and a notice
   * from Notification Bot, unless their account or organization is gone.
   */
  private async recordFailure(row: ScheduledMessage, err: unknown): Promise<void> {
    const gone = err instanceof AccountGone;
    const cause = gone ? err.cause : err;
    let text: string;
    if (cause instanceof ZulipError) {
      text = cause.message;
      this.logger.log(`scheduled message ${row.id} failed: ${text}`);
    } else {
      text = Errors.internal().message;
      this.logger.error(`unexpected error sending scheduled message ${row.id}: ${String(err)}`);
    }
    await runInTransaction(this.dataSource, async () => {
      const failed = await this.repo.markFailed(row.id, text);
      if (!failed || failed.deliveryType === DeliveryType.REMIND || gone) return;
      this.events.sendOnCommit(
        failed.realmId,
        { type: 'scheduled_messages', op: 'update', scheduled_message: scheduledMessageDict(failed) },
        [failed.senderId],
      );
      const realm = await this.realms.getRealm(failed.realmId);
      await this.sender.sendNotificationBotMessage(
        realm,
        failed.senderId,
        failureNotice(failed.scheduledTimestamp, text),
      );
    });
  }
}
