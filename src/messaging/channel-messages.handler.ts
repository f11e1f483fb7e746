import { ChannelQueriesService } from '../channels/channel-queries.service';
import { UserGroupsQueryService } from '../users/user-groups-query.service';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import {
  type AnyChannelChangedEvent,
  ChannelArchivedEvent,
  ChannelDescriptionChangedEvent,
  ChannelMessageRetentionChangedEvent,
  type ChannelNotice,
  ChannelPermissionChangedEvent,
  ChannelPostingPermissionChangedEvent,
  ChannelRenamedEvent,
  ChannelsCreatedEvent,
  ChannelTopicsPolicyChangedEvent,
  ChannelUnarchivedEvent,
  type ChannelUser,
  EmptyTopicOnlyRequestedEvent,
  SubscribedByOthersEvent,
  UsersLeftChannelsEvent,
} from '../channels/channels.domain-events';
import { currentManager } from '../database/transaction';
import { flagsAddedEvent } from '../events/client-events';
import { DomainEventBus } from '../events/domain-event-bus';
import { EventsService } from '../events/events.service';
import { RealmService } from '../realm/realm.service';
import { MessageFlagsRepository } from './message-flags.repository';
import type { UserBrief } from './message-format';
import { InternalTarget, MessageSendService } from './message-send.service';
import { MessagesRepository } from './messages.repository';

/** Zulip's settings.NOTIFICATION_BOT. */
export const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';
/** Realm.STREAM_EVENTS_NOTIFICATION_TOPIC_NAME and the announcements topic. */
export const CHANNEL_EVENTS_TOPIC = 'channel events';
export const NEW_CHANNELS_TOPIC = 'new channels';

export function silentMention(user: ChannelUser): string {
  return `@_**${user.fullName}|${user.id}**`;
}

function quoteBlock(text: string): string {
  return `\`\`\`\` quote\n${text === '' ? '*No description.*' : text}\n\`\`\`\``;
}

/** Zulip's get_stream_permission_policy_key names. */
export function channelPolicyName(c: {
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
}): string {
  if (c.isWebPublic) return 'Web-public';
  if (!c.inviteOnly) return 'Public';
  return c.historyPublicToSubscribers ? 'Private, shared history' : 'Private, protected history';
}

function retentionText(days: number | null, realmDays: number): string {
  const value = days ?? realmDays;
  return value === -1 ? 'Forever' : `${value} days`;
}

const SYSTEM_GROUP_LABELS: Record<string, string> = {
  'role:nobody': 'Nobody',
  'role:owners': 'Owners',
  'role:administrators': 'Administrators',
  'role:moderators': 'Moderators',
  'role:fullmembers': 'Full members',
  'role:members': 'Members',
  'role:everyone': 'Everyone',
  'role:internet': 'Everyone on the internet',
};

const TOPICS_POLICY_LABELS: Record<string, string> = {
  inherit: 'Automatic',
  allow_empty_topic: 'Allow posting to the *general chat* topic',
  disable_empty_topic: 'Disallow posting to the *general chat* topic',
  empty_topic_only: 'Only allow posting to the *general chat* topic',
};

/**
 * The messaging side of the channels' domain events (channels/channels.domain-events.ts):
 * Notification Bot messages about channel creation and changes, "you were subscribed" direct
 * messages, and marking messages read in channels a user leaves (unread messages exist only in
 * subscribed channels). Subscribed at start-up; runs inside the channel change's transaction.
 */
