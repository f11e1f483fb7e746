import { Role } from '../realm/system-groups';
import { canAccessUser, inaccessibleUserDict, UserAccess, whoCanAccess } from './user-access';

const restricted: UserAccess = {
  restricted: true,
  viewerId: 1,
  channelPeers: new Set([2, 3]),
  directPeers: new Set([4]),
};
const user = (id: number, extra: Partial<{ isBot: boolean; isActive: boolean }> = {}) => ({
  id,
  isBot: false,
  isActive: true,
  ...extra,
});

describe('canAccessUser', () => {
  it('lets an unrestricted viewer see everyone', () => {
    expect(canAccessUser({ restricted: false, viewerId: 1 }, user(9, { isActive: false }))).toBe(true);
  });

  it.each([
    ['themselves', user(1), true],
    ['a bot', user(9, { isBot: true }), true],
    ['an active channel peer', user(2), true],
    ['a deactivated channel peer', user(3, { isActive: false }), false],
    ['a direct-message peer, even deactivated', user(4, { isActive: false }), true],
    ['anyone else', user(5), false],
  ])('restricted guest and %s', (_name, target, expected) => {
    expect(canAccessUser(restricted, target)).toBe(expected);
  });
});

describe('whoCanAccess', () => {
  const candidates = [
    { id: 2, role: Role.GUEST },
    { id: 4, role: Role.GUEST },
    { id: 5, role: Role.GUEST },
    { id: 6, role: Role.MEMBER },
    { id: 1, role: Role.GUEST },
  ];
  it('is everyone when nothing is restricted or the target is a bot', () => {
    expect(whoCanAccess(user(1), candidates, { restricted: false, viewerId: 1 })).toEqual([2, 4, 5, 6, 1]);
    expect(whoCanAccess(user(1, { isBot: true }), candidates, restricted)).toEqual([2, 4, 5, 6, 1]);
  });

  it('is the non-guests, the target and the guests sharing a conversation with the target', () => {
    expect(whoCanAccess(user(1), candidates, restricted)).toEqual([2, 4, 6, 1]);
    // A deactivated target stays visible only through direct messages.
    expect(whoCanAccess(user(1, { isActive: false }), candidates, restricted)).toEqual([4, 6, 1]);
  });
});

describe('inaccessibleUserDict', () => {
  it("is Zulip's placeholder", () => {
    expect(inaccessibleUserDict(42, 'zulip.example.com')).toMatchObject({
      user_id: 42,
      email: 'user42@zulip.example.com',
      full_name: 'Unknown user',
      is_active: true,
      role: Role.MEMBER,
      delivery_email: null,
    });
  });
});
