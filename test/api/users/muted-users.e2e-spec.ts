import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { countQueries } from '../../helpers/query-counter';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  call,
  CORDELIA,
  DEFAULT_BOT as BOT,
  expectError,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  userId,
} from '../../helpers/api';
import { openQueue, sendChannel, sendDirect, takeEvents, umFlags } from '../messaging/helpers';

const READ = 1;

describe('muted users: POST/DELETE /users/me/muted_users/{muted_user_id}', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
  });
  afterAll(() => t.close());

  const mute = async (email: string, id: number) => {
    const res = await call(t, 'post', `/users/me/muted_users/${id}`, email);
    expectMatchesOpenApi('post', '/users/me/muted_users/{muted_user_id}', res.status, res.body);
    return res;
  };
  const unmute = async (email: string, id: number) => {
    const res = await call(t, 'delete', `/users/me/muted_users/${id}`, email);
    expectMatchesOpenApi('delete', '/users/me/muted_users/{muted_user_id}', res.status, res.body);
    return res;
  };
  const mutedList = async (email: string) => {
    const res = await call(t, 'post', '/register', email, { fetch_event_types: ['muted_users'] });
    return (res.body as { muted_users: Array<{ id: number; timestamp: number }> }).muted_users;
  };

  it('mute: the list in /register and the event; existing unread messages become read', async () => {
    const othello = await userId(t, OTHELLO);
    const dm = await sendDirect(t, OTHELLO, [await userId(t, CORDELIA)], 'before the mute');
    const queue = await openQueue(t, CORDELIA, ['muted_users', 'update_message_flags']);
    const before = Math.floor(Date.now() / 1000);
    const res = await mute(CORDELIA, othello);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const list = await mutedList(CORDELIA);
    expect(list).toEqual([{ id: othello, timestamp: expect.any(Number) as number }]);
    expect(list[0].timestamp).toBeGreaterThanOrEqual(before - 1);
    expect((await umFlags(t, CORDELIA, dm))! & READ).toBe(READ);
    const events = await takeEvents(t, queue);
    expect(events).toEqual([
      { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: [dm], all: false },
      { type: 'muted_users', muted_users: list },
    ]);
  });

  it("a muted user's new messages arrive read for the muter only (channel and direct)", async () => {
    const othello = await userId(t, OTHELLO);
    await mute(HAMLET, othello);
    const queue = await openQueue(t, HAMLET, ['message']);
    const channelMsg = await sendChannel(t, OTHELLO, 'Verona', 'muted sender', 'hello');
    const dm = await sendDirect(t, OTHELLO, [await userId(t, HAMLET), await userId(t, IAGO)], 'hi both');
    expect((await umFlags(t, HAMLET, channelMsg))! & READ).toBe(READ);
    expect((await umFlags(t, HAMLET, dm))! & READ).toBe(READ);
    expect((await umFlags(t, IAGO, dm))! & READ).toBe(0);
    const events = await takeEvents(t, queue);
    expect(events.map((e) => e.flags)).toEqual([['read'], ['read']]);
    await unmute(HAMLET, othello);
    const after = await sendChannel(t, OTHELLO, 'Verona', 'muted sender', 'again');
    expect((await umFlags(t, HAMLET, after))! & READ).toBe(0);
  });

  it('errors: self, unknown and other-realm users, twice, not muted', async () => {
    const hamlet = await userId(t, HAMLET);
    expectError(await mute(HAMLET, hamlet), 400, 'Cannot mute self');
    expectError(await mute(HAMLET, 999_999), 400, 'No such user');
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    const { user: king } = await t.app
      .get(UsersService)
      .createUser(lear, { email: 'king@lear.example', fullName: 'King Lear' });
    expectError(await mute(HAMLET, king.id), 400, 'No such user');
    expectError(await unmute(HAMLET, king.id), 400, 'No such user');
    const iago = await userId(t, IAGO);
    expect((await mute(HAMLET, iago)).status).toBe(200);
    expectError(await mute(HAMLET, iago), 400, 'User already muted');
    expect((await unmute(HAMLET, iago)).status).toBe(200);
    expectError(await unmute(HAMLET, iago), 400, 'User is not muted');
    expect(await mutedList(HAMLET)).toEqual([]);
  });

  it('bots, deactivated users and guests can be muted; guests and bots can mute', async () => {
    const bot = await userId(t, BOT);
    expect((await mute(POLONIUS, bot)).status).toBe(200);
    expect((await mute(BOT, await userId(t, HAMLET))).status).toBe(200);
    expect((await call(t, 'delete', `/users/${await userId(t, CORDELIA)}`, IAGO)).status).toBe(200);
    expect((await mute(POLONIUS, await userId(t, CORDELIA))).status).toBe(200);
    expect((await call(t, 'post', `/users/${await userId(t, CORDELIA)}/reactivate`, IAGO)).status).toBe(200);
  });

  it('a send costs the same statements however many recipients muted the sender', async () => {
    const realm = (await t.app.get(RealmService).findByStringId('zulip'))!;
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const { user } = await t.app
        .get(UsersService)
        .createUser(realm, { email: `muter${i}@zulip.com`, fullName: `M ${i}` });
      ids.push(user.id);
    }
    await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name: 'mute counting' }],
      principals: ids,
    });
    // Warm-ups to the counted topic: a send to a topic not seen yet reads whether it exists.
    await sendChannel(t, IAGO, 'mute counting', 'count', 'up');
    const one = (await countQueries(() => sendChannel(t, IAGO, 'mute counting', 'count', 'one'))).count;
    for (let i = 0; i < 6; i++) await mute(`muter${i}@zulip.com`, await userId(t, IAGO));
    // The realm's mutes are cached per process: the first send after a change reloads them.
    await sendChannel(t, IAGO, 'mute counting', 'count', 'again');
    const many = (await countQueries(() => sendChannel(t, IAGO, 'mute counting', 'count', 'many'))).count;
    expect(many).toBe(one);
  });
});