@Injectable()
export class ChannelMessagesHandler implements OnModuleInit {
  private readonly logger = new Logger('ChannelMessages');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly bus: DomainEventBus,
    private readonly sender: MessageSendService,
    private readonly messages: MessagesRepository,
    private readonly flags: MessageFlagsRepository,
    private readonly realms: RealmService,
    private readonly events: EventsService,
    private readonly channelQueries: ChannelQueriesService,
    private readonly userGroups: UserGroupsQueryService,
  ) {}

  onModuleInit(): void {
    // In the channel change's transaction: the notices are part of the change.
    this.bus.subscribeInTransaction(ChannelsCreatedEvent, (e) => this.onChannelsCreated(e));
    this.bus.subscribeInTransaction(SubscribedByOthersEvent, (e) => this.onSubscribedByOthers(e));
    this.bus.subscribeInTransaction(UsersLeftChannelsEvent, (e) => this.onUsersLeftChannels(e));
    this.bus.subscribeInTransaction(EmptyTopicOnlyRequestedEvent, async (e) => {
      if (await this.messages.channelHasNamedTopics(e.realmId, e.recipientId)) e.namedTopicsFound = true;
    });
    const notice = (e: AnyChannelChangedEvent) => this.onChannelChanged(e);
    this.bus.subscribeInTransaction(ChannelArchivedEvent, notice);
    this.bus.subscribeInTransaction(ChannelUnarchivedEvent, notice);
    this.bus.subscribeInTransaction(ChannelRenamedEvent, notice);
    this.bus.subscribeInTransaction(ChannelDescriptionChangedEvent, notice);
    this.bus.subscribeInTransaction(ChannelPermissionChangedEvent, notice);
    this.bus.subscribeInTransaction(ChannelMessageRetentionChangedEvent, notice);
    this.bus.subscribeInTransaction(ChannelPostingPermissionChangedEvent, notice);
    this.bus.subscribeInTransaction(ChannelTopicsPolicyChangedEvent, notice);
  }

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  private async bot(): Promise<UserBrief | null> {
    const bot = await this.messages.systemBot(NOTIFICATION_BOT_EMAIL);
    if (!bot) this.logger.warn(`no ${NOTIFICATION_BOT_EMAIL} in the zulipinternal realm: notice not sent`);
    return bot;
  }

  async onChannelsCreated(event: ChannelsCreatedEvent): Promise<void> {
    const bot = await this.bot();
    if (!bot) return;
    const realm = await this.realms.getRealm(event.realmId);
    const items: Array<{ target: InternalTarget; content: string }> = [];
    if (event.announce && event.announcementChannelId !== null) {
      const target = await this.channelQueries.channelBrief(event.realmId, event.announcementChannelId);
      if (target && !target.deactivated) {
        const links = event.channels.map((c) => `#**${c.name}**`).join(', ');
        items.push({
          target: {
            kind: 'channel',
            channelId: target.id,
            recipientId: target.recipientId,
            name: target.name,
            topic: NEW_CHANNELS_TOPIC,
          },
          content:
            event.channels.length > 1
              ? `${silentMention(event.actor)} created the following channels: ${links}.`
              : `${silentMention(event.actor)} created a new channel ${links}.`,
        });
      }
    }
    if (event.sendChannelEventsMessages) {
      for (const channel of event.channels) {
        items.push({
          target: {
            kind: 'channel',
            channelId: channel.id,
            recipientId: channel.recipientId,
            name: channel.name,
            topic: channel.topicsPolicy === 'empty_topic_only' ? '' : CHANNEL_EVENTS_TOPIC,
          },
          content: `**${channelPolicyName(channel)}** channel created by ${silentMention(event.actor)}. **Description:**\n${quoteBlock(channel.description)}`,
        });
      }
    }
    await this.sender.sendInternal(realm, bot, items);
  }

  async onSubscribedByOthers(event: SubscribedByOthersEvent): Promise<void> {
    const bot = await this.bot();
    if (!bot) return;
    const realm = await this.realms.getRealm(event.realmId);
    const items = event.notifications.map(({ userId, channelNames }) => {
      const names = [...channelNames].sort();
      const content =
        names.length === 1
          ? `${silentMention(event.actor)} subscribed you to #**${names[0]}**.`
          : `${silentMention(event.actor)} subscribed you to the following channels:\n\n${names.map((n) => `* #**${n}**`).join('\n')}\n`;
      return { target: { kind: 'direct' as const, userId }, content };
    });
    await this.sender.sendInternal(realm, bot, items);
  }

  async onUsersLeftChannels(event: UsersLeftChannelsEvent): Promise<void> {
    const pairs = event.removed.flatMap(({ userId, recipientIds }) =>
      recipientIds.map((recipientId) => ({ userId, recipientId })),
    );
    const changedByUser = await this.flags.markReadInRecipients(pairs);
    for (const [userId, changed] of changedByUser) {
      this.events.sendOnCommit(event.realmId, flagsAddedEvent('read', changed), [userId]);
    }
  }

  async onChannelChanged(event: AnyChannelChangedEvent): Promise<void> {
    const bot = await this.bot();
    if (!bot) return;
    const realm = await this.realms.getRealm(event.realmId);
    const content = await this.noticeText(event.realmId, event.actor, event.channel.name, event.notice);
    const target: InternalTarget = {
      kind: 'channel',
      channelId: event.channel.id,
      recipientId: event.channel.recipientId,
      name: event.channel.name,
      topic: event.channel.topicsPolicy === 'empty_topic_only' ? '' : CHANNEL_EVENTS_TOPIC,
    };
    await this.sender.sendInternal(realm, bot, [{ target, content }]);
  }

  private async noticeText(
    realmId: number,
    actor: ChannelUser,
    channelName: string,
    notice: ChannelNotice,
  ): Promise<string> {
    const who = silentMention(actor);
    switch (notice.kind) {
      case 'archived':
        return `Channel #**${channelName}** has been archived.`;
      case 'unarchived':
        return `Channel #**${channelName}** has been unarchived.`;
      case 'renamed':
        return `${who} renamed channel **${notice.oldName}** to **${notice.newName}**.`;
      case 'description_changed':
        return (
          `${who} changed the description for this channel.\n\n` +
          `* **Old description:**\n${quoteBlock(notice.oldDescription)}\n` +
          `* **New description:**\n${quoteBlock(notice.newDescription)}`
        );
      case 'permission_changed':
        return `${who} changed the [access permissions](/help/channel-permissions) for this channel from **${notice.oldPolicyName}** to **${notice.newPolicyName}**.`;
      case 'message_retention_changed':
        return (
          `${who} has changed the [message retention period](/help/message-retention-policy) for this channel:\n` +
          `* **Old retention period**: ${retentionText(notice.oldDays, notice.realmDays)}\n` +
          `* **New retention period**: ${retentionText(notice.newDays, notice.realmDays)}`
        );
      case 'posting_permission_changed':
        return (
          `${who} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n` +
          `* **Old**: ${await this.groupSettingText(realmId, notice.oldValue)}\n` +
          `* **New**: ${await this.groupSettingText(realmId, notice.newValue)}`
        );
      case 'topics_policy_changed':
        return `${who} changed the [topics policy](/help/require-topics) for this channel from **${TOPICS_POLICY_LABELS[notice.oldPolicy] ?? notice.oldPolicy}** to **${TOPICS_POLICY_LABELS[notice.newPolicy] ?? notice.newPolicy}**.`;
    }
  }

  /** A group-setting value as text: a system group's label, a group mention, or the members. */
  private async groupSettingText(realmId: number, value: unknown): Promise<string> {
    if (typeof value === 'number') {
      const group = await this.userGroups.groupLabel(realmId, value);
      if (!group || group.name === null) return 'Nobody';
      return group.isSystemGroup ? (SYSTEM_GROUP_LABELS[group.name] ?? group.name) : `@_*${group.name}*`;
    }
    const v = value as { direct_members?: number[]; direct_subgroups?: number[] } | null;
    const members = v?.direct_members ?? [];
    const subgroups = v?.direct_subgroups ?? [];
    const parts: string[] = [];
    if (members.length > 0) {
      const users = await this.messages.usersByIdsInRealm(realmId, members);
      for (const u of users.sort((a, b) => a.id - b.id)) parts.push(silentMention({ id: u.id, fullName: u.fullName }));
    }
    for (const g of subgroups) parts.push(await this.groupSettingText(realmId, g));
    return parts.length > 0 ? parts.join(', ') : 'Nobody';
  }
}
