import {
  formatEditHistory,
  isMeMessage,
  messageDict,
  type MessageRow,
  topicResolveToggled,
  type UserBrief,
} from './message-format';

const HAMLET: UserBrief = {
  id: 10,
  realmId: 1,
  fullName: 'King Hamlet',
  deliveryEmail: 'hamlet@zulip.com',
  emailAddressVisibility: 1,
  avatarSource: 'G',
  avatarVersion: 1,
  isActive: true,
  isBot: false,
  botOwnerId: null,
  role: 400,
  isMirrorDummy: false,
};
const OTHELLO: UserBrief = {
  ...HAMLET,
  id: 12,
  fullName: 'Othello',
  deliveryEmail: 'othello@zulip.com',
  emailAddressVisibility: 3,
};

const base: MessageRow = {
  id: 5,
  realmId: 1,
  senderId: 12,
  recipientId: 30,
  subject: '',
  content: '/me waves',
  renderedContent: '<p>/me waves</p>',
  dateSent: new Date('2025-01-02T03:04:05.678Z'),
  sendingClient: 'website',
  lastEditTime: null,
  editHistory: null,
  isChannelMessage: false,
  streamId: null,
  streamName: null,
  dmUserIds: [12, 10],
};
const opts = {
  applyMarkdown: true,
  clientGravatar: true,
  allowEmptyTopicName: false,
  realmStringId: 'zulip',
  realmHost: 'zulip.example.com',
};

describe('message dicts', () => {
  it("builds Zulip's fields for a direct message", () => {
    const users = new Map([
      [10, HAMLET],
      [12, OTHELLO],
    ]);
    const dict = messageDict(base, base.renderedContent!, users, [], opts);
    expect(dict).toMatchObject({
      id: 5,
      sender_id: 12,
      sender_email: 'user12@zulip.example.com',
      timestamp: 1735787045,
      type: 'private',
      subject: '',
      is_me_message: true,
      content_type: 'text/html',
      display_recipient: [
        { id: 10, email: 'hamlet@zulip.com', full_name: 'King Hamlet', is_mirror_dummy: false },
        { id: 12, email: 'user12@zulip.example.com', full_name: 'Othello', is_mirror_dummy: false },
      ],
    });
    // Othello's email is hidden, so the client cannot compute a gravatar: send the URL.
    expect(dict.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
    expect(dict).not.toHaveProperty('stream_id');
  });

  it('shows the empty topic to old clients and raw content without apply_markdown', () => {
    const channel = {
      ...base,
      isChannelMessage: true,
      streamId: 3,
      streamName: 'Verona',
      dmUserIds: null,
      senderId: 10,
    };
    const users = new Map([[10, HAMLET]]);
    expect(messageDict(channel, '<p>x</p>', users, [], opts)).toMatchObject({
      subject: 'general chat',
      stream_id: 3,
      avatar_url: null,
    });
    expect(
      messageDict(channel, '<p>x</p>', users, [], { ...opts, applyMarkdown: false, allowEmptyTopicName: true }),
    ).toMatchObject({
      subject: '',
      content: '/me waves',
      content_type: 'text/x-markdown',
    });
  });

  it('computes last_edit_timestamp / last_moved_timestamp from the edit history (resolving is not a move)', () => {
    const history = [
      { user_id: 1, timestamp: 300, prev_topic: 'a', topic: '✔ a' },
      { user_id: 1, timestamp: 200, prev_topic: 'b', topic: 'a', prev_rendered_content_version: 1 },
      { user_id: 1, timestamp: 100, prev_content: 'x', prev_rendered_content: '<p>x</p>' },
    ];
    const out = formatEditHistory(history, false);
    expect(out.last_moved_timestamp).toBe(200);
    expect(out.last_edit_timestamp).toBe(100);
    expect(out.edit_history![1]).not.toHaveProperty('prev_rendered_content_version');
    expect(formatEditHistory(null, false)).toEqual({});
    expect(formatEditHistory([{ timestamp: 5, prev_topic: '', topic: 'x' }], false).edit_history![0].prev_topic).toBe(
      'general chat',
    );
  });

  it("recognises Zulip's resolve/unresolve moves and /me messages", () => {
    expect(topicResolveToggled('✔ lunch', 'lunch')).toBe(true);
    expect(topicResolveToggled('lunch', '✔ lunch')).toBe(true);
    expect(topicResolveToggled('dinner', 'lunch')).toBe(false);
    expect(topicResolveToggled(`✔ ${'a'.repeat(55)}...`, 'a'.repeat(60))).toBe(true);
    expect(isMeMessage('/me x', '<p>/me x</p>')).toBe(true);
    expect(isMeMessage('/me x', '<p>x</p>')).toBe(false);
  });
});
