import {
  EMOTICON_CONVERSIONS,
  ZULIP_EXTRA_EMOJI,
  allUnicodeEmoji,
  canonicalEmojiName,
  checkEmojiReaction,
  codeToUnicode,
  emojiByCode,
  emojiByName,
  emojiStringToCode,
  isValidUnicodeEmojiCode,
  resolveEmojiName,
  resolveUnicodeEmoji,
  unicodeEmojiRegex,
  type RealmEmojiInfo,
} from './emoji';

describe('Unicode emoji table', () => {
  it('uses Zulip names, including its own overrides', () => {
    expect(emojiByName('smile')?.code).toBe('1f642');
    expect(emojiByName('holiday_tree')?.code).toBe('1f384');
    expect(emojiByName('division')?.code).toBe('2797');
    expect(emojiByName('poop')?.code).toBe('1f4a9');
    // Names from Unicode CLDR where Zulip has no override.
    expect(emojiByName('woman_shrugging')?.code).toBe('1f937-200d-2640');
    expect(emojiByName('flag_united_states')?.code).toBe('1f1fa-1f1f8');
  });

  it('resolves aliases to the canonical entry', () => {
    const thumbs = emojiByName('thumbs_up');
    expect(thumbs?.name).toBe('+1');
    expect(thumbs?.aliases).toContain('thumbs_up');
    expect(emojiByName('+1')).toBe(thumbs);
  });

  it('does not know iamcal-only names or skin tones', () => {
    expect(emojiByName('fried_egg')).toBeUndefined();
    expect(emojiByName('skin-tone-2')).toBeUndefined();
    expect(emojiByName('Smile')).toBeUndefined();
  });

  it('looks up by code, accepting qualified codes', () => {
    expect(emojiByCode('1f642')?.name).toBe('smile');
    expect(emojiByCode('2764-fe0f')?.name).toBe('heart');
    expect(canonicalEmojiName('2708')).toBe('airplane');
    expect(emojiByCode('nope')).toBeUndefined();
  });

  it('validates codes exactly as stored', () => {
    expect(isValidUnicodeEmojiCode('1f642')).toBe(true);
    expect(isValidUnicodeEmojiCode('1f642-fe0f')).toBe(false);
    expect(isValidUnicodeEmojiCode('zulip')).toBe(false);
    expect(isValidUnicodeEmojiCode('')).toBe(false);
  });

  it('converts between emoji strings and codes', () => {
    expect(emojiStringToCode('🤷\u200d♀️')).toBe('1f937-200d-2640');
    expect(emojiStringToCode('#️⃣')).toBe('0023-20e3');
    expect(codeToUnicode('1f642')).toBe('🙂');
    expect(emojiByName('airplane')?.unicode).toBe('\u2708');
  });

  it('follows Zulip on text-presentation characters and unknown sequences', () => {
    expect(resolveUnicodeEmoji('\u2708')).toBeUndefined();
    expect(resolveUnicodeEmoji('\u2708\uFE0F')?.name).toBe('airplane');
    expect(resolveUnicodeEmoji('1')).toBeUndefined();
    expect(resolveUnicodeEmoji('1\uFE0F\u20E3')?.name).toBe('one');
    // Emoji 15.1 (phoenix) is newer than the data set Zulip ships.
    expect(resolveUnicodeEmoji('🐦\u200d🔥')).toBeUndefined();
  });

  it('finds possible emoji sequences in text', () => {
    const found = [...'hi 👽 and 🤷\u200d♀️!'.matchAll(unicodeEmojiRegex)].map((m) => m[0]);
    expect(found).toEqual(['👽', '🤷\u200d♀️']);
  });

  it('has one emoji per name and codes without presentation selectors', () => {
    const owner = new Map<string, string>();
    const problems: string[] = [];
    let count = 0;
    for (const emoji of allUnicodeEmoji()) {
      count++;
      if (!/^[0-9a-f]{4,5}(-[0-9a-f]{4,5})*$/.test(emoji.code) || emoji.code.includes('fe0f')) {
        problems.push(`bad code ${emoji.code}`);
      }
      for (const name of [emoji.name, ...emoji.aliases]) {
        const previous = owner.get(name);
        if (previous !== undefined && previous !== emoji.code) problems.push(`${name}: ${previous} and ${emoji.code}`);
        owner.set(name, emoji.code);
      }
    }
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThan(1800);
    expect(emojiByCode('1f3fb')).toBeUndefined();
  });

  it('maps every emoticon to a known emoji', () => {
    expect(EMOTICON_CONVERSIONS[':)']).toBe(':smile:');
    for (const syntax of Object.values(EMOTICON_CONVERSIONS)) {
      expect(emojiByName(syntax.slice(1, -1))).toBeDefined();
    }
  });
});

describe('reaction helpers', () => {
  const realmEmoji: RealmEmojiInfo[] = [
    { id: '7', name: 'party_parrot', sourceUrl: '/user_avatars/2/emoji/7.gif' },
    { id: '8', name: 'smile', sourceUrl: '/user_avatars/2/emoji/8.png' },
    { id: '9', name: 'retired_parrot', sourceUrl: '/user_avatars/2/emoji/9.png', deactivated: true },
  ];

  it('resolves names with realm emoji first, then zulip, then Unicode', () => {
    expect(resolveEmojiName('party_parrot', realmEmoji)).toEqual({ code: '7', reactionType: 'realm_emoji' });
    expect(resolveEmojiName('smile', realmEmoji)).toEqual({ code: '8', reactionType: 'realm_emoji' });
    expect(resolveEmojiName('smile')).toEqual({ code: '1f642', reactionType: 'unicode_emoji' });
    expect(resolveEmojiName('zulip')).toEqual({ code: 'zulip', reactionType: ZULIP_EXTRA_EMOJI.reactionType });
    expect(resolveEmojiName('retired_parrot', realmEmoji)).toBeUndefined();
    expect(resolveEmojiName('no_such_emoji')).toBeUndefined();
  });

  it("validates reaction requests with Zulip's messages", () => {
    const check = (name: string, code: string, type: string) => checkEmojiReaction({ name, code, type }, realmEmoji);
    expect(check('smile', '1f642', 'unicode_emoji')).toBeNull();
    expect(check('slight_smile', '1f642', 'unicode_emoji')).toBe('Invalid emoji name.');
    expect(check('smile', 'ffff', 'unicode_emoji')).toBe('Invalid emoji code.');
    expect(check('zulip', 'zulip', 'service_extra_emoji')).toBeNull();
    expect(check('zulip', 'zulip', 'zulip_extra_emoji')).toBeNull();
    expect(check('zulipp', 'zulip', 'zulip_extra_emoji')).toBe('Invalid emoji name.');
    expect(check('party_parrot', '7', 'realm_emoji')).toBeNull();
    expect(check('parrot', '7', 'realm_emoji')).toBe('Invalid custom emoji name.');
    expect(check('retired_parrot', '9', 'realm_emoji')).toBe('This custom emoji has been deactivated.');
    expect(check('x', '99', 'realm_emoji')).toBe('Invalid custom emoji.');
    expect(check('smile', '1f642', 'bogus')).toBe('Invalid emoji type.');
  });
});
