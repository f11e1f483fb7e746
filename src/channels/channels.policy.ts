import { Role } from '../common/roles';
import { isGuest } from '../users/principal';
import { SystemGroupName } from '../realm/system-groups';
import { StreamPostPolicy } from './channel-settings';
import { ChannelErrors, ChannelFolderErrors, TopicErrors } from './channel.errors';
import { ParamErrors } from '../common/errors/param.errors';

/**
 * Pure permission rules for channels (zerver/lib/streams.py, zerver/lib/subscription_info.py):
 * loaded data in, boolean or error text out. No Nest, no database.
 */

/** What the rules need to know about the acting user. */
export interface ChannelActor {
  id: number;
  role: number;
  /**
   * Every group the user belongs to, directly or through subgroups (their role's system groups
   * included), as Zulip's get_recursive_membership_groups.
   */
  groupIds: ReadonlySet<number>;
}

/** What the rules need to know about a channel. */
export interface ChannelPermissionView {
  inviteOnly: boolean;
  isWebPublic: boolean;
  canAdministerChannelGroup: number;
  canAddSubscribersGroup: number;
  canSubscribeGroup: number;
  canRemoveSubscribersGroup: number;
}

// One definition of guests and public-channel access, in the authorization kernel (users/principal.ts).
export { isGuest, canAccessPublicChannels } from '../users/principal';

export function isRealmAdmin(actor: Pick<ChannelActor, 'role'>): boolean {
  return actor.role <= Role.ADMINISTRATOR;
}

/**
 * Does `actor` hold a group setting whose value is `groupId`? Guests never hold settings that may
 * not be role:everyone (user_has_permission_for_group_setting).
 */
export function holdsGroupSetting(actor: ChannelActor, groupId: number, allowEveryone: boolean): boolean {
  if (isGuest(actor) && !allowEveryone) return false;
  return actor.groupIds.has(groupId);
}

/** Membership of can_administer_channel_group, can_add_subscribers_group or can_subscribe_group. */
export function hasMetadataAccessViaGroups(actor: ChannelActor, ch: ChannelPermissionView): boolean {
  if (isGuest(actor)) return false;
  return (
    actor.groupIds.has(ch.canAdministerChannelGroup) ||
    actor.groupIds.has(ch.canAddSubscribersGroup) ||
    actor.groupIds.has(ch.canSubscribeGroup)
  );
}

/** Members of can_subscribe_group or can_add_subscribers_group can read a private channel. */
export function isInGroupsGrantingContentAccess(actor: ChannelActor, ch: ChannelPermissionView): boolean {
  if (isGuest(actor)) return false;
  return actor.groupIds.has(ch.canSubscribeGroup) || actor.groupIds.has(ch.canAddSubscribersGroup);
}

/** May `actor` know the channel exists and see its name, description and settings? */
export function canAccessChannelMetadata(actor: ChannelActor, ch: ChannelPermissionView, subscribed: boolean): boolean {
  if (ch.isWebPublic || subscribed) return true;
  if (isGuest(actor)) return false;
  if (!ch.inviteOnly) return true;
  if (isRealmAdmin(actor)) return true;
  return hasMetadataAccessViaGroups(actor, ch);
}

/** May `actor` read the channel's messages? (Administrators do not get this by their role.) */
export function canAccessChannelContent(actor: ChannelActor, ch: ChannelPermissionView, subscribed: boolean): boolean {
  if (ch.isWebPublic || subscribed) return true;
  if (isGuest(actor)) return false;
  if (!ch.inviteOnly) return true;
  return isInGroupsGrantingContentAccess(actor, ch);
}

/**
 * Zulip's check_basic_stream_access: content access, or (when content is not required) metadata
 * access as an administrator or through the channel's groups.
 */
export function hasBasicChannelAccess(
  actor: ChannelActor,
  ch: ChannelPermissionView,
  subscribed: boolean,
  requireContentAccess: boolean,
): boolean {
  if (canAccessChannelContent(actor, ch, subscribed)) return true;
  if (requireContentAccess) return false;
  return isRealmAdmin(actor) || hasMetadataAccessViaGroups(actor, ch);
}

/** Organization administrators, or members of can_administer_channel_group (never guests). */
export function isChannelAdministrator(actor: ChannelActor, ch: ChannelPermissionView): boolean {
  if (isRealmAdmin(actor)) return true;
  return holdsGroupSetting(actor, ch.canAdministerChannelGroup, false);
}

/**
 * Outcome of check_stream_access_for_delete_or_update_requiring_metadata_access: `allowed` for
 * channel administrators; `forbidden` ("You do not have permission to administer this
 * channel.") for users who can read the channel; `invisible` ("Invalid channel ID") otherwise,
 * so that a private channel's existence is not revealed.
 */
