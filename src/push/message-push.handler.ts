import { Injectable, OnModuleInit } from '@nestjs/common';
import { DomainEventBus } from '../events/domain-event-bus';
import { EventsService } from '../events/events.service';
import { flagsToApi } from '../messaging/flags';
import { apiEmailOf, avatarUrlOf } from '../messaging/message-format';
import { MessageSentEvent } from '../messaging/messaging.domain-events';
import { PresenceService } from '../presence/presence.service';
import { RealmService } from '../realm/realm.service';
import { PushNotificationsService } from './push-notifications.service';
import { computePushRecipients } from './push-recipients';
import { PushRecipientsRepository } from './push-recipients.repository';

/**
 * After a message is sent: decide who gets a push notification (notifiability.ts) and hand the
 * message to the delivery queue. Subscribed to messaging's MessageSentEvent (after commit),
 * because push sits above messaging in the module DAG. Costs nothing when no push provider is configured.
 */
@Injectable()
export class MessagePushHandler implements OnModuleInit {
  constructor(
    private readonly bus: DomainEventBus,
    private readonly push: PushNotificationsService,
    private readonly recipients: PushRecipientsRepository,
    private readonly events: EventsService,
    private readonly realms: RealmService,
    private readonly presence: PresenceService,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe(MessageSentEvent, async (event) => {
      await this.handle(event);
    });
  }

  async handle(info: MessageSentEvent): Promise<number> {
    if (!this.push.enabled) return 0;
    const { realm, message } = info;
    const sender = info.users.get(message.senderId);
    if (!sender) return 0;
    const flagsByUser = new Map(info.recipientIds.map((id, i) => [id, info.flags[i]]));
    const others = info.notifiableRecipientIds();
    if (others.length === 0) return 0;
    const channel =
      message.isChannelMessage && message.streamId !== null
        ? { recipientId: message.recipientId, streamId: message.streamId, topic: message.subject }
        : null;
    const rows = await this.recipients.load(others, channel);
    // Idleness only matters to those without online push: one presence query for all of them.
    const offlineOnly = rows.filter((r) => !r.settings.enable_online_push_notifications).map((r) => r.userId);
    const present = await this.presence.recentlyActive(offlineOnly);
    const candidates = await Promise.all(
      rows.map(async (r) => ({
        userId: r.userId,
        isBot: r.isBot,
        settings: r.settings,
        flags: flagsToApi(flagsByUser.get(r.userId) ?? 0),
        subscription: r.subscription ?? undefined,
        topicVisibility: r.topicVisibility,
        senderMuted: info.mutedByIds?.has(r.userId) ?? false,
        // A restricted guest who may not see the sender (handle_push_notification's
        // can_access_sender): the payload names the sender as "Unknown user".
        canAccessSender: info.senderHiddenFrom?.has(r.userId) !== true,
        // Zulip's idleness: no event queue (receiver_is_off_zulip), or no recent activity in
        // presence (filter_presence_idle_user_ids; invisible users report none). Online push
        // on: idleness does not matter, so skip the lookups.
        idle:
          r.settings.enable_online_push_notifications ||
          !present.has(r.userId) ||
          !(await this.events.hasActiveClient(r.userId)),
      })),
    );
    const recipients = computePushRecipients({ senderId: message.senderId, isDirectMessage: !channel }, candidates);
    if (recipients.length === 0) return 0;
    const realmUrl = this.realms.realmUrl(realm);
    const participants = (message.dmUserIds ?? []).map((id) => ({
      id,
      fullName: info.users.get(id)?.fullName ?? '',
    }));
    return this.push.notifyMessage({
      realm: { id: realm.id, name: realm.name, url: realmUrl },
      message: {
        id: message.id,
        sender: {
          id: sender.id,
          email: apiEmailOf(sender, this.realms.realmHost(realm)),
          fullName: sender.fullName,
          avatarUrl: avatarUrlOf(sender, false, this.realms.realmHost(realm)) ?? '',
        },
        recipient: channel
          ? {
              type: 'channel',
              channelId: channel.streamId,
              channelName: message.streamName ?? '',
              topic: message.subject,
            }
          : { type: 'direct', participants },
        renderedContent: message.renderedContent ?? undefined,
        content: message.renderedContent === null ? message.content : undefined,
        dateSent: message.dateSent,
      },
      recipients,
    });
  }
}
