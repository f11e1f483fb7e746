import { ALL_FLAGS, Flag, flagEditError, flagsToApi } from './flags';

describe('UserMessage flags', () => {
  it("uses Zulip's bit order", () => {
    expect(ALL_FLAGS.slice(0, 7)).toEqual([
      'read',
      'starred',
      'collapsed',
      'mentioned',
      'stream_wildcard_mentioned',
      'topic_wildcard_mentioned',
      'group_mentioned',
    ]);
    expect(Flag.read).toBe(1);
    expect(Flag.starred).toBe(2);
    expect(Flag.historical).toBe(1024);
    expect(Flag.is_private).toBe(2048);
  });

  it('lists API flags in bit order, hides internal ones, adds the legacy wildcard_mentioned', () => {
    expect(flagsToApi(0)).toEqual([]);
    expect(flagsToApi(Flag.read | Flag.historical | Flag.starred)).toEqual(['read', 'starred', 'historical']);
    expect(flagsToApi(Flag.is_private | Flag.active_mobile_push_notification | Flag.read)).toEqual(['read']);
    expect(flagsToApi(Flag.mentioned | Flag.group_mentioned)).toEqual(['mentioned']);
    expect(flagsToApi(Flag.topic_wildcard_mentioned)).toEqual(['topic_wildcard_mentioned', 'wildcard_mentioned']);
  });

  it.each([
    ['read', null],
    ['starred', null],
    ['collapsed', null],
    ['mentioned', "Flag not editable: 'mentioned'"],
    ['historical', "Flag not editable: 'historical'"],
    ['group_mentioned', "Flag not editable: 'group_mentioned'"],
    ['force_expand', "Flag not editable: 'force_expand'"],
    ['is_private', "Invalid flag: 'is_private'"],
    ['active_mobile_push_notification', "Invalid flag: 'active_mobile_push_notification'"],
    ['wildcard_mentioned', "Invalid flag: 'wildcard_mentioned'"],
    ['bogus', "Invalid flag: 'bogus'"],
  ])('flag %s → %p', (flag, expected) => expect(flagEditError(flag)).toBe(expected));
});