export function channelAdministrationAccess(
  actor: ChannelActor,
  ch: ChannelPermissionView,
  subscribed: boolean,
): 'allowed' | 'forbidden' | 'invisible' {
  if (isChannelAdministrator(actor, ch)) return 'allowed';
  if (canAccessChannelContent(actor, ch, subscribed)) return 'forbidden';
  return 'invisible';
}

/**
 * May `actor` subscribe other users to a channel they can read
 * (get_streams_to_which_user_cannot_add_subscribers)? `realmWide` is membership of the realm's
 * can_add_subscribers_group, which covers every channel the user can read.
 */
export function canSubscribeOthers(actor: ChannelActor, ch: ChannelPermissionView, realmWide: boolean): boolean {
  if (realmWide) return true;
  if (isRealmAdmin(actor)) return true;
  if (isGuest(actor)) return false;
  return actor.groupIds.has(ch.canAdministerChannelGroup) || actor.groupIds.has(ch.canAddSubscribersGroup);
}

/**
 * May `actor` unsubscribe other users from all of `channels` (bulk_can_remove_subscribers_from_streams)?
 * Administrators always may; channel administrators of every listed channel may; otherwise the
 * user needs basic access to each channel and membership of each can_remove_subscribers_group.
 */
export function canRemoveSubscribers(
  actor: ChannelActor,
  channels: ReadonlyArray<{ channel: ChannelPermissionView; subscribed: boolean }>,
): boolean {
  if (isRealmAdmin(actor)) return true;
  if (isGuest(actor)) return false;
  if (channels.every(({ channel }) => actor.groupIds.has(channel.canAdministerChannelGroup))) return true;
  for (const { channel, subscribed } of channels) {
    if (!hasBasicChannelAccess(actor, channel, subscribed, false)) return false;
  }
  return channels.every(({ channel }) => actor.groupIds.has(channel.canRemoveSubscribersGroup));
}

/** May `actor` see who is subscribed (validate_user_access_to_subscribers_helper)? */
export function canSeeSubscribers(actor: ChannelActor, ch: ChannelPermissionView, subscribed: boolean): boolean {
  if (ch.isWebPublic) return true;
  if (isGuest(actor)) return subscribed;
  if (isRealmAdmin(actor)) return true;
  if (hasMetadataAccessViaGroups(actor, ch)) return true;
  return !ch.inviteOnly || subscribed;
}

/**
 * Does a user who has unsubscribed still see the channel (has_metadata_access_to_previously_subscribed_stream)?
 */
export function keepsMetadataAfterUnsubscribing(actor: ChannelActor, ch: ChannelPermissionView): boolean {
  if (ch.isWebPublic) return true;
  if (isGuest(actor)) return false;
  if (ch.inviteOnly) return isRealmAdmin(actor) || hasMetadataAccessViaGroups(actor, ch);
  return true;
}

/** Legacy stream_post_policy from the system group can_send_message_group names (others: 1). */
export function streamPostPolicyFor(systemGroupName: SystemGroupName | undefined): number {
  if (systemGroupName === 'role:administrators') return StreamPostPolicy.ADMINS;
  if (systemGroupName === 'role:fullmembers') return StreamPostPolicy.RESTRICT_NEW_MEMBERS;
  if (systemGroupName === 'role:moderators') return StreamPostPolicy.MODERATORS;
  return StreamPostPolicy.EVERYONE;
}

export const MAX_CHANNEL_NAME_LENGTH = 60;

/**
 * 1-based position of the first character Zulip refuses in names (check_string_is_printable:
 * Unicode categories Cc, Cs, Cn), or undefined.
 */
export function firstUnprintablePosition(text: string): number | undefined {
  let position = 0;
  for (const ch of text) {
    position++;
    if (/[\p{Cc}\p{Cs}\p{Cn}]/u.test(ch)) return position;
  }
  return undefined;
}

/** Zulip's check_stream_name: the error text, or undefined when the name is fine. */
export function channelNameError(name: string): string | undefined {
  if (name.trim() === '') return ChannelErrors.nameEmpty().message;
  if ([...name].length > MAX_CHANNEL_NAME_LENGTH) {
    return ChannelErrors.nameTooLong(MAX_CHANNEL_NAME_LENGTH).message;
  }
  const pos = firstUnprintablePosition(name);
  if (pos !== undefined) return ChannelErrors.invalidNameCharacter(pos).message;
  return undefined;
}

/** Zulip's check_channel_folder_name rules that need no database (emptiness, characters). */
export function channelFolderNameError(name: string): string | undefined {
  if (name.trim() === '') return ChannelFolderErrors.nameEmpty().message;
  const pos = firstUnprintablePosition(name);
  if (pos !== undefined) return ChannelFolderErrors.invalidNameCharacter(pos).message;
  return undefined;
}

/**
 * The combinations Zulip refuses (update_stream_backend): web-public channels must be public
 * with public history, and public channels must have public history.
 */
