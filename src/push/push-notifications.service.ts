import { AsyncResource } from 'node:async_hooks';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Limits } from '../common/limits';
import { DeviceKind, DeviceKindCode } from './push-device.entity';
import { PushDevicesRepository } from './push-devices.repository';
import {
  messageNotification,
  notificationContent,
  PayloadContext,
  PushMessage,
  PushRealm,
  PushRecipient,
  removeNotification,
  testNotification,
} from './push-payloads';
import { PushErrors } from './push.errors';
import type { PushDeviceToken } from './push-device.entity';
import type { PushPayload, PushProvider, PushTarget } from './push-provider';
import { PUSH_PROVIDERS } from './push-providers';
import { JobOutcome, RetryQueue } from './push-queue';

/** What the messaging module hands over after a message's transaction has committed. */
export interface NotifyMessageInput {
  realm: PushRealm;
  message: PushMessage;
  /** From computePushRecipients (push-recipients.ts). */
  recipients: readonly PushRecipient[];
}

/** Take notifications off a user's devices (messages read or deleted). */
export interface RemoveNotificationsInput {
  realm: PushRealm;
  userId: number;
  messageIds: readonly number[];
}

interface DeliveryJob {
  device: PushTarget;
  payload: PushPayload;
  event: 'message' | 'remove' | 'test';
}

export interface PushStats {
  queued: number;
  delivered: number;
  retried: number;
  invalidTokens: number;
  failed: number;
  gaveUp: number;
  overflowed: number;
  pending: number;
}

/**
 * Mobile push notifications (Zulip's handle_push_notification / handle_remove_push_notification
 * and the missedmessage_mobile_notifications worker): builds Zulip's APNs and FCM payloads, loads
 * the users' devices in one query, and delivers one job per device through an in-process queue
 * outside any request or transaction — bounded concurrency, retries with backoff, dead tokens
 * removed.
 */
@Injectable()
export class PushNotificationsService implements OnModuleDestroy {
  private readonly logger = new Logger('Push');
  private readonly providers = new Map<DeviceKindCode, PushProvider>();
  private readonly queue: RetryQueue<DeliveryJob>;
  private readonly ctx: PayloadContext;
  /**
   * Deliveries run in the async context the service was created in, never in a caller's
   * transaction context (a caller inside runInTransaction must not lend its connection to jobs
   * that outlive it).
   */
  private readonly scope = new AsyncResource('PushNotifications');
  private readonly counters = {
    queued: 0,
    delivered: 0,
    retried: 0,
    invalidTokens: 0,
    failed: 0,
    gaveUp: 0,
    overflowed: 0,
  };

  constructor(
    private readonly devices: PushDevicesRepository,
    @Inject(PUSH_PROVIDERS) providers: PushProvider[],
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    for (const p of providers) this.providers.set(p.kind, p);
    this.ctx = { serverHost: config.externalHost, emptyTopicName: Limits.EMPTY_TOPIC_DISPLAY_NAME };
    this.queue = new RetryQueue<DeliveryJob>(config.push, (job) => this.deliver(job), {
      onGiveUp: (job, attempts, reason) => {
        this.counters.gaveUp++;
        this.logger.warn(
          `Giving up on ${job.event} notification to device ${job.device.id} (user ${job.device.userId}) ` +
            `after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}`,
        );
      },
      onRetry: (job, attempts, delayMs, reason) => {
        this.counters.retried++;
        this.logger.debug(
          `Retrying ${job.event} notification to device ${job.device.id} in ${delayMs} ms ` +
            `(attempt ${attempts} failed: ${reason})`,
        );
      },
      onOverflow: (job) => {
        this.counters.overflowed++;
        this.logger.warn(`Push queue full; dropped a ${job.event} notification to device ${job.device.id}`);
      },
    });
  }

  /** True when at least one provider is configured. */
  get enabled(): boolean {
    return this.providers.size > 0;
  }

  /**
   * Queues the notifications of a message for its recipients' devices. Call after the message's
   * transaction has committed; resolves once the jobs are queued (not delivered) with how many
   * there are. Never rejects: a failure to load devices is logged.
   */
  notifyMessage(input: NotifyMessageInput): Promise<number> {
    if (!this.enabled || input.recipients.length === 0) return Promise.resolve(0);
    return this.scope.runInAsyncScope(() => this.queueMessage(input));
  }

  /**
   * Queues Zulip's `remove` notification for these messages on the user's devices (the newest
   * 200 ids). Same contract as notifyMessage.
   */
  removeNotifications(input: RemoveNotificationsInput): Promise<number> {
    if (!this.enabled || input.messageIds.length === 0) return Promise.resolve(0);
    return this.scope.runInAsyncScope(() => this.queueRemoval(input));
  }

