import { failureNotice } from './scheduled-delivery.service';
import { mentionList, normalizeNote, reminderContent } from './reminder-content';
import { extractChannelId, extractUserIds } from './scheduled-messages.service';

const URL = 'http://zulip.testserver';
const hamlet = { id: 10, fullName: 'King Hamlet' };
const othello = { id: 12, fullName: 'Othello' };
const iago = { id: 11, fullName: 'Iago' };

describe('reminderContent (Zulip’s get_reminder_formatted_content)', () => {
  it('quotes a channel message, with a note', () => {
    const text = reminderContent(
      URL,
      {
        id: 5,
        content: 'Hi there',
        sender: othello,
        channel: { id: 3, name: 'Verona', topic: 'a b' },
        participants: null,
      },
      'look\n',
    );
    expect(text).toBe(
      'You requested a reminder for the following message. Note:\n > look\n\n' +
        '@_**Othello|12** [said](http://zulip.testserver/#narrow/channel/3-Verona/topic/a.20b/near/5) in #**Verona>a b@5**:\n' +
        '```quote\nHi there\n```',
    );
  });

  it('names the other participants of a direct message; oneself when alone', () => {
    const group = reminderContent(
      URL,
      { id: 7, content: 'x', sender: othello, channel: null, participants: [hamlet, iago, othello] },
      null,
    );
    expect(group).toContain(
      '[said](http://zulip.testserver/#narrow/dm/10,11,12-group/near/7) to @_**King Hamlet|10** and @_**Iago|11**:',
    );
    const self = reminderContent(
      URL,
      { id: 8, content: 'x', sender: hamlet, channel: null, participants: [hamlet] },
      null,
    );
    expect(self).toContain('[said](http://zulip.testserver/#narrow/dm/10-dm/near/8) to @_**King Hamlet|10**:');
    expect(self.startsWith('You requested a reminder for the following direct message.\n\n')).toBe(true);
  });

  it('names polls and to-do lists instead of quoting them', () => {
    const poll = reminderContent(
      URL,
      {
        id: 9,
        content: '/poll Lunch?',
        sender: othello,
        channel: { id: 3, name: 'Verona', topic: 't' },
        participants: null,
      },
      null,
    );
    expect(
      poll.endsWith(
        '@_**Othello|12** [sent](http://zulip.testserver/#narrow/channel/3-Verona/topic/t/near/9) a poll in #**Verona>t@9**.',
      ),
    ).toBe(true);
    const todo = reminderContent(
      URL,
      { id: 9, content: '/todo', sender: othello, channel: null, participants: [othello, hamlet] },
      null,
    );
    expect(todo).toContain('a todo list to @_**King Hamlet|10**.');
  });

  it('truncates a long message so the reminder fits, and picks a longer fence when needed', () => {
    const text = reminderContent(
      URL,
      { id: 1, content: 'y'.repeat(20_000), sender: othello, channel: null, participants: [othello, hamlet] },
      null,
    );
    expect(text.length).toBeLessThanOrEqual(10_000);
    expect(text.endsWith('\n[message truncated]\n```')).toBe(true);
  });

  it('notes: trailing space and leading newlines go; over 1000 characters is refused', () => {
    expect(normalizeNote('\n\nhello  \n')).toBe('hello');
    expect(() => normalizeNote('x'.repeat(1001))).toThrow('Maximum reminder note length: 1000 characters');
    expect(normalizeNote('é'.repeat(1000))).toHaveLength(1000);
  });

  it('mention lists', () => {
    expect(mentionList([hamlet])).toBe('@_**King Hamlet|10**');
    expect(mentionList([hamlet, iago, othello])).toBe('@_**King Hamlet|10**, @_**Iago|11**, and @_**Othello|12**');
  });
});

describe('recipient parsing (Zulip’s recipient_parsing)', () => {
  it('a channel id is Python’s int() of the text', () => {
    expect(extractChannelId(' 12 ')).toBe(12);
    expect(extractChannelId('+7')).toBe(7);
    expect(extractChannelId('1_000')).toBe(1000);
    for (const bad of ['Verona', '1.5', '[1]', ''])
      expect(() => extractChannelId(bad)).toThrow('Invalid data type for channel ID');
  });

  it('direct recipients are a JSON list of integers, deduplicated', () => {
    expect(extractUserIds('[3, 3, 4]')).toEqual([3, 4]);
    expect(() => extractUserIds('3,4')).toThrow('Invalid data type for recipients');
    expect(() => extractUserIds('{"a":1}')).toThrow('Invalid data type for recipients');
    expect(() => extractUserIds('["a@b.c"]')).toThrow('Recipient list may only contain user IDs');
    expect(() => extractUserIds('[1.5]')).toThrow('Recipient list may only contain user IDs');
  });
});

describe('failureNotice (send_failed_scheduled_message_notification)', () => {
  it('names the time and quotes the error', () => {
    expect(failureNotice(new Date('2026-01-02T03:04:05Z'), 'Nope')).toBe(
      'The message you scheduled for <time:2026-01-02T03:04:05+00:00> was not sent because of the following error:\n\n' +
        '> Nope\n\n[View scheduled messages](#scheduled)\n\n',
    );
  });
});
