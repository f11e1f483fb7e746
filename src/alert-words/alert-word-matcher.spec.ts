import { AlertWordMatcher } from './alert-word-matcher';

describe('AlertWordMatcher', () => {
  const matcher = new AlertWordMatcher([
    { userId: 1, word: 'one' },
    { userId: 1, word: 'two' },
    { userId: 1, word: 'three' },
    { userId: 2, word: 'multi-word word' },
    { userId: 3, word: '☃' },
    { userId: 4, word: 'ONE' },
    { userId: 5, word: 'he' },
    { userId: 6, word: 'she' },
    { userId: 7, word: 'hers' },
  ]);
  const alerts = (text: string) => [...matcher.usersMatching(text)].sort();

  it('finds words at the start, middle and end, with surrounding punctuation (Zulip test_alert_flags)', () => {
    expect(alerts('Normal alert one time')).toEqual([1, 4]);
    expect(alerts('Normal alert one')).toEqual([1, 4]);
    expect(alerts('two normal alerts')).toEqual([1]);
    expect(alerts('This one? should alert')).toEqual([1, 4]);
    expect(alerts('Definitely time for three.')).toEqual([1]);
    expect(alerts("One two three o'clock")).toEqual([1, 4]);
    expect(alerts("Case of ONE, won't stop me")).toEqual([1, 4]);
    expect(alerts('(one)')).toEqual([1, 4]);
    expect(alerts('> one')).toEqual([1, 4]);
  });

  it('ignores matches inside words and URLs', () => {
    expect(alerts("Don't alert on http://t.co/one/ URLs")).toEqual([]);
    expect(alerts("Don't alert on http://t.co/one URLs")).toEqual([]);
    expect(alerts("Don't alert on clone, twofold or seventytwofold")).toEqual([]);
    // A double quote does not end a word (Zulip's after-set holds '",', never one character).
    expect(alerts('"one"')).toEqual([]);
  });

  it('phrases, non-ASCII words and overlapping words', () => {
    expect(alerts('a multi-word word here')).toEqual([2]);
    expect(alerts('snow ☃ man')).toEqual([3]);
    expect(alerts('☃')).toEqual([3]);
    expect(alerts('ushers')).toEqual([]);
    expect(alerts('hers she he')).toEqual([5, 6, 7]);
    expect(alerts('she')).toEqual([6]);
  });

  it('an empty realm matches nothing', () => {
    const empty = new AlertWordMatcher([]);
    expect(empty.isEmpty).toBe(true);
    expect(empty.usersMatching('anything')).toEqual(new Set());
  });
});
