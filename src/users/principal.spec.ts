import { Role, SystemGroupName } from '../realm/system-groups';
import {
  accessesAllUsers,
  anyHolds,
  canAccessPublicChannels,
  holds,
  isGuest,
  isSystemGroup,
  Principal,
  systemGroupId,
} from './principal';

const SYSTEM: Array<[number, SystemGroupName]> = [
  [1, 'role:nobody'],
  [2, 'role:owners'],
  [3, 'role:administrators'],
  [4, 'role:moderators'],
  [5, 'role:fullmembers'],
  [6, 'role:members'],
  [7, 'role:everyone'],
  [8, 'role:internet'],
];
const systemGroups = new Map(SYSTEM);
const BY_NAME = new Map(SYSTEM.map(([id, name]) => [name, id]));
const NAMED = 20;
const ANONYMOUS = 21;
const OTHER = 22;
const ROLES = [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST];

const principal = (role: number, extra: Partial<Principal> = {}): Principal => ({
  id: 10,
  realmId: 1,
  role,
  isActive: true,
  isBot: false,
  botOwnerId: null,
  groupIds: new Set([NAMED, ANONYMOUS]),
  systemGroups,
  ...extra,
});

/** Zulip's check_user_has_permission_by_role as a table: which roles hold each system group. */
const HOLDERS: Record<SystemGroupName, number[]> = {
  'role:nobody': [],
  'role:owners': [Role.OWNER],
  'role:administrators': [Role.OWNER, Role.ADMINISTRATOR],
  'role:moderators': [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR],
  'role:fullmembers': [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER],
  'role:members': [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER],
  'role:everyone': ROLES,
  'role:internet': ROLES,
};

describe('holds (the authorization kernel)', () => {
  describe.each(SYSTEM)('system group %i (%s) is answered from the role', (id, name) => {
    it.each(ROLES)('role %i', (role) => {
      // Membership rows do not matter for system groups: an empty and a full groupIds agree.
      for (const groupIds of [new Set<number>(), new Set([id])]) {
        expect(holds(principal(role, { groupIds }), id, true)).toBe(HOLDERS[name].includes(role));
      }
    });
  });

  it('a provisional member is not in role:fullmembers but is in role:members', () => {
    expect(holds(principal(Role.MEMBER, { isProvisional: true }), 5)).toBe(false);
    expect(holds(principal(Role.MEMBER, { isProvisional: true }), 6)).toBe(true);
  });

  it.each(ROLES)('named and anonymous groups follow the recursive membership (role %i)', (role) => {
    expect(holds(principal(role), NAMED, true)).toBe(true);
    expect(holds(principal(role), ANONYMOUS, true)).toBe(true);
    expect(holds(principal(role), OTHER, true)).toBe(false);
  });

  it.each(ROLES)('a deactivated user holds nothing (role %i)', (role) => {
    const p = principal(role, { isActive: false });
    for (const id of [...systemGroups.keys(), NAMED, ANONYMOUS]) {
      expect(holds(p, id, true)).toBe(false);
      expect(holds(p, id, false)).toBe(false);
    }
  });

  it('guests never hold a setting that may not be role:everyone, whatever the group', () => {
    const guest = principal(Role.GUEST);
    for (const id of [...systemGroups.keys(), NAMED, ANONYMOUS]) expect(holds(guest, id, false)).toBe(false);
    expect(holds(guest, 7, true)).toBe(true);
    expect(holds(guest, NAMED, true)).toBe(true);
  });

  it.each([Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER])(
    'settingAllowsEveryone changes nothing for non-guests (role %i)',
    (role) => {
      for (const id of [...systemGroups.keys(), NAMED, ANONYMOUS, OTHER]) {
        expect(holds(principal(role), id, false)).toBe(holds(principal(role), id, true));
      }
    },
  );

  it('settingAllowsEveryone defaults to true', () => {
    expect(holds(principal(Role.GUEST), NAMED)).toBe(true);
  });

  it('bots are principals like any other user', () => {
    expect(holds(principal(Role.MEMBER, { isBot: true }), 6)).toBe(true);
    expect(holds(principal(Role.MEMBER, { isBot: true }), NAMED)).toBe(true);
  });

  it('a group of another realm (not among this realm’s system groups nor in groupIds) is not held', () => {
    expect(holds(principal(Role.OWNER), 999)).toBe(false);
  });

  it('anyHolds: one participant is enough; none, or nobody, is refused', () => {
    const member = principal(Role.MEMBER, { groupIds: new Set() });
    const inGroup = principal(Role.MEMBER, { id: 11 });
    expect(anyHolds([member, inGroup], NAMED)).toBe(true);
    expect(anyHolds([member], NAMED)).toBe(false);
    expect(anyHolds([], 7)).toBe(false);
    expect(anyHolds([member, inGroup], 1)).toBe(false);
  });
});

describe('roles', () => {
  it.each(ROLES)('isGuest / canAccessPublicChannels (role %i)', (role) => {
    expect(isGuest({ role })).toBe(role === Role.GUEST);
    expect(canAccessPublicChannels({ role })).toBe(role !== Role.GUEST);
  });

  it('system group lookups', () => {
    expect(systemGroupId(principal(Role.MEMBER), 'role:everyone')).toBe(7);
    expect(isSystemGroup(principal(Role.MEMBER), 1, 'role:nobody')).toBe(true);
    expect(isSystemGroup(principal(Role.MEMBER), NAMED, 'role:nobody')).toBe(false);
  });
});

describe('accessesAllUsers (can_access_all_users_group)', () => {
  it.each(ROLES)('role %i: everyone sees all users when the setting is role:everyone', (role) => {
    expect(accessesAllUsers(principal(role), 7, BY_NAME)).toBe(true);
  });
  it.each(ROLES)('role %i: only guests are restricted when it is role:members', (role) => {
    expect(accessesAllUsers(principal(role), 6, BY_NAME)).toBe(role !== Role.GUEST);
  });
});
