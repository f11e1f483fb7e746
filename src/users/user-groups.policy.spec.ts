import { ZulipError } from '../common/errors/zulip-error';
import { checkUserGroupName, USER_GROUP_SETTINGS } from './user-groups.policy';

function error(name: string): string | undefined {
  try {
    checkUserGroupName(name);
    return undefined;
  } catch (e) {
    return (e as ZulipError).message;
  }
}

describe('checkUserGroupName', () => {
  it.each([
    ['support', undefined],
    ['a'.repeat(100), undefined],
    ['Ünïcødé group', undefined],
    ['', "User group name can't be empty!"],
    ['   ', "User group name can't be empty!"],
    ['a'.repeat(101), 'User group name cannot exceed 100 characters.'],
    ['@support', "User group name cannot start with '@'."],
    ['role:support', "User group name cannot start with 'role:'."],
    ['user:support', "User group name cannot start with 'user:'."],
    ['stream:support', "User group name cannot start with 'stream:'."],
    ['channel:support', "User group name cannot start with 'channel:'."],
    ['my role:x', undefined],
  ])('%j → %s', (name, msg) => {
    expect(error(name)).toBe(msg);
  });
});

describe('user-group settings', () => {
  it('refuses role:everyone for the membership-management settings only', () => {
    expect(USER_GROUP_SETTINGS.can_add_members_group.allowEveryone).toBe(false);
    expect(USER_GROUP_SETTINGS.can_join_group.allowEveryone).toBe(false);
    expect(USER_GROUP_SETTINGS.can_manage_group.allowEveryone).toBe(false);
    expect(USER_GROUP_SETTINGS.can_remove_members_group.allowEveryone).toBe(false);
    expect(USER_GROUP_SETTINGS.can_leave_group.allowEveryone).toBe(true);
    expect(USER_GROUP_SETTINGS.can_mention_group.allowEveryone).toBe(true);
    expect(USER_GROUP_SETTINGS.can_mention_group.allowOwners).toBe(false);
  });
});
