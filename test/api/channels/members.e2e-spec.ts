/**
 * GET /streams/{stream_id}/members (get_subscribers_backend) and
 * GET /users/{user_id}/subscriptions/{stream_id} (get_subscription_backend): what Zulip's
 * Python client's get_subscribers and get_subscription_status call.
 */
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectError, userId } from '../../helpers/api';

const HAMLET = 'hamlet@zulip.com';
const IAGO = 'iago@zulip.com';
const POLONIUS = 'polonius@zulip.com';
const OTHELLO = 'othello@zulip.com';

describe('channel members and subscription status', () => {
  let t: TestApp;
  let verona: number;
  let secret: number;
  beforeAll(async () => {
    t = await startTestApp();
    verona = await channelId(t, 'Verona');
    const created = await call(t, 'post', '/users/me/subscriptions', HAMLET, {
      subscriptions: [{ name: 'members-secret' }],
      invite_only: true,
    });
    expect(created.status).toBe(200);
    secret = await channelId(t, 'members-secret');
  });
  afterAll(() => t.close());

  it('lists a public channel’s active subscribers, sorted', async () => {
    const res = await call(t, 'get', `/streams/${verona}/members`, OTHELLO);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/streams/{stream_id}/members', 200, res.body);
    const ids = res.body.subscribers as number[];
    expect(ids).toContain(await userId(t, HAMLET));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    // The same set as the subscriber list of GET /users/me/subscriptions.
    const subs = await call(t, 'get', '/users/me/subscriptions', HAMLET, { include_subscribers: true });
    const verSub = (subs.body.subscriptions as Array<{ stream_id: number; subscribers: number[] }>).find(
      (s) => s.stream_id === verona,
    )!;
    expect([...verSub.subscribers].sort((a, b) => a - b)).toEqual(ids);
  });

  it('a private channel: subscribers and administrators yes, others as a missing channel', async () => {
    expect((await call(t, 'get', `/streams/${secret}/members`, HAMLET)).body.subscribers).toEqual([
      await userId(t, HAMLET),
    ]);
    expect((await call(t, 'get', `/streams/${secret}/members`, IAGO)).status).toBe(200);
    expectError(await call(t, 'get', `/streams/${secret}/members`, OTHELLO), 400, 'Invalid channel ID');
    expectError(await call(t, 'get', `/streams/${secret}/members`, POLONIUS), 400, 'Invalid channel ID');
    expectError(await call(t, 'get', '/streams/999999/members', HAMLET), 400, 'Invalid channel ID');
  });

  it('tells whether a user is subscribed', async () => {
    const hamlet = await userId(t, HAMLET);
    const iago = await userId(t, IAGO);
    const yes = await call(t, 'get', `/users/${hamlet}/subscriptions/${secret}`, HAMLET);
    expect(yes.body).toEqual({ result: 'success', msg: '', is_subscribed: true });
    expectMatchesOpenApi('get', '/users/{user_id}/subscriptions/{stream_id}', 200, yes.body);
    expect((await call(t, 'get', `/users/${iago}/subscriptions/${secret}`, HAMLET)).body.is_subscribed).toBe(false);
    // The caller must see the channel; an unknown user is refused.
    expectError(await call(t, 'get', `/users/${hamlet}/subscriptions/${secret}`, OTHELLO), 400, 'Invalid channel ID');
    expectError(await call(t, 'get', `/users/999999/subscriptions/${verona}`, HAMLET), 400, 'No such user');
    expect((await call(t, 'get', `/users/abc/subscriptions/${verona}`, HAMLET)).status).toBe(404);
  });
});
