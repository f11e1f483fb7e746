import { collectReferences } from './references';
import { formatIsoSeconds, parseTimestamp } from './timestamp';
import { matchAutolink } from './autolink';
import { encodeChannel, hashUtilEncode, pythonQuote, sanitizeLinkUrl, uploadPathId, youtubeVideoId } from './url';
import { codeLanguageName } from './code-languages';

describe('collectReferences', () => {
  it('lists every name and id a message might refer to', () => {
    const refs = collectReferences(
      '@**King Hamlet** @_**Iago|11** @**|12** @**all** @*support* @_*Design team* ' +
        '#**Verona** #**core team>lunch** #**Rome>x@5** :party_parrot: :+1:',
    );
    expect(refs.userNames).toEqual(['King Hamlet', 'Iago']);
    expect(refs.userIds).toEqual([11, 12]);
    expect(refs.hasWildcardMention).toBe(true);
    expect(refs.groupNames).toEqual(['support', 'Design team']);
    expect(refs.channelNames).toEqual(['Verona', 'core team>lunch', 'core team', 'Rome>x@5', 'Rome']);
    expect(refs.emojiNames).toEqual(['party_parrot', '+1']);
  });

  it('ignores syntax that cannot be a mention', () => {
    const refs = collectReferences('mail@**x** text');
    expect(refs.userNames).toEqual([]);
    expect(refs.hasWildcardMention).toBe(false);
  });
});

describe('parseTimestamp', () => {
  const iso = (text: string) => {
    const ms = parseTimestamp(text);
    return ms === null ? null : formatIsoSeconds(ms);
  };

  it('parses ISO 8601 with and without offsets (UTC by default)', () => {
    expect(iso('2017-12-31')).toBe('2017-12-31T00:00:00Z');
    expect(iso('2017-12-31T05:30:00Z')).toBe('2017-12-31T05:30:00Z');
    expect(iso('2017-12-31 05:30:00+05:30')).toBe('2017-12-31T00:00:00Z');
    expect(iso('2017-12-31T05:30:00.250-0100')).toBe('2017-12-31T06:30:00Z');
  });

  it('parses written dates and times', () => {
    expect(iso('31 Dec 2017')).toBe('2017-12-31T00:00:00Z');
    expect(iso('Dec 31, 2017 5:30 pm')).toBe('2017-12-31T17:30:00Z');
    expect(iso('Sunday, December 31 2017 17:30 UTC')).toBe('2017-12-31T17:30:00Z');
    expect(iso('12 am')).toBeNull();
  });

  it('parses UNIX timestamps', () => {
    expect(iso('1496701800')).toBe('2017-06-05T22:30:00Z');
  });

  it('rejects ambiguous zones, impossible dates and times before 1970', () => {
    expect(iso('31 Dec 2017 5:30 am IST')).toBeNull();
    expect(iso('2017-02-30')).toBeNull();
    expect(iso('1969-12-31')).toBeNull();
    expect(iso('**hello world**')).toBeNull();
  });
});

describe('URLs', () => {
  it("sanitizes like Zulip's sanitize_url, with an http/https/mailto policy", () => {
    expect(sanitizeLinkUrl('zulip.com/a b')).toBe('http://zulip.com/a%20b');
    expect(sanitizeLinkUrl('HTTPS://Zulip.com')).toBe('https://Zulip.com');
    expect(sanitizeLinkUrl('me@example.com')).toBe('mailto:me@example.com');
    expect(sanitizeLinkUrl('/user_uploads/1/a.png')).toBe('/user_uploads/1/a.png');
    expect(sanitizeLinkUrl('#narrow/channel/1')).toBe('#narrow/channel/1');
    expect(sanitizeLinkUrl('javascript:alert(1)')).toBeNull();
    expect(sanitizeLinkUrl('\u0001javascript:alert(1)')).toBeNull();
    expect(sanitizeLinkUrl('tel:123')).toBeNull();
    expect(sanitizeLinkUrl('')).toBeNull();
  });

  it("encodes narrow URLs like Zulip's hash_util_encode", () => {
    expect(pythonQuote("a b/c!'()*~")).toBe('a%20b%2Fc%21%27%28%29%2A~');
    expect(hashUtilEncode('Q3 plans.v2')).toBe('Q3.20plans.2Ev2');
    expect(encodeChannel(8, 'core team')).toBe('8-core-team');
  });

  it('finds upload path ids on relative and same-realm links only', () => {
    expect(uploadPathId('/user_uploads/2/ab/x.png', undefined)).toBe('2/ab/x.png');
    expect(uploadPathId('user_uploads/2/ab/x.png?x=1', undefined)).toBe('2/ab/x.png');
    expect(uploadPathId('https://chat.example.com/user_uploads/2/x', 'https://chat.example.com')).toBe('2/x');
    expect(uploadPathId('https://other.example.com/user_uploads/2/x', 'https://chat.example.com')).toBeNull();
    expect(uploadPathId('/user_uploads/', undefined)).toBeNull();
  });

  it('recognises YouTube links', () => {
    expect(youtubeVideoId('https://www.youtube.com/watch?v=abc_-1')).toBe('abc_-1');
    expect(youtubeVideoId('https://youtu.be/xyz')).toBe('xyz');
    expect(youtubeVideoId('https://www.youtube.com/shorts/s1')).toBe('s1');
    expect(youtubeVideoId('https://example.com/watch?v=abc')).toBeNull();
    expect(youtubeVideoId('https://www.youtube.com/watch?v=a<b')).toBeNull();
  });
});

describe('matchAutolink', () => {
  const match = (text: string) => matchAutolink(text, 0, text.length)?.text ?? null;

  it('strips trailing punctuation but keeps balanced parentheses', () => {
    expect(match('https://x.com/a.')).toBe('https://x.com/a');
    expect(match('https://en.wikipedia.org/wiki/Foo_(bar))')).toBe('https://en.wikipedia.org/wiki/Foo_(bar)');
    expect(match('https://x.com/?q=1&r=2!')).toBe('https://x.com/?q=1&r=2');
  });

  it('needs a known TLD for bare domains', () => {
    expect(match('zulip.com/help')).toBe('zulip.com/help');
    expect(match('zulip.chat')).toBe('zulip.chat');
    expect(match('setup.py')).toBeNull();
    expect(match('zulip.notatld')).toBeNull();
  });

  it('matches email addresses and rejects junk', () => {
    expect(match('a.b-c@mail.example.org')).toBe('a.b-c@mail.example.org');
    expect(match('@example.com')).toBeNull();
    expect(match('http://x.com/a"')).toBe('http://x.com/a');
    expect(match('http://x.com/"quoted"')).toBeNull();
  });
});

describe('code language names', () => {
  it('canonicalises Pygments aliases and keeps unknown names', () => {
    expect(codeLanguageName('py2')).toBe('Python 2.x');
    expect(codeLanguageName('js')).toBe('JavaScript');
    expect(codeLanguageName('c++')).toBe('C++');
    expect(codeLanguageName('my-dsl')).toBe('my-dsl');
  });
});
