import { Flag } from './flags';
import { aggregateUnread, type UnreadRow } from './unread';

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
