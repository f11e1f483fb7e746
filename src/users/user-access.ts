/**
 * Which users a user may see (can_access_all_users_group), as pure rules over loaded data. Zulip's
 * zerver/lib/users.py: check_user_can_access_all_users, check_can_access_user,
 * get_accessible_user_ids, get_data_for_inaccessible_user.
 *
 * Only guests are ever restricted, and only when the realm's setting is not role:everyone. A
 * restricted guest sees themselves, every bot, the active users subscribed to a channel they are
 * subscribed to, and the participants of their direct-message conversations (deactivated ones
 * included, as Zulip's user lists include deactivated direct-message group members).
 * `UserAccessService.forViewer` loads the peers with one query; everything else is decided here.
 */
import { Role } from '../realm/system-groups';

/** Zulip's UserProfile.INACCESSIBLE_USER_NAME. */
export const INACCESSIBLE_USER_NAME = 'Unknown user';
/** Zulip's get_avatar_for_inaccessible_user (a static file, relative to the server). */
export const INACCESSIBLE_USER_AVATAR_PATH = '/static/images/unknown-user-avatar.png';

/** Whom one viewer may see: everyone, or a restricted guest's peers. */
export type UserAccess =
  | { readonly restricted: false; readonly viewerId: number }
  | {
      readonly restricted: true;
      readonly viewerId: number;
      /** Users subscribed to a channel the viewer is subscribed to (counted only while active). */
      readonly channelPeers: ReadonlySet<number>;
      /** Users in a direct-message conversation with the viewer. */
      readonly directPeers: ReadonlySet<number>;
    };

/** The fields of a user the rule reads. */
export interface AccessTarget {
  id: number;
  isBot: boolean;
  isActive: boolean;
}

/** Zulip's check_can_access_user over loaded peers. */
export function canAccessUser(access: UserAccess, target: AccessTarget): boolean {
  if (!access.restricted) return true;
  if (target.id === access.viewerId || target.isBot) return true;
  if (access.directPeers.has(target.id)) return true;
  return target.isActive && access.channelPeers.has(target.id);
}

/**
 * Zulip's get_accessible_user_ids membership test, for data keyed by user id only (presence): the
 * viewer and their peers (bots, which have no such data, are not asked about).
 */
export function isAccessibleUserId(access: UserAccess, userId: number): boolean {
  if (!access.restricted) return true;
  return userId === access.viewerId || access.directPeers.has(userId) || access.channelPeers.has(userId);
}

/**
 * Zulip's get_data_for_inaccessible_user: what a restricted guest is told about a user they may
 * not see ("Unknown user", a fixed avatar, an active member who joined at the epoch).
 */
export function inaccessibleUserDict(userId: number, realmHost: string): Record<string, unknown> {
  return {
    email: `user${userId}@${realmHost}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    is_bot: false,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: '',
    is_active: true,
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    role: Role.MEMBER,
    avatar_url: INACCESSIBLE_USER_AVATAR_PATH,
    profile_data: {},
  };
}

/**
 * Zulip's get_user_ids_who_can_access_user, given the candidate recipients (active users with
 * their roles) and the target's peers: everyone when nobody is restricted or the target is a bot;
 * else every non-guest, the target, and the guests who share a conversation with the target
 * (sharing is symmetric, so the target's peers are the guests who may see the target).
 */
export function whoCanAccess(
  target: AccessTarget,
  candidates: ReadonlyArray<{ id: number; role: number }>,
  targetPeers: UserAccess,
): number[] {
  if (!targetPeers.restricted || target.isBot) return candidates.map((c) => c.id);
  return candidates
    .filter(
      (c) =>
        c.role !== Role.GUEST ||
        c.id === target.id ||
        targetPeers.directPeers.has(c.id) ||
        (target.isActive && targetPeers.channelPeers.has(c.id)),
    )
    .map((c) => c.id);
}

/** A user whose subscriptions changed, and whom that could make visible or invisible. */
export interface SubscriptionChangeAccess {
  /** The user whose subscriptions changed. */
  userId: number;
  /**
   * The subscribers of the channels they joined (after the change) or left (those remaining),
   * the users whose access to them (or theirs to them) may have changed.
   */
  others: Iterable<number>;
  /**
   * Their channel and direct-message peers apart from those channels: before the change for a
   * subscribe, after it for an unsubscribe.
   */
  peers: { channelPeers: ReadonlySet<number>; directPeers: ReadonlySet<number> };
}

/** One restricted guest (`viewerId`) who gained or lost sight of one user (`userId`). */
export interface AccessChange {
  viewerId: number;
  userId: number;
}

/**
 * Zulip's send_user_creation_events_on_adding_subscriptions and
 * send_user_remove_events_on_removing_subscriptions, as pairs: in a realm that restricts
 * can_access_all_users_group, a guest sharing a joined (left) channel with a user who shares no
 * other conversation with them gains (loses) sight of that user, both ways. Only active humans
 * are ever gained or lost: a bot is always visible, a deactivated user only through a
 * direct-message conversation. Pairs are unique; the changing user is never their own viewer.
 */
export function accessChangesOnSubscriptions(
  changes: readonly SubscriptionChangeAccess[],
  people: ReadonlyMap<number, { role: number; isBot: boolean; isActive: boolean }>,
): AccessChange[] {
  const out: AccessChange[] = [];
  const seen = new Set<string>();
  const add = (viewerId: number, userId: number) => {
    const key = `${viewerId}:${userId}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ viewerId, userId });
  };
  const visibleByChannel = (p: { isBot: boolean; isActive: boolean } | undefined) =>
    p !== undefined && !p.isBot && p.isActive;
  for (const change of changes) {
    const user = people.get(change.userId);
    if (!user) continue;
    for (const otherId of change.others) {
      if (otherId === change.userId) continue;
      if (change.peers.channelPeers.has(otherId) || change.peers.directPeers.has(otherId)) continue;
      const other = people.get(otherId);
      if (!other) continue;
      if (other.role === Role.GUEST && visibleByChannel(user)) add(otherId, change.userId);
      if (user.role === Role.GUEST && visibleByChannel(other)) add(change.userId, otherId);
    }
  }
  return out;
}
