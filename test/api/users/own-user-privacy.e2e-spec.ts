/**
 * Security review findings (issue 11 item 6) about what GET /users/me and the user dicts reveal:
 * - GET /users/me `max_message_id` is the user's own (as /register's), not the server's newest
 *   message id across realms;
 * - gravatar URLs hash the email a viewer sees, never a hidden delivery email.
 */
import { createHash } from 'node:crypto';
import { RealmService } from '../../../src/realm/realm.service';
import { AuthService } from '../../../src/users/auth.service';
import { UsersService } from '../../../src/users/users.service';
import { call, HAMLET, IAGO, OTHELLO, userId } from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { openQueue, sendChannel, sendDirect, takeEvents } from '../messaging/helpers';

const md5 = (email: string) => createHash('md5').update(email.trim().toLowerCase()).digest('hex');

describe('GET /users/me max_message_id and gravatar privacy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
  });
  afterAll(() => t.close());

  it("max_message_id is the user's newest received message, as /register's, not another realm's", async () => {
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: 'king@lear.test', fullName: 'King Lear' });
    // The newest message of the server is in the zulip realm, between Iago and Othello only.
    await sendChannel(t, HAMLET, 'Verona', 'topic', 'for Verona');
    const newest = await sendDirect(t, IAGO, [await userId(t, OTHELLO)], 'not for Hamlet');

    const king = await t
      .http()
      .get('/api/v1/users/me')
      .set('Host', 'lear.zulip.testserver')
      .auth(...(await t.auth('king@lear.test', 'lear')));
    expect(king.status).toBe(200);
    expectMatchesOpenApi('get', '/users/me', king.status, king.body);
    expect(king.body.max_message_id).toBe(-1);

    const hamlet = await call(t, 'get', '/users/me', HAMLET);
    const [{ max }] = await t.dataSource.query<Array<{ max: number }>>(
      `SELECT max(message_id) AS max FROM user_message WHERE user_profile_id = $1`,
      [await userId(t, HAMLET)],
    );
    expect(max).toBeLessThan(newest);
    expect(hamlet.body.max_message_id).toBe(max);
    const registered = await call(t, 'post', '/register', HAMLET, { fetch_event_types: ['message'] });
    expect(registered.body.max_message_id).toBe(hamlet.body.max_message_id);
    expect((await call(t, 'get', '/users/me', OTHELLO)).body.max_message_id).toBe(newest);
  });

  describe('with Othello’s email visible to administrators only', () => {
    let othelloId: number;
    beforeAll(async () => {
      othelloId = await userId(t, OTHELLO);
      await t.dataSource.query('UPDATE user_profile SET email_address_visibility = 3 WHERE id = $1', [othelloId]);
      t.app.get(AuthService).invalidateUser(othelloId);
    });

    it('no avatar URL a member sees contains md5(delivery_email)', async () => {
      const secret = md5(OTHELLO);
      const fake = md5(`user${othelloId}@zulip.testserver`);
      const one = await call(t, 'get', `/users/${othelloId}`, HAMLET, { client_gravatar: 'false' });
      expect(one.status).toBe(200);
      expect(one.body.user.email).toBe(`user${othelloId}@zulip.testserver`);
      expect(one.body.user.avatar_url).not.toContain(secret);
      expect(one.body.user.avatar_url).toContain(fake);
      const list = await call(t, 'get', '/users', HAMLET, { client_gravatar: 'false' });
      expect(JSON.stringify(list.body)).not.toContain(secret);
      const register = await call(t, 'post', '/register', HAMLET, {
        fetch_event_types: ['realm_user'],
        client_gravatar: false,
      });
      expect(JSON.stringify(register.body)).not.toContain(secret);

      // Messages Othello sends carry no hash of his address either (fetch and events).
      const q = await openQueue(t, HAMLET, ['message'], { client_gravatar: false });
      const id = await sendChannel(t, OTHELLO, 'Verona', 'avatars', 'hello');
      const fetched = await call(t, 'get', `/messages/${id}`, HAMLET, { client_gravatar: 'false' });
      expect(fetched.body.message.avatar_url).toContain(fake);
      expect(JSON.stringify(fetched.body)).not.toContain(secret);
      expect(JSON.stringify(await takeEvents(t, q))).not.toContain(secret);

      // Othello's own /register and /users/me agree with what others see.
      const own = await call(t, 'get', '/users/me', OTHELLO);
      expect(own.body.avatar_url).toContain(fake);
    });

    it('an administrator, who may see the address, gets the same URL (one URL per user)', async () => {
      const asAdmin = await call(t, 'get', `/users/${othelloId}`, IAGO, { client_gravatar: 'false' });
      expect(asAdmin.body.user.delivery_email).toBe(OTHELLO);
      expect(asAdmin.body.user.avatar_url).not.toContain(md5(OTHELLO));
    });
  });
});
