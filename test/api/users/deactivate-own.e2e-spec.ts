/**
 * DELETE /users/me (Zulip's deactivate_user_own_backend; test_users.py
 * test_api_with_nonexistent_user / test_do_not_deactivate_final_owner / final user): a user
 * deactivates their own account.
 */
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { api, DEFAULT_BOT, DESDEMONA, events, HAMLET, IAGO, queue, userId } from './helpers';

describe('DELETE /users/me', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('deactivates the caller: everyone is told, the key stops working', async () => {
    const hamlet = await userId(t, HAMLET);
    const auth = await t.auth(HAMLET);
    const q = await queue(t, IAGO, ['realm_user']);
    const res = await api(t, 'delete', '/users/me', HAMLET);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expectMatchesOpenApi('delete', '/users/me', 200, res.body);
    expect(await events(t, q)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: hamlet, is_active: false } },
    ]);
    const after = await t
      .http()
      .get('/api/v1/users/me')
      .auth(...auth);
    expect(after.status).toBe(401);
    expect((await api(t, 'get', `/users/${hamlet}`, IAGO)).body.user.is_active).toBe(false);
  });

  it('refuses the only organization owner; once there is another, the owner and their bots go', async () => {
    const res = await api(t, 'delete', '/users/me', DESDEMONA);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Cannot deactivate the only organization owner.',
      code: 'CANNOT_DEACTIVATE_LAST_USER',
      is_last_owner: true,
      entity: 'organization owner',
    });
    expectMatchesOpenApi('delete', '/users/me', 400, res.body);

    await api(t, 'patch', `/users/${await userId(t, IAGO)}`, DESDEMONA, { role: 100 });
    const bot = await userId(t, DEFAULT_BOT);
    expect((await api(t, 'delete', '/users/me', DESDEMONA)).status).toBe(200);
    expect((await api(t, 'get', `/users/${bot}`, IAGO)).body.user.is_active).toBe(false);
  });

  it('refuses the last active user of an organization', async () => {
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: 'king@lear.test', fullName: 'King Lear', role: 100 });
    const res = await t
      .http()
      .delete('/api/v1/users/me')
      .set('Host', 'lear.zulip.testserver')
      .auth(...(await t.auth('king@lear.test', 'lear')));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Cannot deactivate the only user.',
      code: 'CANNOT_DEACTIVATE_LAST_USER',
      is_last_owner: false,
      entity: 'user',
    });
  });
});
