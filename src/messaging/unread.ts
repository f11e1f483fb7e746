import { Flag } from './flags';
import { topicForClient } from './message-text';

/**
 * Zulip's unread_msgs aggregation (zerver/lib/message.py extract_unread_data_from_um_rows and
 * aggregate_unread_data). Pure: rows and muting state in, the register payload out.
 */

export interface UnreadRow {
  messageId: number;
  flags: number;
  senderId: number;
  recipientId: number;
  topic: string;
  /** Channel id for channel messages, null for direct messages. */
  streamId: number | null;
  /** Participants of a direct message (sorted), null for channel messages. */
  dmUserIds: number[] | null;
}

export interface MutingState {
  mutedStreamIds: ReadonlySet<number>;
  /** Visibility policy of (stream id, lower-case topic): 1 muted, 2 unmuted, 3 followed. */
  topicPolicy: (streamId: number, topic: string) => number;
}

export interface UnreadMessages {
  pms: Array<{ other_user_id: number; sender_id: number; unread_message_ids: number[] }>;
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  mentions: number[];
  count: number;
  old_unreads_missing: boolean;
}

/** Zulip's MAX_UNREAD_MESSAGES. */
export const MAX_UNREAD_MESSAGES = 50_000;

function isMuted(streamId: number, topic: string, muting: MutingState): boolean {
  const policy = muting.topicPolicy(streamId, topic.toLowerCase());
  if (muting.mutedStreamIds.has(streamId)) return !(policy === 2 || policy === 3);
  return policy === 1;
}

/**
 * Unread messages of one conversation as the unread_msgs statement groups them (channel and exact
 * topic, or direct-message recipient), each list ascending by id.
 */
export interface UnreadGroup {
  /** Channel id for channel messages, null for direct messages. */
  streamId: number | null;
  topic: string;
  /** Participants of a direct message (sorted), null for channel messages. */
  dmUserIds: number[] | null;
  ids: number[];
  /** Of `ids`: those with the `mentioned` flag. */
  mentioned: number[];
  /** Of `ids`: those with a wildcard mention flag and not `mentioned`. */
  wildcard: number[];
}

/** Rows grouped as the unread_msgs statement groups them (for callers holding rows). */
export function groupUnreadRows(rows: readonly UnreadRow[]): UnreadGroup[] {
  const groups = new Map<string, UnreadGroup>();
  for (const row of [...rows].sort((a, b) => a.messageId - b.messageId)) {
    const key = `${row.streamId}\u0000${row.topic}\u0000${row.recipientId}\u0000${row.dmUserIds?.join(',')}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        streamId: row.streamId,
        topic: row.topic,
        dmUserIds: row.dmUserIds,
        ids: [],
        mentioned: [],
        wildcard: [],
      };
      groups.set(key, group);
    }
    group.ids.push(row.messageId);
    if ((row.flags & Flag.mentioned) !== 0) group.mentioned.push(row.messageId);
    else if ((row.flags & WILDCARD_MENTION_FLAGS) !== 0) group.wildcard.push(row.messageId);
  }
  return [...groups.values()];
}

/** Both wildcard mention flags. */
export const WILDCARD_MENTION_FLAGS = Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned;

/** Zulip's aggregation over unread rows: {@link aggregateUnreadGroups} of their groups. */
export function aggregateUnread(
  userId: number,
  rows: readonly UnreadRow[],
  muting: MutingState,
  allowEmptyTopicName: boolean,
  limitReached: boolean,
): UnreadMessages {
  return aggregateUnreadGroups(userId, groupUnreadRows(rows), muting, allowEmptyTopicName, limitReached);
}

/**
 * Zulip's aggregation over conversations: channel topics merge case-insensitively (the bucket
 * shows the topic as written in its oldest unread message), direct messages by the other
 * participant or the group's members. A muted conversation counts nothing and its wildcard
 * mentions are no mentions.
 */
export function aggregateUnreadGroups(
  userId: number,
  groups: readonly UnreadGroup[],
  muting: MutingState,
  allowEmptyTopicName: boolean,
  limitReached: boolean,
): UnreadMessages {
  const pms = new Map<number, number[][]>();
  // Keyed by channel and lower-case topic; `first` (oldest id) picks the displayed topic.
  const streams = new Map<
    string,
    { lower: string; first: number; streamId: number; topic: string; lists: number[][] }
  >();
  const huddles = new Map<string, number[][]>();
  const mentions: number[] = [];
  let count = 0;
  const add = <K>(map: Map<K, number[][]>, key: K, ids: number[]) => {
    const lists = map.get(key);
    if (lists) lists.push(ids);
    else map.set(key, [ids]);
  };
  for (const group of groups) {
    if (group.ids.length === 0) continue;
    if (group.streamId !== null) {
      const muted = isMuted(group.streamId, group.topic, muting);
      if (!muted) count += group.ids.length;
      const topic = topicForClient(group.topic, allowEmptyTopicName);
      const lower = topic.toLowerCase();
      const key = `${group.streamId}\u0000${lower}`;
      const first = group.ids[0];
      const entry = streams.get(key);
      if (!entry) streams.set(key, { lower, first, streamId: group.streamId, topic, lists: [group.ids] });
      else {
        entry.lists.push(group.ids);
        if (first < entry.first) {
          entry.first = first;
          entry.topic = topic;
        }
      }
      mentions.push(...group.mentioned);
      if (!muted) mentions.push(...group.wildcard);
      continue;
    }
    count += group.ids.length;
    const ids = group.dmUserIds ?? [];
    if (ids.length <= 2) {
      add(pms, ids.length === 1 ? ids[0] : (ids.find((id) => id !== userId) ?? userId), group.ids);
    } else {
      add(huddles, [...ids].sort((a, b) => a - b).join(','), group.ids);
    }
    mentions.push(...group.mentioned, ...group.wildcard);
  }
  return {
    pms: [...pms]
      .sort(([a], [b]) => a - b)
      .map(([other, lists]) => ({ other_user_id: other, sender_id: other, unread_message_ids: merged(lists) })),
    // By channel id, then lower-case topic (compared without splitting the keys).
    streams: [...streams.values()]
      .sort((a, b) => a.streamId - b.streamId || (a.lower < b.lower ? -1 : a.lower > b.lower ? 1 : 0))
      .map((e) => ({ stream_id: e.streamId, topic: e.topic, unread_message_ids: merged(e.lists) })),
    huddles: [...huddles]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, lists]) => ({ user_ids_string: key, unread_message_ids: merged(lists) })),
    mentions: mentions.sort((a, b) => a - b),
    count,
    old_unreads_missing: limitReached,
  };
}

/** Ascending lists of distinct ids (a message is in one group) as one ascending list. */
function merged(lists: number[][]): number[] {
  if (lists.length === 1) return lists[0];
  return lists.flat().sort((a, b) => a - b);
}
