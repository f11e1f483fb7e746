import type { QueueOptions } from './event-queue';
import { messageMatchesNarrow, queueAcceptsEvent } from './event-filter';

const options = (o: Partial<QueueOptions> = {}): QueueOptions => ({
  userId: 10,
  realmId: 2,
  eventTypes: null,
  allPublicStreams: false,
  applyMarkdown: false,
  clientGravatar: true,
  narrow: [],
  clientCapabilities: {},
  clientName: 'test',
  ...o,
});

const channelMessage = {
  type: 'stream',
  display_recipient: 'Denmark',
  subject: 'Castle',
  sender_email: 'hamlet@zulip.com',
};
const directMessage = { type: 'private', display_recipient: [], subject: '', sender_email: 'iago@zulip.com' };

describe('messageMatchesNarrow (build_narrow_predicate)', () => {
  it.each([
    [[['stream', 'denmark']], channelMessage, [], true],
    [[['channel', 'Denmark']], channelMessage, [], true],
    [[['stream', 'Verona']], channelMessage, [], false],
    [[['stream', 'Denmark']], directMessage, [], false],
    [
      [
        ['stream', 'Denmark'],
        ['topic', 'CASTLE'],
      ],
      channelMessage,
      [],
      true,
    ],
    [[['topic', 'Moat']], channelMessage, [], false],
    [[['topic', 'x']], directMessage, [], false],
    [[['sender', 'HAMLET@zulip.com']], channelMessage, [], true],
    [[['sender', 'iago@zulip.com']], channelMessage, [], false],
    [[['is', 'dm']], directMessage, [], true],
    [[['is', 'private']], channelMessage, [], false],
    [[['is', 'starred']], channelMessage, ['starred'], true],
    [[['is', 'starred']], channelMessage, [], false],
    [[['is', 'unread']], channelMessage, ['read'], false],
    [[['is', 'unread']], channelMessage, [], true],
    [[['is', 'mentioned']], channelMessage, ['mentioned'], true],
    [[['is', 'alerted']], channelMessage, [], false],
    [[['is', 'resolved']], { ...channelMessage, subject: '✔ Castle' }, [], true],
    [[['is', 'resolved']], channelMessage, [], false],
  ] as Array<[Array<[string, string]>, Record<string, unknown>, string[], boolean]>)(
    '%j on %j with flags %j → %s',
    (narrow, message, flags, expected) => {
      expect(messageMatchesNarrow(narrow, message, flags)).toBe(expected);
    },
  );
});

describe('queueAcceptsEvent (ClientDescriptor.accepts_event)', () => {
  it('honours event_types and suppresses muted_topics for user_topic clients', () => {
    expect(queueAcceptsEvent(options({ eventTypes: ['message'] }), { type: 'realm' })).toBe(false);
    expect(queueAcceptsEvent(options({ eventTypes: ['muted_topics'] }), { type: 'muted_topics' })).toBe(true);
    expect(queueAcceptsEvent(options({ eventTypes: ['muted_topics', 'user_topic'] }), { type: 'muted_topics' })).toBe(
      false,
    );
    expect(queueAcceptsEvent(options({ eventTypes: ['message'] }), { type: 'heartbeat' })).toBe(true);
  });

  it('filters message events by the narrow', () => {
    const narrowed = options({ narrow: [['stream', 'Denmark']] });
    expect(queueAcceptsEvent(narrowed, { type: 'message', message: channelMessage, flags: [] })).toBe(true);
    expect(queueAcceptsEvent(narrowed, { type: 'message', message: directMessage, flags: [] })).toBe(false);
    // Other event types are not narrowed.
    expect(queueAcceptsEvent(narrowed, { type: 'reaction', op: 'add' })).toBe(true);
  });

  it('sends channel typing only with stream_typing_notifications', () => {
    const channelTyping = { type: 'typing', op: 'start', stream_id: 3, topic: 't' };
    const dmTyping = { type: 'typing', op: 'start', recipients: [] };
    expect(queueAcceptsEvent(options(), channelTyping)).toBe(false);
    expect(
      queueAcceptsEvent(options({ clientCapabilities: { stream_typing_notifications: true } }), channelTyping),
    ).toBe(true);
    expect(queueAcceptsEvent(options(), dmTyping)).toBe(true);
  });

  it('sends the legacy settings events only without user_settings_object', () => {
    const legacy = { type: 'update_display_settings', setting_name: 'emojiset', setting: 'text' };
    expect(queueAcceptsEvent(options(), legacy)).toBe(true);
    expect(queueAcceptsEvent(options({ clientCapabilities: { user_settings_object: true } }), legacy)).toBe(false);
  });
});
