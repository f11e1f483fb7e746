import { Role } from '../common/roles';
import type { Stream } from './channel.entity';
import type { RealmUserRow } from './channels.repository';

/**
 * Who receives channel events (zerver/lib/streams.py bulk_can_access_stream_metadata_user_ids,
 * zerver/lib/subscription_info.py bulk_get_subscriber_peer_info). Pure: the caller loads the
 * realm's active users, the subscribers and the members of the metadata-granting groups once.
 */
export interface AudienceData {
  /** Active users of the realm. */
  users: RealmUserRow[];
  /** Active subscribers (active users) per recipient id. */
  subscribers: Map<number, number[]>;
  /** Active non-guest members per group id (recursive). */
  groupMembers: Map<number, Set<number>>;
}

export type AudienceStream = Pick<
  Stream,
  | 'id'
  | 'recipientId'
  | 'inviteOnly'
  | 'isWebPublic'
  | 'canAdministerChannelGroup'
  | 'canAddSubscribersGroup'
  | 'canSubscribeGroup'
>;

export function activeUserIds(data: AudienceData): Set<number> {
  return new Set(data.users.map((u) => u.id));
}

export function nonGuestUserIds(data: AudienceData): Set<number> {
  return new Set(data.users.filter((u) => u.role !== Role.GUEST).map((u) => u.id));
}

export function guestUserIds(data: AudienceData): Set<number> {
  return new Set(data.users.filter((u) => u.role === Role.GUEST).map((u) => u.id));
}

/** Organization administrators and owners (bots with those roles included). */
export function adminUserIds(data: AudienceData): Set<number> {
  return new Set(data.users.filter((u) => u.role <= Role.ADMINISTRATOR).map((u) => u.id));
}

export function subscribersOf(stream: AudienceStream, data: AudienceData): number[] {
  return stream.recipientId === null ? [] : (data.subscribers.get(stream.recipientId) ?? []);
}

/** Users with metadata access through can_administer / can_add_subscribers / can_subscribe. */
export function metadataGroupMembers(stream: AudienceStream, data: AudienceData): Set<number> {
  const out = new Set<number>();
  for (const groupId of [stream.canAdministerChannelGroup, stream.canAddSubscribersGroup, stream.canSubscribeGroup]) {
    for (const id of data.groupMembers.get(groupId) ?? []) out.add(id);
  }
  return out;
}

/**
 * Users who can see that the channel exists: for public channels every non-guest plus guest
 * subscribers; for private channels subscribers, administrators and members of the
 * metadata-granting groups.
 */
export function metadataAudience(stream: AudienceStream, data: AudienceData): Set<number> {
  const subs = subscribersOf(stream, data);
  if (!stream.inviteOnly) {
    const out = nonGuestUserIds(data);
    const guests = guestUserIds(data);
    for (const id of subs) if (guests.has(id)) out.add(id);
    return out;
  }
  const out = new Set<number>(subs);
  for (const id of adminUserIds(data)) out.add(id);
  for (const id of metadataGroupMembers(stream, data)) out.add(id);
  return out;
}

/** Who is told a new channel exists (create_stream_if_needed). */
export function creationAudience(stream: AudienceStream, data: AudienceData): Set<number> {
  if (!stream.inviteOnly) return stream.isWebPublic ? activeUserIds(data) : nonGuestUserIds(data);
  const out = adminUserIds(data);
  for (const id of metadataGroupMembers(stream, data)) out.add(id);
  return out;
}

/** Users who track the subscriber list of a private channel (private_peer_dict). */
export function privatePeers(stream: AudienceStream, data: AudienceData): Set<number> {
  const out = new Set<number>(subscribersOf(stream, data));
  for (const id of adminUserIds(data)) out.add(id);
  for (const id of metadataGroupMembers(stream, data)) out.add(id);
  return out;
}

/** One peer_add / peer_remove event and who gets it. */
export interface PeerEvent {
  streamIds: number[];
  userIds: number[];
  recipients: Set<number>;
}

/**
 * Zulip's send_peer_subscriber_events: private channels one event each to their peers;
 * public channels grouped by the set of changed users — one event for the web-public ones (to
 * everyone), one for those without guest subscribers (to every non-guest), one each for the rest
 * (non-guests plus their subscribers). Changed users never get their own peer event.
 */
export function peerEvents(
  streams: AudienceStream[],
  altered: Map<number, Set<number>>,
  data: AudienceData,
): PeerEvent[] {
  const events: PeerEvent[] = [];
  const byId = new Map(streams.map((s) => [s.id, s]));
  const nonGuests = nonGuestUserIds(data);
  const everyone = activeUserIds(data);
  const minus = (set: Iterable<number>, remove: Set<number>) => new Set([...set].filter((id) => !remove.has(id)));
  const publicGroups = new Map<string, number[]>();
  for (const [streamId, users] of altered) {
    const stream = byId.get(streamId);
    if (!stream || users.size === 0) continue;
    const userIds = [...users].sort((a, b) => a - b);
    if (stream.inviteOnly) {
      const recipients = minus(privatePeers(stream, data), users);
      if (recipients.size > 0) events.push({ streamIds: [streamId], userIds, recipients });
      continue;
    }
    const key = userIds.join(',');
    const list = publicGroups.get(key) ?? [];
    list.push(streamId);
    publicGroups.set(key, list);
  }
  for (const [key, streamIds] of publicGroups) {
    const userIds = key.split(',').map(Number);
    const users = new Set(userIds);
    const webPublic: number[] = [];
    const withoutGuests: number[] = [];
    for (const streamId of streamIds) {
      const stream = byId.get(streamId)!;
      if (stream.isWebPublic) {
        webPublic.push(streamId);
        continue;
      }
      const subs = subscribersOf(stream, data);
      if (subs.every((id) => nonGuests.has(id))) {
        withoutGuests.push(streamId);
      } else {
        const recipients = minus([...nonGuests, ...subs], users);
        events.push({ streamIds: [streamId], userIds, recipients });
      }
    }
    if (webPublic.length > 0) {
      events.push({ streamIds: webPublic.sort((a, b) => a - b), userIds, recipients: minus(everyone, users) });
    }
    if (withoutGuests.length > 0) {
      events.push({ streamIds: withoutGuests.sort((a, b) => a - b), userIds, recipients: minus(nonGuests, users) });
    }
  }
  return events.filter((e) => e.recipients.size > 0);
}