  /**
   * POST /mobile_push/test_notification (Zulip's send_test_push_notification_api): queues a `test`
   * notification to the user's devices, or only to those registered with `token`. A token the user
   * has not registered is refused whether or not a provider is configured; with no provider the
   * request succeeds and nothing is sent, as Zulip without push configured. Resolves with how
   * many notifications were queued.
   */
  async sendTest(realm: PushRealm, userId: number, token: string | undefined): Promise<number> {
    const rows = (await this.devices.devicesOf([userId])).filter((row) => token === undefined || row.token === token);
    if (token !== undefined && rows.length === 0) throw PushErrors.deviceNotRecognized();
    if (!this.enabled) return 0;
    const payload = testNotification(this.ctx, realm, userId, new Date());
    return this.scope.runInAsyncScope(() => {
      let queued = 0;
      for (const device of this.targetsOf(rows).get(userId) ?? []) {
        if (this.enqueue({ device, payload, event: 'test' })) queued++;
      }
      return queued;
    });
  }

  /** Resolves when every queued notification has been delivered or given up (tests, shutdown). */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  stats(): PushStats {
    return { ...this.counters, pending: this.queue.size };
  }

  async onModuleDestroy(): Promise<void> {
    const { abandoned, unfinished } = await this.queue.stop();
    if (abandoned > 0) {
      this.logger.warn(
        `Stopped with ${abandoned} push notification${abandoned === 1 ? '' : 's'} undelivered` +
          (unfinished > 0 ? ` (${unfinished} still sending)` : ''),
      );
    }
    await Promise.allSettled([...this.providers.values()].map((p) => p.close()));
  }

  private async queueMessage(input: NotifyMessageInput): Promise<number> {
    try {
      const byUser = await this.loadDevices(input.recipients.map((r) => r.userId));
      if (byUser.size === 0) return 0;
      const content = notificationContent(input.message, this.ctx, input.realm);
      let queued = 0;
      for (const recipient of input.recipients) {
        const devices = byUser.get(recipient.userId);
        if (!devices) continue;
        const payload = messageNotification(this.ctx, input.realm, input.message, recipient, content);
        for (const device of devices) if (this.enqueue({ device, payload, event: 'message' })) queued++;
      }
      return queued;
    } catch (err) {
      this.logger.error(`Could not queue notifications for message ${input.message.id}: ${describe(err)}`);
      return 0;
    }
  }

  private async queueRemoval(input: RemoveNotificationsInput): Promise<number> {
    try {
      const devices = (await this.loadDevices([input.userId])).get(input.userId) ?? [];
      const payload = removeNotification(this.ctx, input.realm, input.userId, input.messageIds);
      let queued = 0;
      for (const device of devices) if (this.enqueue({ device, payload, event: 'remove' })) queued++;
      return queued;
    } catch (err) {
      this.logger.error(`Could not queue notification removal for user ${input.userId}: ${describe(err)}`);
      return 0;
    }
  }

  private enqueue(job: DeliveryJob): boolean {
    if (!this.queue.push(job)) return false;
    this.counters.queued++;
    return true;
  }

  /**
   * The users' devices that a configured provider serves, in one query. APNs devices need their
   * app id (the topic); a token registered twice (in different case) is sent to once, as Zulip.
   */
  private async loadDevices(userIds: number[]): Promise<Map<number, PushTarget[]>> {
    return this.targetsOf(await this.devices.devicesOf([...new Set(userIds)]));
  }

  /** The rows a configured provider can send to, by user (see loadDevices). */
  private targetsOf(rows: readonly PushDeviceToken[]): Map<number, PushTarget[]> {
    const byUser = new Map<number, PushTarget[]>();
    const seen = new Set<string>();
    for (const row of rows) {
      const kind = row.kind as DeviceKindCode;
      if (!this.providers.has(kind)) continue;
      if (kind === DeviceKind.APNS && !row.iosAppId) {
        this.logger.error(`APNs device ${row.id} of user ${row.userId} has no app id; skipped`);
        continue;
      }
      const key = `${row.userId}/${kind}/${kind === DeviceKind.APNS ? row.token.toLowerCase() : row.token}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const list = byUser.get(row.userId) ?? [];
      list.push({ id: row.id, userId: row.userId, kind, token: row.token, iosAppId: row.iosAppId });
      byUser.set(row.userId, list);
    }
    return byUser;
  }

  /** One attempt at one device. Runs with no transaction: the send, then a single DELETE if the token is dead. */
  private async deliver(job: DeliveryJob): Promise<JobOutcome> {
    const provider = this.providers.get(job.device.kind);
    if (!provider) return { status: 'dropped', reason: 'no provider' };
    const result = await provider.send(job.device, job.payload);
    switch (result.outcome) {
      case 'delivered':
        this.counters.delivered++;
        return { status: 'done' };
      case 'invalid_token':
        this.counters.invalidTokens++;
        await this.devices.remove(job.device.userId, job.device.kind, job.device.token);
        this.logger.log(
          `${provider.name}: removed device ${job.device.id} of user ${job.device.userId} (${result.reason})`,
        );
        return { status: 'dropped', reason: result.reason };
      case 'failed':
        this.counters.failed++;
        this.logger.error(
          `${provider.name}: ${job.event} notification to device ${job.device.id} (user ${job.device.userId}) ` +
            `failed: ${result.reason}`,
        );
        return { status: 'dropped', reason: result.reason };
      case 'retry':
        return { status: 'retry', reason: `${provider.name}: ${result.reason}`, retryAfterMs: result.retryAfterMs };
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
