import { canAccessPublicChannels, isGuest } from '../users/principal';

/**
 * Who may see which messages (Zulip's has_message_access, can_access_stream_history and
 * has_channel_content_access_helper). Pure functions over loaded rows: the callers load the
 * channel, the caller's subscription, their UserMessage row and, only when needed, the groups
 * they belong to.
 */

/** The channel fields access decisions read. */
export interface ChannelAccessFields {
  id: number;
  realmId: number;
  name: string;
  recipientId: number;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  deactivated: boolean;
  canSubscribeGroup: number;
  canAddSubscribersGroup: number;
}

/** The `stream` columns (snake_case, as SELECTed) that ChannelAccessFields come from. */
export interface ChannelAccessRow {
  id: number;
  realm_id: number;
  name: string;
  recipient_id: number;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  deactivated: boolean;
  can_subscribe_group: number;
  can_add_subscribers_group: number;
}

/** Maps a raw `stream` row to the fields every channel access check reads. */
export function channelAccessFields(r: ChannelAccessRow): ChannelAccessFields {
  return {
    id: r.id,
    realmId: r.realm_id,
    name: r.name,
    recipientId: r.recipient_id,
    inviteOnly: r.invite_only,
    isWebPublic: r.is_web_public,
    historyPublicToSubscribers: r.history_public_to_subscribers,
    deactivated: r.deactivated,
    canSubscribeGroup: r.can_subscribe_group,
    canAddSubscribersGroup: r.can_add_subscribers_group,
  };
}

export interface Viewer {
  id: number;
  realmId: number;
  role: number;
}

// One definition of guests and public-channel access, in the authorization kernel (users/principal.ts).
export { isGuest, canAccessPublicChannels } from '../users/principal';

/**
 * Membership in the groups that give content access to a channel without subscribing
 * (can_subscribe_group, can_add_subscribers_group); neither allows role:everyone, so guests
 * never qualify. `groupIds` are all groups the user belongs to, recursively.
 */
export function inContentAccessGroups(
  user: Pick<Viewer, 'role'>,
  channel: Pick<ChannelAccessFields, 'canSubscribeGroup' | 'canAddSubscribersGroup'>,
  groupIds: ReadonlySet<number>,
): boolean {
  if (isGuest(user)) return false;
  return groupIds.has(channel.canSubscribeGroup) || groupIds.has(channel.canAddSubscribersGroup);
}

/** Whether deciding access to `channel` needs the user's group memberships at all. */
export function contentAccessNeedsGroups(
  user: Pick<Viewer, 'role'>,
  channel: Pick<ChannelAccessFields, 'inviteOnly' | 'isWebPublic'>,
  subscribed: boolean,
): boolean {
  return !subscribed && !isGuest(user) && channel.inviteOnly && !channel.isWebPublic;
}

/** Content access to a channel (Zulip's user_has_content_access). */
export function hasChannelContentAccess(
  user: Viewer,
  channel: ChannelAccessFields,
  subscribed: boolean,
  groupIds: ReadonlySet<number> | null,
): boolean {
  if (channel.realmId !== user.realmId) return false;
  if (channel.isWebPublic) return true;
  if (subscribed) return true;
  if (isGuest(user)) return false;
  if (!channel.inviteOnly) return true;
  return groupIds !== null && inContentAccessGroups(user, channel, groupIds);
}

/**
 * Whether the user may read the channel's history from before they received messages in it
 * (Zulip's can_access_stream_history): then narrows to the channel read the message table,
 * not only the user's UserMessage rows.
 */
export function canAccessChannelHistory(
  user: Viewer,
  channel: ChannelAccessFields,
  subscribed: boolean,
  groupIds: ReadonlySet<number> | null,
): boolean {
  if (channel.realmId !== user.realmId) return false;
  if (channel.isWebPublic) return true;
  if (!channel.inviteOnly && !isGuest(user)) return true;
  if (channel.historyPublicToSubscribers) return hasChannelContentAccess(user, channel, subscribed, groupIds);
  return false;
}

export interface MessageAccessInput {
  isChannelMessage: boolean;
  realmId: number;
  /** The channel of a channel message (null for direct messages). */
  channel: ChannelAccessFields | null;
  hasUserMessage: boolean;
  subscribed: boolean;
}

/**
 * Zulip's has_message_access: direct messages need a UserMessage row; channel messages need the
 * same realm, then public-channel access (non-guests), or content access to the channel, and —
 * for private channels with protected history — also a UserMessage row. With
 * `isModifying`, messages in archived channels are refused.
 */
export function hasMessageAccess(
  user: Viewer,
  message: MessageAccessInput,
  groupIds: ReadonlySet<number> | null,
  isModifying: boolean,
): boolean {
  if (message.realmId !== user.realmId) return false;
  if (!message.isChannelMessage) return message.hasUserMessage;
  const channel = message.channel;
  if (channel === null || channel.realmId !== user.realmId) return false;
  if (isModifying && channel.deactivated) return false;
  if (!channel.inviteOnly && canAccessPublicChannels(user)) return true;
  const contentAccess =
    message.subscribed || (!isGuest(user) && groupIds !== null && inContentAccessGroups(user, channel, groupIds));
  if (!channel.historyPublicToSubscribers) return message.hasUserMessage && contentAccess;
  return contentAccess;
}

/** Whether {@link hasMessageAccess} may need the user's groups for this message. */
export function messageAccessNeedsGroups(user: Viewer, message: MessageAccessInput): boolean {
  if (!message.isChannelMessage || message.channel === null || message.subscribed || isGuest(user)) return false;
  return message.channel.inviteOnly;
}
