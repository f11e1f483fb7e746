import { SystemGroupName } from '../realm/system-groups';
import { Actor, guestMayHold, hasSystemGroupPermission, isAdmin, isModeratorOrAbove } from './group-settings.policy';

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
    for (const role of [OWNER, ADMIN, MODERATOR, MEMBER, GUEST]) cases.push([group, role, HOLDERS[group].includes(role)]);
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
