import { Role } from '../realm/system-groups';
import {
  accessChangesOnSubscriptions,
  canAccessUser,
  inaccessibleUserDict,
  UserAccess,
  whoCanAccess,
} from './user-access';

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

describe('accessChangesOnSubscriptions', () => {
  const person = (role: number, extra: Partial<{ isBot: boolean; isActive: boolean }> = {}) => ({
    role,
    isBot: false,
    isActive: true,
    ...extra,
  });
  // 1, 2 guests; 3, 4 members; 5 a bot; 6 deactivated.
  const people = new Map([
    [1, person(Role.GUEST)],
    [2, person(Role.GUEST)],
    [3, person(Role.MEMBER)],
    [4, person(Role.MEMBER)],
    [5, person(Role.MEMBER, { isBot: true })],
    [6, person(Role.MEMBER, { isActive: false })],
  ]);
  const none = { channelPeers: new Set<number>(), directPeers: new Set<number>() };

  it('a guest gains the others (not bots or deactivated users), and guests among them gain the guest', () => {
    expect(accessChangesOnSubscriptions([{ userId: 1, others: [2, 3, 5, 6], peers: none }], people)).toEqual([
      { viewerId: 2, userId: 1 },
      { viewerId: 1, userId: 2 },
      { viewerId: 1, userId: 3 },
    ]);
  });

  it('a member: only the guests among the others gain them; members see everyone already', () => {
    expect(accessChangesOnSubscriptions([{ userId: 3, others: [1, 2, 4], peers: none }], people)).toEqual([
      { viewerId: 1, userId: 3 },
      { viewerId: 2, userId: 3 },
    ]);
  });

  it('skips peers through another channel or a direct-message conversation, and duplicate pairs', () => {
    const peers = { channelPeers: new Set([3]), directPeers: new Set([4]) };
    expect(
      accessChangesOnSubscriptions(
        [
          { userId: 1, others: [1, 2, 3, 4], peers },
          { userId: 2, others: [1], peers: none },
        ],
        people,
      ),
    ).toEqual([
      { viewerId: 2, userId: 1 },
      { viewerId: 1, userId: 2 },
    ]);
  });

  it('a bot or a deactivated user changing subscriptions changes nobody’s sight', () => {
    expect(accessChangesOnSubscriptions([{ userId: 5, others: [1, 2], peers: none }], people)).toEqual([]);
    expect(accessChangesOnSubscriptions([{ userId: 6, others: [1, 2], peers: none }], people)).toEqual([]);
  });
});
