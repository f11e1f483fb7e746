import { Role } from '../common/roles';
import {
  canAccessChannelContent,
  canAccessChannelMetadata,
  canRemoveSubscribers,
  canSeeSubscribers,
  canSubscribeOthers,
  channelAdministrationAccess,
  ChannelActor,
  channelFolderNameError,
  channelNameError,
  ChannelPermissionView,
  defaultHistoryPublicToSubscribers,
  firstUnprintablePosition,
  hasBasicChannelAccess,
  holdsGroupSetting,
  isChannelAdministrator,
  keepsMetadataAfterUnsubscribing,
  normalizeTopicPlaceholder,
  parseMessageRetentionDays,
  permissionCombinationError,
  pickColors,
  streamPostPolicyFor,
} from './channels.policy';

// Group ids used by the fixtures.
const ADMINISTER = 101;
const ADD = 102;
const SUBSCRIBE = 103;
const REMOVE = 104;
const OTHER = 105;

type Kind = 'public' | 'web-public' | 'private-shared' | 'private-protected';
const KINDS: Kind[] = ['public', 'web-public', 'private-shared', 'private-protected'];
const ROLES = [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST];
type Membership = 'none' | 'administer' | 'add' | 'subscribe' | 'remove';
const MEMBERSHIPS: Membership[] = ['none', 'administer', 'add', 'subscribe', 'remove'];

function channel(kind: Kind): ChannelPermissionView {
  return {
    inviteOnly: kind.startsWith('private'),
    isWebPublic: kind === 'web-public',
    canAdministerChannelGroup: ADMINISTER,
    canAddSubscribersGroup: ADD,
    canSubscribeGroup: SUBSCRIBE,
    canRemoveSubscribersGroup: REMOVE,
  };
}

function actor(role: number, membership: Membership | Membership[] = 'none'): ChannelActor {
  const ids = new Set<number>([OTHER]);
  for (const m of Array.isArray(membership) ? membership : [membership]) {
    if (m === 'administer') ids.add(ADMINISTER);
    if (m === 'add') ids.add(ADD);
    if (m === 'subscribe') ids.add(SUBSCRIBE);
    if (m === 'remove') ids.add(REMOVE);
  }
  return { id: 1, role, groupIds: ids };
}

const isAdminRole = (role: number) => role === Role.OWNER || role === Role.ADMINISTRATOR;

/** Every combination of role, channel kind, subscription and group membership. */
const CASES = ROLES.flatMap((role) =>
  KINDS.flatMap((kind) =>
    [true, false].flatMap((subscribed) => MEMBERSHIPS.map((m) => ({ role, kind, subscribed, m }))),
  ),
);

describe('channel access (spec: metadata vs content access)', () => {
  it.each(CASES)(
    'metadata access: role $role, $kind, subscribed=$subscribed, member of $m',
    ({ role, kind, subscribed, m }) => {
      let expected: boolean;
      if (kind === 'web-public' || subscribed) expected = true;
      else if (role === Role.GUEST) expected = false;
      else if (kind === 'public') expected = true;
      else expected = isAdminRole(role) || m === 'administer' || m === 'add' || m === 'subscribe';
      expect(canAccessChannelMetadata(actor(role, m), channel(kind), subscribed)).toBe(expected);
    },
  );

  it.each(CASES)(
    'content access: role $role, $kind, subscribed=$subscribed, member of $m',
    ({ role, kind, subscribed, m }) => {
      let expected: boolean;
      if (kind === 'web-public' || subscribed) expected = true;
      else if (role === Role.GUEST) expected = false;
      else if (kind === 'public') expected = true;
      // Organization administrators do not read private channels by their role; channel
      // administrators neither: only can_subscribe_group and can_add_subscribers_group grant it.
      else expected = m === 'add' || m === 'subscribe';
      expect(canAccessChannelContent(actor(role, m), channel(kind), subscribed)).toBe(expected);
    },
  );

  it.each(CASES)(
    'basic access without content: role $role, $kind, subscribed=$subscribed, $m',
    ({ role, kind, subscribed, m }) => {
      const a = actor(role, m);
      const ch = channel(kind);
      expect(hasBasicChannelAccess(a, ch, subscribed, true)).toBe(canAccessChannelContent(a, ch, subscribed));
      expect(hasBasicChannelAccess(a, ch, subscribed, false)).toBe(canAccessChannelMetadata(a, ch, subscribed));
    },
  );

  it('a private channel: admins see it exists but cannot read it; subscribers read it', () => {
    const ch = channel('private-protected');
    expect(canAccessChannelMetadata(actor(Role.ADMINISTRATOR), ch, false)).toBe(true);
    expect(canAccessChannelContent(actor(Role.ADMINISTRATOR), ch, false)).toBe(false);
    expect(canAccessChannelContent(actor(Role.MEMBER), ch, true)).toBe(true);
    expect(canAccessChannelMetadata(actor(Role.MEMBER), ch, false)).toBe(false);
  });

  it('guests see only web-public channels and those they are subscribed to', () => {
    expect(canAccessChannelContent(actor(Role.GUEST), channel('public'), false)).toBe(false);
    expect(canAccessChannelContent(actor(Role.GUEST), channel('web-public'), false)).toBe(true);
    expect(canAccessChannelContent(actor(Role.GUEST), channel('private-shared'), true)).toBe(true);
    // Group membership never helps a guest: these settings refuse role:everyone.
    expect(
      canAccessChannelMetadata(actor(Role.GUEST, ['administer', 'add', 'subscribe']), channel('private-shared'), false),
    ).toBe(false);
  });
});