export function permissionCombinationError(p: {
  inviteOnly: boolean;
  historyPublicToSubscribers: boolean;
  isWebPublic: boolean;
}): string | undefined {
  if (p.isWebPublic && !p.historyPublicToSubscribers) return ChannelErrors.invalidPermissionCombination().message;
  if (p.isWebPublic && p.inviteOnly) return ChannelErrors.invalidPermissionCombination().message;
  if (!p.inviteOnly && !p.historyPublicToSubscribers) return ChannelErrors.invalidPermissionCombination().message;
  return undefined;
}

/** History is always public for public channels; private ones default to protected history. */
export function defaultHistoryPublicToSubscribers(inviteOnly: boolean, requested: boolean | undefined): boolean {
  if (!inviteOnly) return true;
  return requested ?? false;
}

/**
 * Zulip's parse_message_retention_days with Stream.MESSAGE_RETENTION_SPECIAL_VALUES_MAP:
 * `realm_default` → null, `unlimited` → -1, a positive integer → itself.
 */
export function parseMessageRetentionDays(
  value: unknown,
): { ok: true; days: number | null } | { ok: false; error: string } {
  if (value === 'realm_default') return { ok: true, days: null };
  if (value === 'unlimited') return { ok: true, days: -1 };
  if (typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2_147_483_647) {
    return { ok: true, days: value };
  }
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  return { ok: false, error: ParamErrors.badValue('message_retention_days', shown).message };
}

/**
 * Descriptions are free text, but PostgreSQL text cannot hold NUL; like CommonMark, replace it
 * with U+FFFD instead of failing.
 */
export function cleanDescription(text: string): string {
  return text.includes('\0') ? text.replace(/\0/g, '\uFFFD') : text;
}

/**
 * A topic that cannot be stored (it contains NUL): the error text, as Zulip's topic validation
 * words it, or undefined.
 */
export function topicCharacterError(topic: string): string | undefined {
  let position = 0;
  for (const ch of topic) {
    position++;
    if (ch === '\0') return TopicErrors.invalidCharacter(position).message;
  }
  return undefined;
}

/** Topic placeholders that mean the empty topic (DECISIONS #9). */
export function normalizeTopicPlaceholder(topic: string, emptyTopicDisplayName: string): string {
  return topic === '(no topic)' || topic === emptyTopicDisplayName ? '' : topic;
}

const HEX_COLOR = /^#([a-fA-F0-9]{3,6})$/;

export function isValidColor(value: unknown): value is string {
  return typeof value === 'string' && HEX_COLOR.test(value);
}

/**
 * Zulip's pick_colors: requested colors first, then unused palette colors in recipient order,
 * then palette colors by recipient id.
 */
export function pickColors(
  usedColors: ReadonlySet<string>,
  requested: ReadonlyMap<number, string>,
  recipientIds: readonly number[],
  palette: readonly string[],
): Map<number, string> {
  const used = new Set(usedColors);
  const result = new Map<number, string>();
  const others: number[] = [];
  for (const id of [...recipientIds].sort((a, b) => a - b)) {
    const color = requested.get(id);
    if (color !== undefined) {
      result.set(id, color);
      used.add(color);
    } else {
      others.push(id);
    }
  }
  const available = palette.filter((c) => !used.has(c));
  others.forEach((id, i) => result.set(id, i < available.length ? available[i] : palette[id % palette.length]));
  return result;
}

/** What a set-based access check needs to know about each channel. */
export interface AccessibleChannel extends ChannelPermissionView {
  id: number;
  deactivated: boolean;
  recipientId: number | null;
}

/**
 * Set-based channel access (Zulip's access_stream_by_id for many ids at once): of `requestedIds`,
 * the first one, in the caller's order, that `actor` may not use — not found in the realm, archived
 * (when `requireActive`), or refused by the content (`'content'`) or metadata (`'metadata'`) rule.
 * `subscribedRecipientIds`: the recipients of the actor's active subscriptions among these channels.
 * Undefined when every channel is accessible. "Does not exist" and "no access" are one answer.
 */
export function firstRefusedChannel(
  actor: ChannelActor,
  requestedIds: readonly number[],
  found: ReadonlyMap<number, AccessibleChannel>,
  subscribedRecipientIds: ReadonlySet<number>,
  level: 'content' | 'metadata',
  requireActive: boolean,
): number | undefined {
  for (const id of requestedIds) {
    const ch = found.get(id);
    if (!ch) return id;
    if (requireActive && ch.deactivated) return id;
    const subscribed = ch.recipientId !== null && subscribedRecipientIds.has(ch.recipientId);
    const allowed =
      level === 'content'
        ? canAccessChannelContent(actor, ch, subscribed)
        : canAccessChannelMetadata(actor, ch, subscribed);
    if (!allowed) return id;
  }
  return undefined;
}
