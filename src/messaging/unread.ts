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

export function aggregateUnread(
  userId: number,
  rows: readonly UnreadRow[],
  muting: MutingState,
  allowEmptyTopicName: boolean,
  limitReached: boolean,
): UnreadMessages {
  const pms = new Map<number, number[]>();
  // Keyed by channel and lower-case topic; `lower` is kept for the final sort.
  const streams = new Map<
    string,
    { lower: string; bucket: { stream_id: number; topic: string; unread_message_ids: number[] } }
  >();
  const huddles = new Map<string, number[]>();
  const mentions = new Set<number>();
  let count = 0;
  for (const row of [...rows].sort((a, b) => a.messageId - b.messageId)) {
    const wildcard = (row.flags & (Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned)) !== 0;
    if (row.streamId !== null) {
      const muted = isMuted(row.streamId, row.topic, muting);
      if (!muted) count++;
      const topic = topicForClient(row.topic, allowEmptyTopicName);
      const lower = topic.toLowerCase();
      const key = `${row.streamId}\u0000${lower}`;
      let entry = streams.get(key);
      if (!entry)
        streams.set(key, (entry = { lower, bucket: { stream_id: row.streamId, topic, unread_message_ids: [] } }));
      entry.bucket.unread_message_ids.push(row.messageId);
      if ((row.flags & Flag.mentioned) !== 0 || (wildcard && !muted)) mentions.add(row.messageId);
      continue;
    }
    count++;
    const ids = row.dmUserIds ?? [];
    if (ids.length <= 2) {
      const other = ids.length === 1 ? ids[0] : (ids.find((id) => id !== userId) ?? userId);
      const list = pms.get(other) ?? [];
      list.push(row.messageId);
      pms.set(other, list);
    } else {
      const key = [...ids].sort((a, b) => a - b).join(',');
      const list = huddles.get(key) ?? [];
      list.push(row.messageId);
      huddles.set(key, list);
    }
    if ((row.flags & Flag.mentioned) !== 0 || wildcard) mentions.add(row.messageId);
  }
  return {
    pms: [...pms]
      .sort(([a], [b]) => a - b)
      .map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    // By channel id, then lower-case topic (compared without splitting the keys).
    streams: [...streams.values()]
      .sort((a, b) => a.bucket.stream_id - b.bucket.stream_id || (a.lower < b.lower ? -1 : a.lower > b.lower ? 1 : 0))
      .map((e) => e.bucket),
    huddles: [...huddles]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions: [...mentions].sort((a, b) => a - b),
    count,
    old_unreads_missing: limitReached,
  };
}
