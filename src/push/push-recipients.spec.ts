import { PushSettings, TopicVisibility } from './notifiability';
import { computePushRecipients, mentionedGroupsByUser, PushCandidate } from './push-recipients';

const settings: PushSettings = {
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_stream_push_notifications: false,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  wildcard_mentions_notify: true,
};

function candidate(userId: number, over: Partial<PushCandidate> = {}): PushCandidate {
  return {
    userId,
    isBot: false,
    settings,
    flags: [],
    subscription: { isMuted: false, pushNotifications: null, wildcardMentionsNotify: null },
    topicVisibility: TopicVisibility.INHERIT,
    senderMuted: false,
    idle: true,
    ...over,
  };
}

describe('computePushRecipients', () => {
  const channel = { senderId: 1, isDirectMessage: false };

  it('keeps the users with a trigger, with it', () => {
    const result = computePushRecipients(channel, [
      candidate(1, { flags: ['read', 'mentioned'] }), // the sender
      candidate(2, { flags: ['mentioned'] }),
      candidate(3), // nothing to push
      candidate(4, { flags: ['stream_wildcard_mentioned'] }),
      candidate(5, { topicVisibility: TopicVisibility.FOLLOWED }),
      candidate(6, { flags: ['mentioned'], isBot: true }),
    ]);
    expect(result).toEqual([
      { userId: 2, trigger: 'mentioned' },
      { userId: 4, trigger: 'stream_wildcard_mentioned' },
      { userId: 5, trigger: 'followed_topic' },
    ]);
  });

  it('skips messages already read, and active users without online push', () => {
    const offlineOnly = { ...settings, enable_online_push_notifications: false };
    const result = computePushRecipients({ senderId: 1, isDirectMessage: true }, [
      candidate(2, { flags: ['read'], subscription: undefined }),
      candidate(3, { idle: false, settings: offlineOnly, subscription: undefined }),
      candidate(4, { idle: true, settings: offlineOnly, subscription: undefined }),
      candidate(4, { subscription: undefined }), // listed twice: once
    ]);
    expect(result).toEqual([{ userId: 4, trigger: 'direct_message' }]);
  });

  it('attaches the mentioned group and the sender’s inaccessibility', () => {
    const groups = mentionedGroupsByUser([2], [{ id: 30, name: 'hamletcharacters', memberIds: [2, 3] }]);
    const result = computePushRecipients(
      channel,
      [candidate(2, { flags: ['mentioned'] }), candidate(3, { flags: ['mentioned'], canAccessSender: false })],
      groups,
    );
    expect(result).toEqual([
      { userId: 2, trigger: 'mentioned' },
      {
        userId: 3,
        trigger: 'mentioned',
        mentionedUserGroup: { id: 30, name: 'hamletcharacters' },
        canAccessSender: false,
      },
    ]);
  });
});

describe('mentionedGroupsByUser', () => {
  it('prefers the smallest group and skips personally mentioned users', () => {
    const map = mentionedGroupsByUser(
      [4],
      [
        { id: 1, name: 'big', memberIds: [2, 3, 4, 5] },
        { id: 2, name: 'small', memberIds: [3, 4] },
        { id: 3, name: 'same size as small', memberIds: [5, 6] },
      ],
    );
    expect(Object.fromEntries(map)).toEqual({
      2: { id: 1, name: 'big' },
      3: { id: 2, name: 'small' },
      5: { id: 3, name: 'same size as small' },
      6: { id: 3, name: 'same size as small' },
    });
  });
});
