import { ZulipError } from '../common/errors/zulip-error';
import { Flag } from './flags';
import {
  AutoVisibility,
  autoVisibilityEnabled,
  checkChannelName,
  directMessageGroupHash,
  effectiveTopicsPolicy,
  extractPrivateRecipients,
  extractStreamIndicator,
  htmlEscape,
  topicsPolicyError,
  userMessageFlags,
  visibilityPolicyAfterSend,
  wildcardNeedsPermission,
} from './send.policy';

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as ZulipError).message;
  }
  return 'no error';
}

describe('send policy', () => {
  describe('extractStreamIndicator', () => {
    it.each([
      ['Verona', 'Verona'],
      ['5', 5],
      ['"5"', '5'],
      ['["Verona"]', 'Verona'],
      ['[7]', 7],
      ['not json {', 'not json {'],
    ])('%s → %p', (raw, expected) => expect(extractStreamIndicator(raw)).toEqual(expected));

    it('refuses lists of several channels and other JSON', () => {
      expect(errorOf(() => extractStreamIndicator('["a", "b"]'))).toBe('Expected exactly one channel');
      expect(errorOf(() => extractStreamIndicator('{"a": 1}'))).toBe('Invalid data type for channel');
      expect(errorOf(() => extractStreamIndicator('1.5'))).toBe('Invalid data type for channel');
      expect(errorOf(() => extractStreamIndicator('true'))).toBe('Invalid data type for channel');
    });
  });

  describe('extractPrivateRecipients', () => {
    it('accepts JSON lists and comma-separated emails, deduplicated', () => {
      expect(extractPrivateRecipients('[1, 2, 1]')).toEqual([1, 2]);
      expect(extractPrivateRecipients('["a@x.com", " a@x.com ", "b@x.com"]')).toEqual(['a@x.com', 'b@x.com']);
      expect(extractPrivateRecipients('a@x.com, b@x.com,')).toEqual(['a@x.com', 'b@x.com']);
      expect(extractPrivateRecipients('[]')).toEqual([]);
      expect(extractPrivateRecipients('""')).toEqual([]);
    });

    it('refuses mixed lists and other types', () => {
      expect(errorOf(() => extractPrivateRecipients('[1, "a"]'))).toBe(
        'Recipient lists may contain emails or user IDs, but not both.',
      );
      expect(errorOf(() => extractPrivateRecipients('["a", 1]'))).toBe(
        'Recipient lists may contain emails or user IDs, but not both.',
      );
      expect(errorOf(() => extractPrivateRecipients('{}'))).toBe('Invalid data type for recipients');
      expect(errorOf(() => extractPrivateRecipients('[1.5]'))).toBe('Invalid data type for recipients');
      expect(errorOf(() => extractPrivateRecipients('5'))).toBe('Invalid data type for recipients');
    });
  });

  it('checks channel names like Zulip', () => {
    expect(errorOf(() => checkChannelName(' '))).toBe("Channel name can't be empty.");
    expect(errorOf(() => checkChannelName('a'.repeat(61)))).toBe('Channel name too long (limit: 60 characters).');
    expect(errorOf(() => checkChannelName('abc\u0000'))).toBe('Invalid character in channel name, at position 4.');
    expect(errorOf(() => checkChannelName('fine'))).toBe('no error');
  });

  it('escapes names for error messages', () => {
    expect(htmlEscape(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#x27;&amp;&#x27;&lt;/a&gt;');
  });

  it('applies topics policies, the realm one when the channel inherits', () => {
    expect(effectiveTopicsPolicy(1, 'allow_empty_topic')).toBe(2);
    expect(effectiveTopicsPolicy(1, 'disable_empty_topic')).toBe(3);
    expect(effectiveTopicsPolicy(4, 'disable_empty_topic')).toBe(4);
    expect(topicsPolicyError(3, '')).toBe('Sending messages to the general chat is not allowed in this channel.');
    expect(topicsPolicyError(3, 'x')).toBeNull();
    expect(topicsPolicyError(4, 'x')).toBe('Only the general chat topic is allowed in this channel.');
    expect(topicsPolicyError(4, '')).toBeNull();
    expect(topicsPolicyError(2, '')).toBeNull();
  });

  it('needs can_mention_many_users_group only above 15', () => {
    expect(wildcardNeedsPermission(15)).toBe(false);
    expect(wildcardNeedsPermission(16)).toBe(true);
  });

  describe('automatic visibility policy (Zulip visibility_policy_for_send_message)', () => {
    const s = (follow: number, unmute: number) => ({
      automatically_follow_topics_policy: follow,
      automatically_unmute_topics_in_muted_streams_policy: unmute,
    });
    const { ON_PARTICIPATION, ON_SEND, ON_INITIATION, NEVER } = AutoVisibility;
    it.each([
      // follow, unmute, muted channel, current, starts topic → result
      [ON_INITIATION, NEVER, false, 0, true, 3],
      [ON_INITIATION, NEVER, false, 0, false, null],
      [ON_SEND, NEVER, false, 0, false, 3],
      [ON_PARTICIPATION, NEVER, false, 0, false, 3],
      [NEVER, ON_SEND, true, 0, false, 2],
      [NEVER, ON_SEND, false, 0, false, null],
      [NEVER, ON_INITIATION, true, 0, true, 2],
      [NEVER, ON_INITIATION, true, 0, false, null],
      [ON_SEND, ON_SEND, true, 0, false, 3],
      [ON_SEND, NEVER, false, 3, true, null],
      [NEVER, ON_SEND, true, 2, false, null],
      [ON_SEND, NEVER, false, 1, false, 3],
      [NEVER, ON_SEND, true, 1, false, 2],
      [ON_INITIATION, NEVER, false, 1, true, null],
    ])('follow %i unmute %i muted %p current %i starts %p → %p', (follow, unmute, muted, current, starts, expected) => {
      expect(visibilityPolicyAfterSend(s(follow, unmute), muted, current, starts)).toBe(expected);
    });

    it('is off for bots and when both settings are "never"', () => {
      expect(autoVisibilityEnabled(s(NEVER, NEVER), false)).toBe(false);
      expect(autoVisibilityEnabled(s(ON_SEND, NEVER), true)).toBe(false);
      expect(autoVisibilityEnabled(s(ON_SEND, NEVER), false)).toBe(true);
    });
  });

  it('computes UserMessage flags per recipient', () => {
    const inputs = {
      senderId: 1,
      readBySender: true,
      isDirectMessage: false,
      mentionedUserIds: new Set([2]),
      groupMentionedUserIds: new Set([3]),
      streamWildcard: false,
      topicWildcard: true,
      topicParticipantIds: new Set([1, 4]),
      alertWordUserIds: new Set([6]),
    };
    expect(userMessageFlags(1, inputs)).toBe(Flag.read | Flag.topic_wildcard_mentioned);
    expect(userMessageFlags(2, inputs)).toBe(Flag.mentioned);
    expect(userMessageFlags(3, inputs)).toBe(Flag.mentioned | Flag.group_mentioned);
    expect(userMessageFlags(4, inputs)).toBe(Flag.topic_wildcard_mentioned);
    expect(userMessageFlags(5, inputs)).toBe(0);
    expect(userMessageFlags(6, inputs)).toBe(Flag.has_alert_word);
    const dm = { ...inputs, isDirectMessage: true, streamWildcard: true, topicWildcard: false, readBySender: false };
    expect(userMessageFlags(1, dm)).toBe(Flag.is_private | Flag.stream_wildcard_mentioned);
  });

  it("hashes DM participants like Zulip's DirectMessageGroup (SHA-1 of the sorted ids)", () => {
    expect(directMessageGroupHash([3, 1, 2, 1])).toBe('b85e2d4914e22b5ad3b82b312b3dc405dc17dcb8');
    expect(directMessageGroupHash([5])).toBe('ac3478d69a3c81fa62e60f5c3696165a4e5e6ac4');
  });
});
