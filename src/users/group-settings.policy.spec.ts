import { SystemGroupName } from '../realm/system-groups';
import {
  Actor,
  GroupNode,
  guestMayHold,
  hasPermissionForGroupSetting,
  hasSystemGroupPermission,
  isAdmin,
  isInGroup,
  isModeratorOrAbove,
  mayUpdateGroup,
} from './group-settings.policy';

const OWNER = 100;
const ADMIN = 200;
const MODERATOR = 300;
const MEMBER = 400;
const GUEST = 600;

const actor = (role: number, extra: Partial<Actor> = {}): Actor => ({ id: 1, role, isActive: true, ...extra });

const GROUPS: SystemGroupName[] = [
  'role:nobody',
  'role:owners',
  'role:administrators',
  'role:moderators',
  'role:fullmembers',
  'role:members',
  'role:everyone',
  'role:internet',
];

/**
 * Zulip's check_user_has_permission_by_role, as a table: which roles hold each system group.
 */
const HOLDERS: Record<SystemGroupName, number[]> = {
  'role:nobody': [],
  'role:owners': [OWNER],
  'role:administrators': [OWNER, ADMIN],
  'role:moderators': [OWNER, ADMIN, MODERATOR],
  'role:fullmembers': [OWNER, ADMIN, MODERATOR, MEMBER],
  'role:members': [OWNER, ADMIN, MODERATOR, MEMBER],
  'role:everyone': [OWNER, ADMIN, MODERATOR, MEMBER, GUEST],
  'role:internet': [OWNER, ADMIN, MODERATOR, MEMBER, GUEST],
};

describe('hasSystemGroupPermission', () => {
  const cases: Array<[SystemGroupName, number, boolean]> = [];
  for (const group of GROUPS) {
    for (const role of [OWNER, ADMIN, MODERATOR, MEMBER, GUEST])
      cases.push([group, role, HOLDERS[group].includes(role)]);
  }

  it.each(cases)('%s, active role %i → %s', (group, role, expected) => {
    expect(hasSystemGroupPermission(actor(role), group)).toBe(expected);
  });

  it.each(GROUPS.flatMap((g) => [OWNER, ADMIN, MODERATOR, MEMBER, GUEST].map((r) => [g, r] as const)))(
    '%s, deactivated role %i → false',
    (group, role) => {
      expect(hasSystemGroupPermission(actor(role, { isActive: false }), group)).toBe(false);
    },
  );

  it('keeps provisional members out of role:fullmembers only', () => {
    const provisional = actor(MEMBER, { isProvisional: true });
    expect(hasSystemGroupPermission(provisional, 'role:fullmembers')).toBe(false);
    expect(hasSystemGroupPermission(provisional, 'role:members')).toBe(true);
    expect(hasSystemGroupPermission(provisional, 'role:everyone')).toBe(true);
    expect(hasSystemGroupPermission(actor(MEMBER, { isProvisional: false }), 'role:fullmembers')).toBe(true);
  });
});

describe('guestMayHold', () => {
  it.each([
    [GUEST, false, false],
    [GUEST, true, true],
    [MEMBER, false, true],
    [MEMBER, true, true],
    [MODERATOR, false, true],
    [ADMIN, false, true],
    [OWNER, false, true],
  ])('role %i, setting allows everyone %s → %s', (role, allowsEveryone, expected) => {
    expect(guestMayHold(actor(role), allowsEveryone)).toBe(expected);
  });
});

describe('role helpers', () => {
  it.each([
    [OWNER, true, true],
    [ADMIN, true, true],
    [MODERATOR, false, true],
    [MEMBER, false, false],
    [GUEST, false, false],
  ])('role %i: isAdmin %s, isModeratorOrAbove %s', (role, admin, moderator) => {
    expect(isAdmin(role)).toBe(admin);
    expect(isModeratorOrAbove(role)).toBe(moderator);
  });
});