describe('channel administration', () => {
  it.each(CASES)('administrator: role $role, $kind, subscribed=$subscribed, $m', ({ role, kind, subscribed, m }) => {
    const expected = isAdminRole(role) || (role !== Role.GUEST && m === 'administer');
    expect(isChannelAdministrator(actor(role, m), channel(kind))).toBe(expected);
    const access = channelAdministrationAccess(actor(role, m), channel(kind), subscribed);
    if (expected) expect(access).toBe('allowed');
    else if (canAccessChannelContent(actor(role, m), channel(kind), subscribed)) expect(access).toBe('forbidden');
    else expect(access).toBe('invisible');
  });

  it('a member of can_administer_channel_group administers a private channel without being subscribed', () => {
    expect(channelAdministrationAccess(actor(Role.MEMBER, 'administer'), channel('private-protected'), false)).toBe(
      'allowed',
    );
  });

  it("does not reveal a private channel's existence to outsiders", () => {
    expect(channelAdministrationAccess(actor(Role.MEMBER), channel('private-shared'), false)).toBe('invisible');
    expect(channelAdministrationAccess(actor(Role.MEMBER), channel('public'), false)).toBe('forbidden');
    expect(channelAdministrationAccess(actor(Role.MODERATOR), channel('private-shared'), true)).toBe('forbidden');
  });
});

describe('subscribing others', () => {
  it.each(
    ROLES.flatMap((role) => MEMBERSHIPS.flatMap((m) => [true, false].map((realmWide) => ({ role, m, realmWide })))),
  )('role $role, member of $m, realm-wide permission $realmWide', ({ role, m, realmWide }) => {
    const expected = realmWide || isAdminRole(role) || (role !== Role.GUEST && (m === 'administer' || m === 'add'));
    expect(canSubscribeOthers(actor(role, m), channel('private-shared'), realmWide)).toBe(expected);
  });

  it('members of can_add_subscribers_group need not be subscribed to a private channel', () => {
    const a = actor(Role.MEMBER, 'add');
    const ch = channel('private-protected');
    expect(canAccessChannelContent(a, ch, false)).toBe(true);
    expect(canSubscribeOthers(a, ch, false)).toBe(true);
  });
});

