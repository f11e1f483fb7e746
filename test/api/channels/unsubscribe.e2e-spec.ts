import { CORDELIA, DESDEMONA, HAMLET, IAGO, OTHELLO, POLONIUS, ZOE } from '../../helpers/api';
import { AuthService } from '../../../src/users/auth.service';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  call,
  channelId,
  expectError,
  expectSuccess,
  openQueue,
  subscribedNames,
  systemGroupId,
  takeEvents,
  userId,
} from './helpers';

describe('DELETE /users/me/subscriptions', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    ids = {};
    for (const e of [HAMLET, OTHELLO, IAGO, DESDEMONA, POLONIUS, CORDELIA, ZOE, 'default-bot@zulip.com'])
      ids[e] = await userId(t, e);
  });
  afterAll(() => t.close());

  const unsubscribe = async (email: string, params: Record<string, unknown>) => {
    const res = await call(t, 'delete', '/users/me/subscriptions', email, params);
    if (res.body && (res.body as { code?: string }).code !== 'REQUEST_VARIABLE_MISSING') {
      expectMatchesOpenApi('delete', '/users/me/subscriptions', res.status, res.body);
    }
    return res;
  };

  it('unsubscribes the caller and reports what was not subscribed', async () => {
    const res = await unsubscribe(OTHELLO, { subscriptions: ['Verona', 'sandbox'] });
    expectSuccess(res);
    expect(res.body).toEqual({ result: 'success', msg: '', removed: ['Verona'], not_removed: ['sandbox'] });
    expect(await subscribedNames(t, OTHELLO)).not.toContain('Verona');
  });

  it('finds channels case-insensitively and ignores surrounding spaces', async () => {
    const res = await unsubscribe(OTHELLO, { subscriptions: ['  denmark '] });
    expect(res.body).toMatchObject({ removed: ['Denmark'], not_removed: [] });
  });

  it('unsubscribing from a private channel takes it away from a member', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, {
        subscriptions: [{ name: 'private leave' }],
        invite_only: true,
        principals: [ids[HAMLET], ids[OTHELLO]],
      }),
    );
    const othelloQ = await openQueue(t, OTHELLO, ['stream', 'subscription']);
    const hamletQ = await openQueue(t, HAMLET, ['stream', 'subscription']);
    const iagoQ = await openQueue(t, IAGO, ['stream', 'subscription']);
    expectSuccess(await unsubscribe(OTHELLO, { subscriptions: ['private leave'] }));
    const id = await channelId(t, 'private leave');
    expect(await takeEvents(t, othelloQ)).toEqual([
      { type: 'subscription', op: 'remove', subscriptions: [{ name: 'private leave', stream_id: id }] },
      { type: 'stream', op: 'delete', streams: [{ stream_id: id }], stream_ids: [id] },
    ]);
    const peerRemove = { type: 'subscription', op: 'peer_remove', stream_ids: [id], user_ids: [ids[OTHELLO]] };
    expect(await takeEvents(t, hamletQ)).toEqual([peerRemove]);
    expect(await takeEvents(t, iagoQ)).toEqual([peerRemove]);
  });

  it('public channels stay visible: no delete event, peer_remove to everyone else', async () => {
    const othelloQ = await openQueue(t, OTHELLO, ['stream', 'subscription']);
    const cordeliaQ = await openQueue(t, CORDELIA, ['stream', 'subscription']);
    const id = await channelId(t, 'Scotland');
    expectSuccess(await unsubscribe(OTHELLO, { subscriptions: ['Scotland'] }));
    expect(await takeEvents(t, othelloQ)).toEqual([
      { type: 'subscription', op: 'remove', subscriptions: [{ name: 'Scotland', stream_id: id }] },
    ]);
    expect(await takeEvents(t, cordeliaQ)).toEqual([
      { type: 'subscription', op: 'peer_remove', stream_ids: [id], user_ids: [ids[OTHELLO]] },
    ]);
  });

  it('administrators unsubscribe anyone, by id or email', async () => {
    const res = await unsubscribe(IAGO, {
      subscriptions: ['Venice'],
      principals: ['zoe@zulip.com', 'prospero@zulip.com'],
    });
    expect(res.body).toMatchObject({ removed: ['Venice', 'Venice'], not_removed: [] });
  });

  it('administrators unsubscribe others from private channels they are not in', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', DESDEMONA, {
        subscriptions: [{ name: 'iago not in' }],
        invite_only: true,
        principals: [ids[DESDEMONA], ids[CORDELIA]],
      }),
    );
    const res = await unsubscribe(IAGO, { subscriptions: ['iago not in'], principals: [ids[CORDELIA]] });
    expect(res.body).toMatchObject({ removed: ['iago not in'] });
  });

  it('members may unsubscribe their own bots', async () => {
    const bot = ids['default-bot@zulip.com']; // owned by desdemona
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', DESDEMONA, {
        subscriptions: [{ name: 'Denmark' }],
        principals: [bot],
      }),
    );
    await t.dataSource.query(`UPDATE user_profile SET role = 400 WHERE id = $1`, [ids[DESDEMONA]]);
    t.app.get(AuthService).invalidateAll();
    try {
      const res = await unsubscribe(DESDEMONA, { subscriptions: ['Denmark'], principals: [bot] });
      expect(res.body).toMatchObject({ removed: ['Denmark'] });
    } finally {
      await t.dataSource.query(`UPDATE user_profile SET role = 100 WHERE id = $1`, [ids[DESDEMONA]]);
      t.app.get(AuthService).invalidateAll();
    }
  });

  it('others need can_remove_subscribers_group (administrators by default)', async () => {
    expectError(
      await unsubscribe(HAMLET, { subscriptions: ['Verona'], principals: [ids[CORDELIA]] }),
      400,
      'Insufficient permission',
    );
    const members = await systemGroupId(t, 'role:members');
    const id = await channelId(t, 'Verona');
    expectSuccess(await call(t, 'patch', `/streams/${id}`, IAGO, { can_remove_subscribers_group: { new: members } }));
    expect((await unsubscribe(HAMLET, { subscriptions: ['Verona'], principals: [ids[CORDELIA]] })).body).toMatchObject({
      removed: ['Verona'],
    });
  });

  it('channel administrators may unsubscribe others', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, {
        subscriptions: [{ name: 'hamlet runs it' }],
        principals: [ids[HAMLET], ids[OTHELLO]],
      }),
    );
    expect(
      (await unsubscribe(HAMLET, { subscriptions: ['hamlet runs it'], principals: [ids[OTHELLO]] })).body,
    ).toMatchObject({
      removed: ['hamlet runs it'],
    });
  });

  it('guests may leave channels but not remove others', async () => {
    expect((await unsubscribe(POLONIUS, { subscriptions: ['Verona'] })).body).toMatchObject({ removed: ['Verona'] });
    expectError(
      await unsubscribe(POLONIUS, { subscriptions: ['Denmark'], principals: [ids[HAMLET]] }),
      400,
      'Insufficient permission',
    );
  });

  it.each([
    [{}, 'REQUEST_VARIABLE_MISSING', "Missing 'subscriptions' argument"],
    [
      { subscriptions: ['no such channel', 'Verona', 'nor this'] },
      'BAD_REQUEST',
      'Channel(s) (no such channel, nor this) do not exist',
    ],
    [{ subscriptions: [5] }, 'BAD_REQUEST', 'subscriptions[0] is not a string'],
    [{ subscriptions: 'Verona' }, 'BAD_REQUEST', 'subscriptions is not valid JSON'],
    [{ subscriptions: ['a'.repeat(61)] }, 'BAD_REQUEST', 'Channel name too long (limit: 60 characters).'],
    [{ subscriptions: ['Verona'], principals: [999999] }, 'BAD_REQUEST', 'No such user'],
    [{ subscriptions: ['Verona'], principals: ['nobody@example.com'] }, 'BAD_REQUEST', 'No such user'],
  ])('%j → %s %s', async (params, code, msg) => {
    expectError(await unsubscribe(HAMLET, params), 400, msg, code);
  });

  it('refuses deactivated principals', async () => {
    await t.dataSource.query(`UPDATE user_profile SET is_active = false WHERE id = $1`, [ids[ZOE]]);
    try {
      expectError(
        await unsubscribe(IAGO, { subscriptions: ['Verona'], principals: [ids[ZOE]] }),
        400,
        'User is deactivated',
      );
    } finally {
      await t.dataSource.query(`UPDATE user_profile SET is_active = true WHERE id = $1`, [ids[ZOE]]);
    }
  });

  it('a private channel the caller cannot see answers as missing (Zulip says not_removed; DECISIONS)', async () => {
    expectError(
      await unsubscribe(OTHELLO, { subscriptions: ['core team'] }),
      400,
      'Channel(s) (core team) do not exist',
    );
  });

  it('leaving an archived channel works (level 362)', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'soon archived' }] }),
    );
    expectSuccess(await call(t, 'delete', `/streams/${await channelId(t, 'soon archived')}`, HAMLET));
    expect((await unsubscribe(HAMLET, { subscriptions: ['soon archived'] })).body).toMatchObject({
      removed: ['soon archived'],
    });
  });

  it('an inaccessible private channel answers as a missing one (names cannot be probed)', async () => {
    const made = await call(t, 'post', '/users/me/subscriptions', OTHELLO, {
      subscriptions: [{ name: 'probe target' }],
      invite_only: true,
    });
    expectSuccess(made);
    const hidden = await unsubscribe(HAMLET, { subscriptions: ['probe target'] });
    const missing = await unsubscribe(HAMLET, { subscriptions: ['no such channel here'] });
    expectError(hidden, 400, 'Channel(s) (probe target) do not exist');
    expectError(missing, 400, 'Channel(s) (no such channel here) do not exist');
    // Its subscriber and an administrator still reach it.
    expect((await unsubscribe(IAGO, { subscriptions: ['probe target'] })).body).toMatchObject({
      not_removed: ['probe target'],
    });
    expect((await unsubscribe(OTHELLO, { subscriptions: ['probe target'] })).body).toMatchObject({
      removed: ['probe target'],
    });
  });
});