describe('group graphs', () => {
  // Named groups: 10 = {hamlet(1)}; 11 = {othello(2)} ⊃ 10; 12 = {} ⊃ 11 (two levels of nesting).
  // Anonymous group 20 = {cordelia(3)} ⊃ 12 and the system group role:moderators (30).
  // 40 ⊃ 41 ⊃ 40: a cycle, with zoe(4) in 41.
  const graph = new Map<number, GroupNode>([
    [10, { id: 10, systemName: null, directMemberIds: [1], directSubgroupIds: [] }],
    [11, { id: 11, systemName: null, directMemberIds: [2], directSubgroupIds: [10] }],
    [12, { id: 12, systemName: null, directMemberIds: [], directSubgroupIds: [11] }],
    [20, { id: 20, systemName: null, directMemberIds: [3], directSubgroupIds: [12, 30] }],
    [30, { id: 30, systemName: 'role:moderators', directMemberIds: [], directSubgroupIds: [] }],
    [31, { id: 31, systemName: 'role:everyone', directMemberIds: [], directSubgroupIds: [] }],
    [40, { id: 40, systemName: null, directMemberIds: [], directSubgroupIds: [41] }],
    [41, { id: 41, systemName: null, directMemberIds: [4], directSubgroupIds: [40] }],
    [50, { id: 50, systemName: null, directMemberIds: [5], directSubgroupIds: [31] }],
  ]);
  const user = (id: number, role = MEMBER, extra: Partial<Actor> = {}): Actor => ({
    id,
    role,
    isActive: true,
    ...extra,
  });

  it('finds direct members', () => {
    expect(isInGroup(user(1), 10, graph)).toBe(true);
    expect(isInGroup(user(2), 10, graph)).toBe(false);
  });

  it('finds members of nested subgroups, but not of supergroups', () => {
    expect(isInGroup(user(1), 12, graph)).toBe(true);
    expect(isInGroup(user(2), 12, graph)).toBe(true);
    expect(isInGroup(user(2), 10, graph)).toBe(false);
  });

  it('resolves anonymous groups through named and system subgroups', () => {
    expect(isInGroup(user(3), 20, graph)).toBe(true);
    expect(isInGroup(user(1), 20, graph)).toBe(true);
    expect(isInGroup(user(99, MODERATOR), 20, graph)).toBe(true);
    expect(isInGroup(user(99, ADMIN), 20, graph)).toBe(true);
    expect(isInGroup(user(99, MEMBER), 20, graph)).toBe(false);
  });

  it('never counts deactivated users', () => {
    expect(isInGroup(user(1, MEMBER, { isActive: false }), 10, graph)).toBe(false);
    expect(isInGroup(user(99, OWNER, { isActive: false }), 20, graph)).toBe(false);
  });

  it('terminates on cycles', () => {
    expect(isInGroup(user(4), 40, graph)).toBe(true);
    expect(isInGroup(user(5), 40, graph)).toBe(false);
  });

  it('treats unknown groups as empty', () => {
    expect(isInGroup(user(1), 999, graph)).toBe(false);
  });

  describe('hasPermissionForGroupSetting', () => {
    it('refuses guests settings that do not allow role:everyone, even as direct members', () => {
      const guest = user(5, GUEST);
      expect(isInGroup(guest, 50, graph)).toBe(true);
      expect(hasPermissionForGroupSetting(guest, 50, graph, false)).toBe(false);
      expect(hasPermissionForGroupSetting(guest, 50, graph, true)).toBe(true);
    });

    it('lets guests in through role:everyone only when the setting allows it', () => {
      const guest = user(77, GUEST);
      expect(hasPermissionForGroupSetting(guest, 50, graph, true)).toBe(true);
      expect(hasPermissionForGroupSetting(guest, 50, graph, false)).toBe(false);
    });

    it('follows nesting for members, and refuses deactivated users', () => {
      expect(hasPermissionForGroupSetting(user(1), 20, graph, false)).toBe(true);
      expect(hasPermissionForGroupSetting(user(1, MEMBER, { isActive: false }), 20, graph, true)).toBe(false);
      expect(hasPermissionForGroupSetting(user(6), 20, graph, true)).toBe(false);
    });
  });

  describe('mayUpdateGroup', () => {
    it.each([
      [{ isSystemGroup: true, canManageAllGroups: true, canManageGroup: true, canSpecific: true }, false],
      [{ isSystemGroup: false, canManageAllGroups: true, canManageGroup: false }, true],
      [{ isSystemGroup: false, canManageAllGroups: false, canManageGroup: true }, true],
      [{ isSystemGroup: false, canManageAllGroups: false, canManageGroup: false, canSpecific: true }, true],
      [{ isSystemGroup: false, canManageAllGroups: false, canManageGroup: false, canSpecific: false }, false],
      [{ isSystemGroup: false, canManageAllGroups: false, canManageGroup: false }, false],
    ])('%j → %s', (access, expected) => {
      expect(mayUpdateGroup(access)).toBe(expected);
    });
  });
});