describe('unsubscribing others', () => {
  const pub = { channel: channel('public'), subscribed: false };
  const priv = { channel: channel('private-shared'), subscribed: false };
  const privSub = { channel: channel('private-shared'), subscribed: true };

  it('organization administrators always may', () => {
    expect(canRemoveSubscribers(actor(Role.ADMINISTRATOR), [priv, pub])).toBe(true);
    expect(canRemoveSubscribers(actor(Role.OWNER), [priv])).toBe(true);
  });

  it('guests never may', () => {
    expect(canRemoveSubscribers(actor(Role.GUEST, ['administer', 'remove']), [privSub])).toBe(false);
  });

  it('channel administrators of every channel may', () => {
    expect(canRemoveSubscribers(actor(Role.MEMBER, 'administer'), [priv, pub])).toBe(true);
  });

  it('otherwise access and can_remove_subscribers_group membership on every channel', () => {
    expect(canRemoveSubscribers(actor(Role.MEMBER, 'remove'), [pub])).toBe(true);
    expect(canRemoveSubscribers(actor(Role.MEMBER, 'remove'), [privSub])).toBe(true);
    expect(canRemoveSubscribers(actor(Role.MEMBER, 'remove'), [priv])).toBe(false);
    expect(canRemoveSubscribers(actor(Role.MEMBER), [pub])).toBe(false);
    expect(canRemoveSubscribers(actor(Role.MODERATOR), [pub])).toBe(false);
  });

  it('is all or nothing across the channels of a request', () => {
    expect(canRemoveSubscribers(actor(Role.MEMBER, 'remove'), [pub, priv])).toBe(false);
  });
});

describe('seeing subscribers', () => {
  it.each(CASES)('role $role, $kind, subscribed=$subscribed, $m', ({ role, kind, subscribed, m }) => {
    let expected: boolean;
    if (kind === 'web-public') expected = true;
    else if (role === Role.GUEST) expected = subscribed;
    else if (isAdminRole(role) || m === 'administer' || m === 'add' || m === 'subscribe') expected = true;
    else expected = kind === 'public' || subscribed;
    expect(canSeeSubscribers(actor(role, m), channel(kind), subscribed)).toBe(expected);
  });
});

describe('after unsubscribing', () => {
  it.each(ROLES.flatMap((role) => KINDS.flatMap((kind) => MEMBERSHIPS.map((m) => ({ role, kind, m })))))(
    'role $role, $kind, $m keeps the channel in "unsubscribed"?',
    ({ role, kind, m }) => {
      let expected: boolean;
      if (kind === 'web-public') expected = true;
      else if (role === Role.GUEST) expected = false;
      else if (kind === 'public') expected = true;
      else expected = isAdminRole(role) || m === 'administer' || m === 'add' || m === 'subscribe';
      expect(keepsMetadataAfterUnsubscribing(actor(role, m), channel(kind))).toBe(expected);
    },
  );
});

describe('holdsGroupSetting', () => {
  it('refuses guests settings that may not be role:everyone', () => {
    expect(holdsGroupSetting(actor(Role.GUEST, 'add'), ADD, false)).toBe(false);
    expect(holdsGroupSetting(actor(Role.GUEST, 'add'), ADD, true)).toBe(true);
    expect(holdsGroupSetting(actor(Role.MEMBER, 'add'), ADD, false)).toBe(true);
    expect(holdsGroupSetting(actor(Role.MEMBER), ADD, true)).toBe(false);
  });
});

describe('names', () => {
  it.each([
    ['', "Channel name can't be empty."],
    ['   ', "Channel name can't be empty."],
    ['a'.repeat(61), 'Channel name too long (limit: 60 characters).'],
    ['abc\0', 'Invalid character in channel name, at position 4.'],
    ['a\u0007b', 'Invalid character in channel name, at position 2.'],
    ['\u{1F600}\u0001', 'Invalid character in channel name, at position 2.'],
  ])('channel name %j → %s', (name, message) => {
    expect(channelNameError(name)).toBe(message);
  });

  it.each(['Verona', 'a'.repeat(60), 'core team', 'café ☕', '\u{1F600}'.repeat(60)])('accepts %j', (name) => {
    expect(channelNameError(name)).toBeUndefined();
  });

  it('folder names', () => {
    expect(channelFolderNameError('')).toBe("Channel folder name can't be empty.");
    expect(channelFolderNameError('abc\0')).toBe('Invalid character in channel folder name, at position 4.');
    expect(channelFolderNameError('Engineering')).toBeUndefined();
  });

  it('positions count code points', () => {
    expect(firstUnprintablePosition('\u{1F600}\u{1F600}\u0000')).toBe(3);
    expect(firstUnprintablePosition('fine')).toBeUndefined();
    expect(firstUnprintablePosition('\uD800')).toBe(1);
  });
});

