import { djangoSlugify, encodeChannelEmail } from './channel-email';

describe('channel email addresses (encode_email_address)', () => {
  const token = 'abcdef0123456789abcdef0123456789';
  const pattern = '%s@zulip.example.com';

  it('puts a clean name, the token and show-sender into the pattern', () => {
    expect(encodeChannelEmail(pattern, 'Denmark', token, true)).toBe(`denmark.${token}.show-sender@zulip.example.com`);
    expect(encodeChannelEmail(pattern, 'Scotland and England', token, false)).toBe(
      `scotland-and-england.${token}@zulip.example.com`,
    );
  });

  it('drops the name when it cannot become ASCII whole (letters would be lost)', () => {
    expect(encodeChannelEmail(pattern, 'Тест', token, true)).toBe(`${token}.show-sender@zulip.example.com`);
    // Trailing punctuation: the slug is shorter than the name, as in Zulip.
    expect(encodeChannelEmail(pattern, 'Denmark!', token, false)).toBe(`${token}@zulip.example.com`);
  });

  it('keeps accented Latin names by their ASCII letters', () => {
    expect(encodeChannelEmail(pattern, 'café', token, false)).toBe(`cafe.${token}@zulip.example.com`);
  });

  it('no gateway pattern: no address', () => {
    expect(encodeChannelEmail('', 'Denmark', token, true)).toBe('');
  });

  it('slugify as Django', () => {
    expect(djangoSlugify(' Hello  World-- ')).toBe('hello-world');
    expect(djangoSlugify('a_b')).toBe('a_b');
  });
});
