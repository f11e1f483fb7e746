import { startTestApp, TestApp } from '../../helpers/test-app';
import { api, expectError, expectSuccess, HAMLET, IAGO, DESDEMONA, userId } from './helpers';

/** Text PostgreSQL cannot store, and ids it cannot hold, never turn into 500s. */
describe('bad input in the users, groups and realm endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('refuses NUL in names and identifiers', async () => {
    expectError(
      await api(t, 'post', '/user_groups/create', IAGO, { name: 'ab\0c', description: 'd', members: [] }),
      'post',
      '/user_groups/create',
      'Invalid character in user group name, at position 3.',
    );
    expectError(
      await api(t, 'post', '/realm/profile_fields', IAGO, { name: 'x\0', field_type: 1 }),
      'post',
      '/realm/profile_fields',
      'Invalid character in label, at position 2.',
    );
    expectError(
      await api(t, 'post', '/navigation_views', HAMLET, { fragment: 'narrow/\0', is_pinned: true, name: 'n' }),
      'post',
      '/navigation_views',
      'Invalid character in fragment, at position 8.',
    );
    expectError(
      await api(t, 'patch', '/navigation_views/inbox', HAMLET, { name: '\0' }),
      'patch',
      '/navigation_views/{fragment}',
      'Invalid character in name, at position 1.',
    );
    expectError(
      await api(t, 'patch', '/navigation_views/a%00b', HAMLET, { is_pinned: true }),
      'patch',
      '/navigation_views/{fragment}',
      'Navigation view does not exist.',
      'NOT_FOUND',
      404,
    );
    const realm = await api(t, 'patch', '/realm', IAGO, { name: 'Zu\0lip' });
    expect(realm.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Invalid character in organization name, at position 3.',
    });
    expectError(await api(t, 'get', '/users/a%00b@zulip.com', HAMLET), 'get', '/users/{email}', 'No such user');
    const hamlet = await userId(t, HAMLET);
    expectError(
      await api(t, 'patch', `/users/${hamlet}`, IAGO, { new_email: 'a\0b@zulip.com' }),
      'patch',
      '/users/{user_id}',
      'Invalid new email address.',
    );
    expectError(
      await api(t, 'post', '/users', IAGO, { email: 'a\0b@zulip.com', full_name: 'A B', password: 'abcdef12' }),
      'post',
      '/users',
      'Bad name or username',
    );
  });

  it('keeps NUL out of free text by replacing it', async () => {
    const created = await api(t, 'post', '/user_groups/create', IAGO, {
      name: 'nul-desc',
      description: 'a\0b',
      members: [],
    });
    const id = expectSuccess(created, 'post', '/user_groups/create').group_id as number;
    const groups = await api(t, 'get', '/user_groups', IAGO);
    expect(
      (groups.body.user_groups as Array<{ id: number; description: string }>).find((g) => g.id === id)?.description,
    ).toBe('a\uFFFDb');
    const field = await api(t, 'post', '/realm/profile_fields', IAGO, { name: 'Motto', hint: 'h\0', field_type: 1 });
    const fieldId = expectSuccess(field, 'post', '/realm/profile_fields').id as number;
    const hamlet = await userId(t, HAMLET);
    expectSuccess(
      await api(t, 'patch', `/users/${hamlet}`, IAGO, { profile_data: [{ id: fieldId, value: 'x\0y' }] }),
      'patch',
      '/users/{user_id}',
    );
    const user = await api(t, 'get', `/users/${hamlet}`, IAGO, { include_custom_profile_fields: true });
    expect((user.body.user.profile_data as Record<string, { value: string }>)[String(fieldId)].value).toBe('x\uFFFDy');
    const realm = await api(t, 'patch', '/realm', DESDEMONA, { description: 'about\0us' });
    expect(realm.status).toBe(200);
  });

  it('answers ids beyond the database range like unknown ids', async () => {
    const huge = 2 ** 53;
    expectError(
      await api(t, 'get', `/user_groups/${huge}/members`, HAMLET),
      'get',
      '/user_groups/{user_group_id}/members',
      'Invalid user group',
    );
    expectError(
      await api(t, 'post', '/user_groups/create', IAGO, { name: 'huge', description: 'd', members: [huge] }),
      'post',
      '/user_groups/create',
      `Invalid user ID: ${huge}`,
    );
    expectError(
      await api(t, 'patch', `/users/${huge}`, IAGO, { full_name: 'X Y' }),
      'patch',
      '/users/{user_id}',
      'No such user',
    );
    const hamlet = await userId(t, HAMLET);
    expectError(
      await api(t, 'patch', `/users/${hamlet}`, IAGO, { profile_data: [{ id: huge, value: 'x' }] }),
      'patch',
      '/users/{user_id}',
      `Field id ${huge} not found.`,
    );
    const deleted = await api(t, 'delete', `/realm/profile_fields/${huge}`, IAGO);
    expect(deleted.body).toMatchObject({ code: 'BAD_REQUEST', msg: `Field id ${huge} not found.` });
  });
});