describe('permission combinations', () => {
  it.each([
    [{ inviteOnly: false, historyPublicToSubscribers: true, isWebPublic: false }, undefined],
    [{ inviteOnly: false, historyPublicToSubscribers: true, isWebPublic: true }, undefined],
    [{ inviteOnly: true, historyPublicToSubscribers: true, isWebPublic: false }, undefined],
    [{ inviteOnly: true, historyPublicToSubscribers: false, isWebPublic: false }, undefined],
    [{ inviteOnly: false, historyPublicToSubscribers: false, isWebPublic: false }, 'Invalid parameters'],
    [{ inviteOnly: true, historyPublicToSubscribers: true, isWebPublic: true }, 'Invalid parameters'],
    [{ inviteOnly: false, historyPublicToSubscribers: false, isWebPublic: true }, 'Invalid parameters'],
    [{ inviteOnly: true, historyPublicToSubscribers: false, isWebPublic: true }, 'Invalid parameters'],
  ])('%j → %s', (p, expected) => {
    expect(permissionCombinationError(p)).toBe(expected);
  });

  it('history defaults', () => {
    expect(defaultHistoryPublicToSubscribers(false, false)).toBe(true);
    expect(defaultHistoryPublicToSubscribers(false, undefined)).toBe(true);
    expect(defaultHistoryPublicToSubscribers(true, undefined)).toBe(false);
    expect(defaultHistoryPublicToSubscribers(true, true)).toBe(true);
  });
});

describe('message_retention_days', () => {
  it.each([
    ['realm_default', { ok: true, days: null }],
    ['unlimited', { ok: true, days: -1 }],
    [30, { ok: true, days: 30 }],
    [0, { ok: false, error: "Bad value for 'message_retention_days': 0" }],
    [-5, { ok: false, error: "Bad value for 'message_retention_days': -5" }],
    ['forever', { ok: false, error: "Bad value for 'message_retention_days': forever" }],
    [1.5, { ok: false, error: "Bad value for 'message_retention_days': 1.5" }],
    [[], { ok: false, error: "Bad value for 'message_retention_days': []" }],
  ])('%j', (value, expected) => {
    expect(parseMessageRetentionDays(value)).toEqual(expected);
  });
});

describe('stream_post_policy', () => {
  it('derives from the can_send_message_group system group', () => {
    expect(streamPostPolicyFor('role:everyone')).toBe(1);
    expect(streamPostPolicyFor('role:administrators')).toBe(2);
    expect(streamPostPolicyFor('role:fullmembers')).toBe(3);
    expect(streamPostPolicyFor('role:moderators')).toBe(4);
    expect(streamPostPolicyFor('role:members')).toBe(1);
    expect(streamPostPolicyFor(undefined)).toBe(1);
  });
});

describe('topic placeholders (DECISIONS #9)', () => {
  it('maps "(no topic)" and the empty-topic display name to ""', () => {
    expect(normalizeTopicPlaceholder('(no topic)', 'general chat')).toBe('');
    expect(normalizeTopicPlaceholder('general chat', 'general chat')).toBe('');
    expect(normalizeTopicPlaceholder('General chat', 'general chat')).toBe('General chat');
    expect(normalizeTopicPlaceholder('lunch', 'general chat')).toBe('lunch');
  });
});

describe('pickColors', () => {
  const palette = ['#1', '#2', '#3'];
  it('uses requested colors, then unused palette colors in recipient order', () => {
    const colors = pickColors(new Set(['#1']), new Map([[7, '#abc']]), [9, 7, 8], palette);
    expect([...colors]).toEqual([
      [7, '#abc'],
      [8, '#2'],
      [9, '#3'],
    ]);
  });
  it('falls back to the palette by recipient id when all are used', () => {
    const colors = pickColors(new Set(palette), new Map(), [4, 5], palette);
    expect(colors.get(4)).toBe('#2');
    expect(colors.get(5)).toBe('#3');
  });
});
