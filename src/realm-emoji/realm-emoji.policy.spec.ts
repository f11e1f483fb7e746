import {
  emojiContentType,
  emojiFileName,
  emojiNameError,
  emojiPath,
  emojiStillPath,
  emojiUrl,
  isBuiltInEmojiName,
  isPossibleEmojiName,
  normalizeEmojiName,
  parseEmojiImagePath,
} from './realm-emoji.policy';

describe('custom emoji names (check_valid_emoji_name)', () => {
  it.each([
    ['my_emoji', null],
    ['a', null],
    ['0', null],
    ['party-parrot2', null],
    ['', 'Emoji name is missing'],
    ['my_emoji_', 'Emoji names must end with either a letter or digit.'],
    ['my-emoji-', 'Emoji names must end with either a letter or digit.'],
    ['_', 'Emoji names must end with either a letter or digit.'],
    ['my_EMoji', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    ['my.emoji', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    ['my/emoji', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    ['émoji', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    ['a\n', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    ['a\0', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    // The characters are checked before the ending.
    ['BAD_', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
  ])('%j → %s', (name, error) => {
    expect(emojiNameError(name)?.message ?? null).toBe(error);
    expect(isPossibleEmojiName(name)).toBe(error === null);
  });

  it('normalises as upload_emoji: trimmed, spaces become underscores', () => {
    expect(normalizeEmojiName('  my  emoji \t')).toBe('my__emoji');
    expect(normalizeEmojiName(' ')).toBe('');
  });

  it('knows the built-in names, aliases included', () => {
    expect(isBuiltInEmojiName('smile')).toBe(true);
    expect(isBuiltInEmojiName('thumbs_up')).toBe(true);
    expect(isBuiltInEmojiName('+1')).toBe(true);
    expect(isBuiltInEmojiName('zulip')).toBe(false);
    expect(isBuiltInEmojiName('party_parrot')).toBe(false);
  });
});

describe('custom emoji files', () => {
  it('takes the declared image type, else guesses from the file name', () => {
    expect(emojiContentType('image/png', 'x.gif')).toBe('image/png');
    expect(emojiContentType('IMAGE/GIF; charset=x', 'x')).toBe('image/gif');
    expect(emojiContentType('text/plain', 'x.JPEG')).toBe('image/jpeg');
    expect(emojiContentType('application/octet-stream', 'x.webp')).toBe('image/webp');
    expect(emojiContentType('', 'x.avif')).toBe('image/avif');
    expect(emojiContentType('text/plain', 'x.txt')).toBe('text/plain');
    expect(emojiContentType('image/svg+xml', 'x.svg')).toBe('image/svg+xml');
    expect(emojiContentType('image/tiff', 'x.png')).toBe('image/png');
  });

  it('names files by a keyed hash of the id (not enumerable), with the type’s extension', () => {
    const a = emojiFileName('secret', 1, 'image/png');
    expect(a).toMatch(/^[0-9a-f]{8}\.png$/);
    expect(emojiFileName('secret', 1, 'image/png')).toBe(a);
    expect(emojiFileName('other', 1, 'image/png')).not.toBe(a);
    expect(emojiFileName('secret', 2, 'image/png')).not.toBe(a);
    expect(emojiFileName('secret', 1, 'image/jpeg')).toMatch(/\.jpg$/);
    expect(() => emojiFileName('secret', 1, 'image/tiff')).toThrow();
  });

  it('builds Zulip’s paths and URLs', () => {
    expect(emojiPath(2, 'abcdef01.gif')).toBe('2/emoji/images/abcdef01.gif');
    expect(emojiStillPath(2, 'abcdef01.gif')).toBe('2/emoji/images/still/abcdef01.png');
    expect(emojiUrl(2, 'abcdef01.gif')).toBe('/user_avatars/2/emoji/images/abcdef01.gif');
    expect(emojiUrl(2, 'abcdef01.gif', true)).toBe('/user_avatars/2/emoji/images/still/abcdef01.png');
  });

  it('serves only well-formed image paths', () => {
    expect(parseEmojiImagePath('2/emoji/images/abcdef01.gif')).toEqual({
      realmId: 2,
      fileName: 'abcdef01.gif',
      still: false,
      contentType: 'image/gif',
    });
    expect(parseEmojiImagePath('2/emoji/images/still/abcdef01.png')).toMatchObject({ still: true });
    for (const bad of [
      '2/emoji/images/abcdef01.gif.original',
      '2/emoji/images/still/abcdef01.gif',
      '2/emoji/images/../abcdef01.png',
      '2/emoji/images/ABCDEF01.png',
      '2/emoji/images/abcdef01.svg',
      '99999999999/emoji/images/abcdef01.png',
      'x/emoji/images/abcdef01.png',
    ]) {
      expect(parseEmojiImagePath(bad)).toBeNull();
    }
  });
});
