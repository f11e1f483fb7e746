import type { DomainEventFields } from '../events/domain-event-bus';

/**
 * What the channels module publishes on the domain-event bus (events/domain-event-bus.ts) for the
 * modules above it. Channels come before messaging in the module DAG, so they cannot send
 * messages themselves: messaging subscribes to these classes at start-up and posts Zulip's
 * Notification Bot messages (zerver/views/streams.py send_messages_for_new_subscribers,
 * zerver/actions/streams.py send_*_notification and maybe_send_channel_events_notice), marks
 * messages read, and answers {@link EmptyTopicOnlyRequestedEvent}. Every one of them is published
 * inside the channel change's transaction and has in-transaction subscribers: the notices are part
 * of the change (same transaction, their events right after the channel's).
 *
 * Search for a class name to find the publisher and every listener.
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

/** Channels created by a subscribe request. */
export class ChannelsCreatedEvent {
  declare readonly realmId: number;
  declare readonly actor: ChannelUser;
  declare readonly channels: CreatedChannel[];
  /**
   * The `announce` parameter. When true and the realm has a new-channel announcements channel,
   * post in it (topic "new channels"): "@_**actor** created a new channel #**name**." or "…
   * created the following channels: #**a**, #**b**.".
   */
  declare readonly announce: boolean;
  /** realm.new_stream_announcements_stream_id at the time of creation (null: none). */
  declare readonly announcementChannelId: number | null;
  /**
   * realm.send_channel_events_messages. When true, post in each new channel (topic "channel
   * events", or the empty topic for empty_topic_only channels): "**Public** channel created by
   * @_**actor**. **Description:**" + the description in a quote block ("*No description.*"
   * when empty); "Web-public", "Private, shared history", "Private, protected history" likewise.
   */
  declare readonly sendChannelEventsMessages: boolean;

  constructor(fields: DomainEventFields<ChannelsCreatedEvent>) {
    Object.assign(this, fields);
  }
}

/**
 * Users subscribed by someone else to existing channels, who get one Notification Bot DM each
 * (never for channels created by the request, never to bots): "@_**actor** subscribed you to
 * #**name**." or "… subscribed you to the following channels:\n\n* #**a**\n* #**b**\n". Only
 * published when the request asked for it (send_new_subscription_messages) and at most
 * max_bulk_new_subscription_messages users were newly subscribed.
 */
export class SubscribedByOthersEvent {
  declare readonly realmId: number;
  declare readonly actor: ChannelUser;
  declare readonly notifications: Array<{ userId: number; channelNames: string[] }>;

  constructor(fields: DomainEventFields<SubscribedByOthersEvent>) {
    Object.assign(this, fields);
  }
}

/** Users left channels (Zulip marks the messages there read: unread messages need a subscription). */
export class UsersLeftChannelsEvent {
  declare readonly realmId: number;
  /** Per user: the recipient ids of the channels they left. */
  declare readonly removed: Array<{ userId: number; recipientIds: number[] }>;

  constructor(fields: DomainEventFields<UsersLeftChannelsEvent>) {
    Object.assign(this, fields);
  }
}

/**
 * A question before a channel is set to topics_policy `empty_topic_only`: does it have messages
 * in a non-empty topic? Messages belong to messaging, which answers by setting
 * {@link namedTopicsFound} in its in-transaction subscriber (false when nobody answers).
 */
export class EmptyTopicOnlyRequestedEvent {
  namedTopicsFound = false;

  constructor(
    readonly realmId: number,
    readonly recipientId: number,
  ) {}
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

export interface ChangedChannel {
  id: number;
  name: string;
  recipientId: number;
  deactivated: boolean;
  topicsPolicy: string;
}

/** The fields every channel change carries; `notice` says what changed. */
abstract class ChannelChangedEvent<K extends ChannelNotice['kind']> {
  declare readonly realmId: number;
  declare readonly actor: ChannelUser;
  /** The channel after the change. */
  declare readonly channel: ChangedChannel;
  declare readonly notice: Extract<ChannelNotice, { kind: K }>;

  constructor(fields: {
    realmId: number;
    actor: ChannelUser;
    channel: ChangedChannel;
    notice: Extract<ChannelNotice, { kind: K }>;
  }) {
    Object.assign(this, fields);
  }
}

export class ChannelArchivedEvent extends ChannelChangedEvent<'archived'> {}
export class ChannelUnarchivedEvent extends ChannelChangedEvent<'unarchived'> {}
export class ChannelRenamedEvent extends ChannelChangedEvent<'renamed'> {}
export class ChannelDescriptionChangedEvent extends ChannelChangedEvent<'description_changed'> {}
/** Privacy: public, web-public, private with shared or protected history. */
export class ChannelPermissionChangedEvent extends ChannelChangedEvent<'permission_changed'> {}
export class ChannelMessageRetentionChangedEvent extends ChannelChangedEvent<'message_retention_changed'> {}
/** can_send_message_group. */
export class ChannelPostingPermissionChangedEvent extends ChannelChangedEvent<'posting_permission_changed'> {}
export class ChannelTopicsPolicyChangedEvent extends ChannelChangedEvent<'topics_policy_changed'> {}

/** Any of the channel change classes above. */
export type AnyChannelChangedEvent =
  | ChannelArchivedEvent
  | ChannelUnarchivedEvent
  | ChannelRenamedEvent
  | ChannelDescriptionChangedEvent
  | ChannelPermissionChangedEvent
  | ChannelMessageRetentionChangedEvent
  | ChannelPostingPermissionChangedEvent
  | ChannelTopicsPolicyChangedEvent;

const CHANGE_EVENT_OF = {
  archived: ChannelArchivedEvent,
  unarchived: ChannelUnarchivedEvent,
  renamed: ChannelRenamedEvent,
  description_changed: ChannelDescriptionChangedEvent,
  permission_changed: ChannelPermissionChangedEvent,
  message_retention_changed: ChannelMessageRetentionChangedEvent,
  posting_permission_changed: ChannelPostingPermissionChangedEvent,
  topics_policy_changed: ChannelTopicsPolicyChangedEvent,
} as const satisfies { [K in ChannelNotice['kind']]: new (fields: never) => ChannelChangedEvent<K> };

/** Every channel change class, for subscribers that treat them alike. */
export const CHANNEL_CHANGED_EVENTS = Object.values(CHANGE_EVENT_OF);

/** The event class for a change, e.g. ChannelRenamedEvent for `{ kind: 'renamed', … }`. */
export function channelChangedEvent(fields: {
  realmId: number;
  actor: ChannelUser;
  channel: ChangedChannel;
  notice: ChannelNotice;
}): AnyChannelChangedEvent {
  const EventClass = CHANGE_EVENT_OF[fields.notice.kind] as new (f: typeof fields) => AnyChannelChangedEvent;
  return new EventClass(fields);
}
