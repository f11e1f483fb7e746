import fc from 'fast-check';
import { Flag } from './flags';
import { topicForClient } from './message-text';
import {
  aggregateUnread,
  aggregateUnreadGroups,
  groupUnreadRows,
  type MutingState,
  type UnreadMessages,
  type UnreadRow,
} from './unread';

const row = (id: number, extra: Partial<UnreadRow>): UnreadRow => ({
  messageId: id,
  flags: 0,
  senderId: 9,
  recipientId: 1,
  topic: '',
  streamId: null,
  dmUserIds: null,
  ...extra,
});

describe('unread_msgs aggregation', () => {
  const noMuting = { mutedStreamIds: new Set<number>(), topicPolicy: () => 0 };

  it('groups DMs by the other participant, groups by their ids, channels by topic (case-insensitive)', () => {
    const result = aggregateUnread(
      5,
      [
        row(4, { dmUserIds: [5, 7] }),
        row(2, { dmUserIds: [5] }),
        row(3, { dmUserIds: [5, 6, 7] }),
        row(1, { streamId: 30, topic: 'Lunch' }),
        row(6, { streamId: 30, topic: 'lunch' }),
        row(5, { streamId: 20, topic: '' }),
      ],
      noMuting,
      false,
      false,
    );
    expect(result).toEqual({
      pms: [
        { other_user_id: 5, sender_id: 5, unread_message_ids: [2] },
        { other_user_id: 7, sender_id: 7, unread_message_ids: [4] },
      ],
      streams: [
        { stream_id: 20, topic: 'general chat', unread_message_ids: [5] },
        { stream_id: 30, topic: 'Lunch', unread_message_ids: [1, 6] },
      ],
      huddles: [{ user_ids_string: '5,6,7', unread_message_ids: [3] }],
      mentions: [],
      count: 6,
      old_unreads_missing: false,
    });
  });

  it('leaves muted conversations out of count and of wildcard mentions', () => {
    const muting = {
      mutedStreamIds: new Set([40]),
      topicPolicy: (stream: number, topic: string) =>
        stream === 30 && topic === 'quiet' ? 1 : stream === 40 && topic === 'loud' ? 3 : 0,
    };
    const result = aggregateUnread(
      5,
      [
        row(1, { streamId: 30, topic: 'Quiet', flags: Flag.stream_wildcard_mentioned }),
        row(2, { streamId: 30, topic: 'quiet', flags: Flag.mentioned }),
        row(3, { streamId: 40, topic: 'any', flags: Flag.topic_wildcard_mentioned }),
        row(4, { streamId: 40, topic: 'loud', flags: Flag.stream_wildcard_mentioned }),
        row(5, { dmUserIds: [5, 6], flags: Flag.stream_wildcard_mentioned }),
      ],
      muting,
      true,
      true,
    );
    expect(result.count).toBe(2);
    expect(result.mentions).toEqual([2, 4, 5]);
    expect(result.old_unreads_missing).toBe(true);
  });
});

/** Zulip's per-row aggregation (extract_unread_data_from_um_rows), the reference for the grouped one. */
function referenceAggregate(
  userId: number,
  rows: readonly UnreadRow[],
  muting: MutingState,
  allowEmptyTopicName: boolean,
  limitReached: boolean,
): UnreadMessages {
  const isMuted = (streamId: number, topic: string) => {
    const policy = muting.topicPolicy(streamId, topic.toLowerCase());
    if (muting.mutedStreamIds.has(streamId)) return !(policy === 2 || policy === 3);
    return policy === 1;
  };
  const pms = new Map<number, number[]>();
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
      const muted = isMuted(row.streamId, row.topic);
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
      pms.set(other, [...(pms.get(other) ?? []), row.messageId]);
    } else {
      const key = [...ids].sort((a, b) => a - b).join(',');
      huddles.set(key, [...(huddles.get(key) ?? []), row.messageId]);
    }
    if ((row.flags & Flag.mentioned) !== 0 || wildcard) mentions.add(row.messageId);
  }
  return {
    pms: [...pms]
      .sort(([a], [b]) => a - b)
      .map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
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

describe('unread_msgs aggregation by conversation', () => {
  const flagsArb = fc.constantFrom(
    0,
    Flag.mentioned,
    Flag.stream_wildcard_mentioned,
    Flag.topic_wildcard_mentioned,
    Flag.mentioned | Flag.topic_wildcard_mentioned,
    Flag.group_mentioned,
  );
  const rowArb = fc.oneof(
    fc.record({
      flags: flagsArb,
      streamId: fc.constantFrom(20, 30, 40),
      topic: fc.constantFrom('', 'Lunch', 'lunch', 'LUNCH', 'general chat', 'quiet', 'Quiet', 'loud', 'İstanbul'),
      dmUserIds: fc.constant(null),
    }),
    fc.record({
      flags: flagsArb,
      streamId: fc.constant(null),
      topic: fc.constant(''),
      dmUserIds: fc.constantFrom([5], [5, 6], [5, 7], [5, 6, 7], [6, 7, 8, 5], null),
    }),
  );
  const rowsArb = fc
    .uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 60 })
    .chain((ids) => fc.tuple(fc.constant(ids), fc.array(rowArb, { minLength: ids.length, maxLength: ids.length })))
    .map(([ids, parts]) =>
      parts.map((p, i): UnreadRow => ({
        messageId: ids[i],
        flags: p.flags,
        senderId: 9,
        // One recipient per channel; one per distinct group of participants.
        recipientId: p.streamId ?? 1000 + (p.dmUserIds?.length ?? 0) * 10 + (p.dmUserIds?.[1] ?? 0),
        topic: p.topic,
        streamId: p.streamId,
        dmUserIds: p.dmUserIds ? [...p.dmUserIds] : null,
      })),
    );

  it('is what the per-row aggregation gives, for any rows, muting and options', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.subarray([20, 30, 40]),
        fc.func(fc.constantFrom(0, 0, 1, 2, 3)),
        fc.boolean(),
        fc.boolean(),
        (rows, muted, policy, allowEmpty, limitReached) => {
          const muting = { mutedStreamIds: new Set(muted), topicPolicy: (s: number, t: string) => policy(s, t) };
          expect(aggregateUnread(5, rows, muting, allowEmpty, limitReached)).toEqual(
            referenceAggregate(5, rows, muting, allowEmpty, limitReached),
          );
          // As the statement returns them: groups in any order.
          const groups = groupUnreadRows(rows).reverse();
          expect(aggregateUnreadGroups(5, groups, muting, allowEmpty, limitReached)).toEqual(
            referenceAggregate(5, rows, muting, allowEmpty, limitReached),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
