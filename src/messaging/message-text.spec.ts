import { ZulipError } from '../common/errors/zulip-error';
import {
  codePointLength,
  firstNonPrintablePosition,
  mapTopicPlaceholder,
  normalizeContent,
  normalizeTopicForSend,
  pyStrip,
  topicForClient,
  truncateContent,
  truncateTopic,
} from './message-text';

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as ZulipError).message;
  }
  return 'no error';
}

describe('message text rules', () => {
  it('counts code points like Python', () => {
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀😀')).toBe(2);
    expect(codePointLength('')).toBe(0);
  });

  it('truncates content to 9980 characters plus the marker', () => {
    expect(normalizeContent('A'.repeat(10001))).toBe(`${'A'.repeat(9980)}\n[message truncated]`);
    expect(normalizeContent('A'.repeat(10000))).toBe('A'.repeat(10000));
    expect(normalizeContent('😀'.repeat(10000))).toBe('😀'.repeat(10000));
    expect(codePointLength(normalizeContent('😀'.repeat(10001)))).toBe(10000);
  });

  it('strips trailing whitespace and leading newlines, refuses empty and NUL content', () => {
    expect(normalizeContent('\n\n  x  \n\t')).toBe('  x');
    expect(errorOf(() => normalizeContent(' \n '))).toBe('Message must not be empty');
    expect(errorOf(() => normalizeContent('a\u0000'))).toBe('Message must not contain null bytes');
  });

  it('truncates topics to 57 characters plus "..."', () => {
    expect(truncateTopic('a'.repeat(60))).toBe('a'.repeat(60));
    expect(truncateTopic('a'.repeat(61))).toBe(`${'a'.repeat(57)}...`);
    expect(truncateContent('abcdef', 5, '..')).toBe('abc..');
  });

  it('normalizes topics for sending: strip, placeholders, printable characters', () => {
    expect(normalizeTopicForSend('  lunch \n')).toBe('lunch');
    expect(normalizeTopicForSend('(no topic)')).toBe('');
    expect(normalizeTopicForSend('general chat')).toBe('');
    expect(normalizeTopicForSend('General chat')).toBe('General chat');
    expect(errorOf(() => normalizeTopicForSend('Test\n\rTopic'))).toBe('Invalid character in topic, at position 5!');
    expect(errorOf(() => normalizeTopicForSend('\u0007'))).toBe('Invalid character in topic, at position 1!');
    expect(errorOf(() => normalizeTopicForSend('😀\u0001'))).toBe('Invalid character in topic, at position 2!');
    expect(firstNonPrintablePosition('fine ✔')).toBeNull();
    expect(firstNonPrintablePosition('\ud800')).toBe(1);
  });

  it('strips the characters Python strips', () => {
    expect(pyStrip('\u00a0\u3000x\u2028')).toBe('x');
    expect(pyStrip('\u001fx')).toBe('x');
  });

  it('maps placeholders and shows the empty topic to old clients', () => {
    expect(mapTopicPlaceholder('(no topic)')).toBe('');
    expect(mapTopicPlaceholder('x')).toBe('x');
    expect(topicForClient('', false)).toBe('general chat');
    expect(topicForClient('', true)).toBe('');
    expect(topicForClient('x', false)).toBe('x');
  });
});
