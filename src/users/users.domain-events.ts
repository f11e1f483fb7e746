/**
 * What the users module publishes on the domain-event bus (events/domain-event-bus.ts) for the
 * modules above it. Subscribers name the class: search for it to find every listener.
 */

/**
 * A deactivated user was reactivated (do_reactivate_user). Published inside the reactivation's
 * transaction; channels answers with `peer_add` for the channels the user is still subscribed to
 * (an in-transaction subscriber, so those events follow the `realm_user` update in every queue).
 */
export class UserReactivatedEvent {
  constructor(
    readonly realmId: number,
    readonly userId: number,
  ) {}
}

/**
 * Restricted guests lose sight of a user being deactivated (`guestIds`, who get `realm_user`
 * remove instead of the update that makes other clients drop the user from subscriber lists).
 * Published inside the deactivation's transaction, before the remove; channels answers with
 * `peer_remove` for the user's channels to those guests (Zulip sends peer_remove on deactivation
 * since feature level 377).
 */
export class UserHiddenFromGuestsEvent {
  constructor(
    readonly realmId: number,
    readonly userId: number,
    readonly guestIds: readonly number[],
  ) {}
}

/**
 * A user changed some of their own settings through PATCH /settings (do_change_user_setting).
 * Published inside the change's transaction after the rows and events of the change: presence
 * answers `presence_enabled` (invisible mode) with a presence update, as Zulip does.
 */
export class UserSettingsChangedEvent {
  constructor(
    readonly realmId: number,
    readonly userId: number,
    /** Each changed setting's old and new value. */
    readonly changes: ReadonlyMap<string, { old: unknown; new: unknown }>,
  ) {}
}

/**
 * A user muted another (do_mute_user). Published inside the mute's transaction: messaging marks
 * the muted user's unread messages read for the muter (do_mark_muted_user_messages_as_read).
 */
export class UserMutedEvent {
  constructor(
    readonly realmId: number,
    readonly userId: number,
    readonly mutedUserId: number,
  ) {}
}

/**
 * A question (answered in the publisher's call, like channels' EmptyTopicOnlyRequestedEvent): who
 * shares a conversation with `userId`? Published by UserAccessService for restricted guests (and
 * for the users they may or may not see); messaging, which owns direct-message groups and reads
 * subscriptions, fills both sets with one query. `among`, when given, limits the answer to those ids.
 */
/**
 * The batch form of ConversationPeersRequestedEvent: for each of `userIds`, which of `among` share
 * a conversation with them (channel peers counted while active, direct-message peers always).
 * Answered with one query, whatever the number of users.
 */
export class ConversationPeerPairsRequestedEvent {
  /** By user id: peers through a channel both are actively subscribed to. */
  readonly channelPeers = new Map<number, Set<number>>();
  /** By user id: peers through a direct-message conversation. */
  readonly directPeers = new Map<number, Set<number>>();

  constructor(
    readonly realmId: number,
    readonly userIds: readonly number[],
    readonly among: readonly number[],
    /**
     * Subscriptions to leave out of the channel half (the rows a subscribe just added or
     * re-activated): the peers as they were before that change.
     */
    readonly excludedSubscriptions: ReadonlyArray<{ userId: number; recipientId: number }> = [],
  ) {}
}

export class ConversationPeersRequestedEvent {
  /** Users subscribed to a channel `userId` is subscribed to (active or not: the rule checks). */
  readonly channelPeers = new Set<number>();
  /** Participants of the direct-message conversations of `userId`. */
  readonly directPeers = new Set<number>();

  constructor(
    readonly realmId: number,
    readonly userId: number,
    readonly among: readonly number[] | null,
  ) {}
}
