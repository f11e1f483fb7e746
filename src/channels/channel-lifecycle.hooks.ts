import { Injectable } from '@nestjs/common';

/**
 * What channels tells the messaging module about. Channels come before messaging in the module
 * DAG, so it cannot send messages itself; instead it calls these hooks, inside the transaction of
 * the change, and messaging (which imports ChannelsModule) registers its implementation at start
 * up with `ChannelLifecycleHooks.register(handler)`. Until then every hook is a no-op.
 *
 * The notices are Zulip's Notification Bot messages (zerver/views/streams.py
 * send_messages_for_new_subscribers, zerver/actions/streams.py send_*_notification and
 * maybe_send_channel_events_notice); the texts and conditions to reproduce are noted per hook.
 */

export interface ChannelUser {
  id: number;
  fullName: string;
}

export interface CreatedChannel {
  id: number;
  name: string;
  recipientId: number;
  inviteOnly: boolean;
  historyPublicToSubscribers: boolean;
  isWebPublic: boolean;
  description: string;
  /** API name (`inherit`, `empty_topic_only`, …): empty_topic_only channels use the empty topic. */
  topicsPolicy: string;
}

export interface ChannelsCreatedEvent {
  realmId: number;
  actor: ChannelUser;
  channels: CreatedChannel[];
  /**
   * The `announce` parameter. When true and the realm has a new-channel announcements channel,
   * post in it (topic "new channels"): "@_**actor** created a new channel #**name**." or "…
   * created the following channels: #**a**, #**b**.".
   */
  announce: boolean;
  /** realm.new_stream_announcements_stream_id at the time of creation (null: none). */
  announcementChannelId: number | null;
  /**
   * realm.send_channel_events_messages. When true, post in each new channel (topic "channel
   * events", or the empty topic for empty_topic_only channels): "**Public** channel created by
   * @_**actor**. **Description:**" + the description in a quote block ("*No description.*"
   * when empty); "Web-public", "Private, shared history", "Private, protected history" likewise.
   */
  sendChannelEventsMessages: boolean;
}

export interface SubscribedByOthersEvent {
  realmId: number;
  actor: ChannelUser;
  /**
   * One Notification Bot DM per user who was subscribed by someone else to existing channels
   * (never for channels created by the request, never to bots): "@_**actor** subscribed you to
   * #**name**." or "… subscribed you to the following channels:\n\n* #**a**\n* #**b**\n". Only
   * called when the request asked for it (send_new_subscription_messages) and at most
   * max_bulk_new_subscription_messages users were newly subscribed.
   */
  notifications: Array<{ userId: number; channelNames: string[] }>;
}

export interface SubscriptionsRemovedEvent {
  realmId: number;
  /** Per user: the recipient ids of the channels they left (Zulip marks those messages read). */
  removed: Array<{ userId: number; recipientIds: number[] }>;
}

/** A change to an existing channel that Zulip announces in the channel's "channel events" topic. */
export type ChannelNotice =
  | { kind: 'archived' }
  | { kind: 'unarchived' }
  | { kind: 'renamed'; oldName: string; newName: string }
  | { kind: 'description_changed'; oldDescription: string; newDescription: string }
  | { kind: 'permission_changed'; oldPolicyName: string; newPolicyName: string }
  | { kind: 'message_retention_changed'; oldDays: number | null; newDays: number | null; realmDays: number }
  | { kind: 'posting_permission_changed'; oldValue: unknown; newValue: unknown }
  | { kind: 'topics_policy_changed'; oldPolicy: string; newPolicy: string };

export interface ChannelNoticeEvent {
  realmId: number;
  actor: ChannelUser;
  channel: { id: number; name: string; recipientId: number; deactivated: boolean; topicsPolicy: string };
  notice: ChannelNotice;
}

export interface ChannelLifecycleHandler {
  onChannelsCreated(event: ChannelsCreatedEvent): Promise<void>;
  onSubscribedByOthers(event: SubscribedByOthersEvent): Promise<void>;
  onSubscriptionsRemoved(event: SubscriptionsRemovedEvent): Promise<void>;
  onChannelNotice(event: ChannelNoticeEvent): Promise<void>;
  /** Does the channel have messages in a non-empty topic? (topics_policy empty_topic_only needs none.) */
  channelHasNamedTopics(realmId: number, recipientId: number): Promise<boolean>;
}

const NO_MESSAGES: ChannelLifecycleHandler = {
  onChannelsCreated: async () => undefined,
  onSubscribedByOthers: async () => undefined,
  onSubscriptionsRemoved: async () => undefined,
  onChannelNotice: async () => undefined,
  channelHasNamedTopics: async () => false,
};

/** The registry channels calls through; messaging registers the real handler. */
@Injectable()
export class ChannelLifecycleHooks {
  private current: ChannelLifecycleHandler = NO_MESSAGES;

  register(handler: ChannelLifecycleHandler): void {
    this.current = handler;
  }

  get handler(): ChannelLifecycleHandler {
    return this.current;
  }
}
