import { Injectable, OnModuleInit } from '@nestjs/common';
import { ChannelQueriesService } from '../channels/channel-queries.service';
import { DomainEventBus } from '../events/domain-event-bus';
import { EventsService } from '../events/events.service';
import { Clock } from '../messaging/clock';
import { flagsToApi } from '../messaging/flags';
import { MessageSentEvent } from '../messaging/messaging.domain-events';
import { PresenceService } from '../presence/presence.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { emailTrigger, EmailTrigger } from './email-notifiability';
import { MissedMessageEmailsRepository } from './missed-message-emails.repository';

/**
 * After a message is sent (messaging's MessageSentEvent, after commit): for each recipient who is
 * away and should be told by email (email-notifiability.ts), a pending row joins their batch,
 * due one batching period (`email_notifications_batching_period_seconds`) after the batch's first
 * message. Zulip's maybe_enqueue_notifications → missedmessage_emails queue.
 */
@Injectable()
export class MissedMessageEmailsHandler implements OnModuleInit {
  constructor(
    private readonly bus: DomainEventBus,
    private readonly repo: MissedMessageEmailsRepository,
    private readonly directory: UserDirectoryService,
    private readonly channelQueries: ChannelQueriesService,
    private readonly events: EventsService,
    private readonly presence: PresenceService,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe(MessageSentEvent, async (event) => {
      await this.handle(event);
    });
  }

  /** Queues the message for every recipient it should be emailed to; returns how many. */
  async handle(info: MessageSentEvent): Promise<number> {
    const { realm, message } = info;
    const flagsByUser = new Map(info.recipientIds.map((id, i) => [id, new Set(flagsToApi(info.flags[i] ?? 0))]));
    const others = info
      .notifiableRecipientIds()
      .filter((id) => !flagsByUser.get(id)?.has('read') && !info.mutedByIds?.has(id));
    if (others.length === 0) return 0;
    const users = await this.directory.emailSettingsOf(others);
    if (users.length === 0) return 0;
    const channel =
      message.isChannelMessage && message.streamId !== null
        ? { recipientId: message.recipientId, streamId: message.streamId, topic: message.subject }
        : null;
    const state = channel
      ? await this.channelQueries.notificationStateOf(
          users.map((u) => u.userId),
          channel,
        )
      : null;
    // The decision as if everyone were away first; idleness is looked up only for those it concerns.
    const wanted: Array<{ userId: number; trigger: EmailTrigger; periodSeconds: number }> = [];
    for (const u of users) {
      const sub = state?.get(u.userId)?.subscription ?? null;
      const trigger = emailTrigger(
        {
          userId: u.userId,
          isBot: u.isBot,
          settings: u.settings,
          flags: flagsByUser.get(u.userId) ?? new Set<string>(),
          subscription: sub
            ? {
                isMuted: sub.isMuted,
                emailNotifications: sub.emailNotifications,
                wildcardMentionsNotify: sub.wildcardMentionsNotify,
              }
            : undefined,
          topicVisibility: state?.get(u.userId)?.topicVisibility ?? 0,
          senderMuted: false,
          idle: true,
        },
        { senderId: message.senderId, isDirectMessage: channel === null },
      );
      if (trigger !== null) wanted.push({ userId: u.userId, trigger, periodSeconds: u.batchingPeriodSeconds });
    }
    if (wanted.length === 0) return 0;
    // Zulip's idleness, as for push: no recent activity in presence (invisible users report
    // none), or no event queue polled recently (receiver_is_off_zulip).
    const present = await this.presence.recentlyActive(wanted.map((w) => w.userId));
    const away: typeof wanted = [];
    for (const w of wanted) {
      if (!present.has(w.userId) || !(await this.events.hasActiveClient(w.userId))) away.push(w);
    }
    const now = this.clock.now().getTime();
    await this.repo.add(
      away.map((w) => ({
        realmId: realm.id,
        userId: w.userId,
        messageId: message.id,
        trigger: w.trigger,
        mentionedUserGroupId: null,
        dueAt: new Date(now + w.periodSeconds * 1000),
      })),
    );
    return away.length;
  }
}
