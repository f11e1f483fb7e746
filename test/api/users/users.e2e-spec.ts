import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';

describe('users endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('GET /users/me returns the caller with max_message_id', async () => {
    const res = await t
      .http()
      .get('/api/v1/users/me')
      .auth(...(await t.auth('iago@zulip.com')));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: 'success',
      msg: '',
      user_id: 11,
      email: 'iago@zulip.com',
      delivery_email: 'iago@zulip.com',
      full_name: 'Iago',
      role: 200,
      is_admin: true,
      is_owner: false,
      is_guest: false,
      is_bot: false,
      is_active: true,
    });
    expectMatchesOpenApi('get', '/users/me', res.status, res.body);
  });
});
