import { DEFAULT_BOT as BOT, DESDEMONA, HAMLET, IAGO, OTHELLO, POLONIUS } from '../../helpers/api';
import { RealmService } from '../../../src/realm/realm.service';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, expectError, openQueue, subscribedNames, systemGroupId, takeEvents, userId } from './helpers';

describe('POST /channels/create', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
  });
  afterAll(() => t.close());

  const create = async (email: string, params: Record<string, unknown>) => {
    const res = await call(t, 'post', '/channels/create', email, params);
    if ((res.body as { code?: string }).code !== 'REQUEST_VARIABLE_MISSING') {
      expectMatchesOpenApi('post', '/channels/create', res.status, res.body);
    }
    return res;
  };
  const channelRow = async (name: string) =>
    (
      await t.dataSource.query<
        Array<{ id: number; invite_only: boolean; description: string; history_public_to_subscribers: boolean }>
      >(`SELECT id, invite_only, description, history_public_to_subscribers FROM stream WHERE name = $1`, [name])
    )[0];

  it('creates the channel with its settings and subscribes exactly the listed users; answers its id', async () => {
    const othello = await userId(t, OTHELLO);
    const iago = await userId(t, IAGO);
    const queue = await openQueue(t, OTHELLO, ['subscription', 'stream']);
    const res = await create(HAMLET, {
      name: '  music  ',
      description: 'All things\nmusic',
      subscribers: [othello, iago],
      invite_only: true,
    });
    expect(res.status).toBe(200);
    const row = await channelRow('music');
    expect(res.body).toEqual({ result: 'success', msg: '', id: row.id });
    expect(row).toMatchObject({ invite_only: true, description: 'All things music' });
    // The creator is subscribed only when listed.
    expect(await subscribedNames(t, HAMLET)).not.toContain('music');
    expect(await subscribedNames(t, OTHELLO)).toContain('music');
    expect(await subscribedNames(t, IAGO)).toContain('music');
    const events = await takeEvents(t, queue);
    expect(events.map((e) => `${String(e.type)}:${String(e.op)}`)).toEqual(
      expect.arrayContaining(['stream:create', 'subscription:add']),
    );
  });

  it('an empty subscriber list makes a channel with no subscribers', async () => {
    const res = await create(HAMLET, { name: 'empty room', subscribers: [] });
    expect(res.status).toBe(200);
    const subs = await t.dataSource.query<unknown[]>(
      `SELECT 1 FROM subscription sub JOIN stream s ON s.recipient_id = sub.recipient_id WHERE s.name = 'empty room'`,
    );
    expect(subs).toHaveLength(0);
  });

  it('an existing name (any case) is 409 CHANNEL_ALREADY_EXISTS and changes nothing', async () => {
    const res = await create(HAMLET, { name: 'verona', subscribers: [await userId(t, OTHELLO)] });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      result: 'error',
      msg: "Channel 'Verona' already exists",
      code: 'CHANNEL_ALREADY_EXISTS',
    });
  });

  it('default channel and announcement, as POST /users/me/subscriptions does', async () => {
    const queue = await openQueue(t, HAMLET, ['default_streams']);
    const res = await create(IAGO, {
      name: 'announced',
      subscribers: [await userId(t, IAGO)],
      is_default_stream: true,
      announce: true,
    });
    expect(res.status).toBe(200);
    const events = await takeEvents(t, queue);
    expect(events.map((e) => e.type)).toEqual(['default_streams']);
    const notice = await t.dataSource.query<Array<{ content: string }>>(
      `SELECT content FROM message WHERE content LIKE '%created a new channel%' AND content LIKE '%announced%'`,
    );
    expect(notice.length).toBeGreaterThan(0);
  });

  it('refusals: guests, creation permission, bad names, bad subscribers, missing parameters', async () => {
    expectError(await create(POLONIUS, { name: 'guest room', subscribers: [] }), 400, 'Not allowed for guest users');
    expectError(await create(HAMLET, { name: '', subscribers: [] }), 400, "Channel name can't be empty.");
    expectError(await create(HAMLET, { name: 'x', subscribers: [999_999] }), 400, 'No such user');
    expectError(await create(HAMLET, { name: 'x', subscribers: 'all' }), 400, 'subscribers is not valid JSON');
    const missing = await create(HAMLET, { name: 'x' });
    expectError(missing, 400, "Missing 'subscribers' argument", 'REQUEST_VARIABLE_MISSING');
    await t.dataSource.query(`UPDATE realm SET can_create_public_channel_group = $1 WHERE string_id = 'zulip'`, [
      await systemGroupId(t, 'role:administrators'),
    ]);
    t.app.get(RealmService).invalidate();
    expectError(await create(HAMLET, { name: 'not allowed', subscribers: [] }), 400, 'Insufficient permission');
    expect(await channelRow('not allowed')).toBeUndefined();
    expect((await create(DESDEMONA, { name: 'owners may', subscribers: [] })).status).toBe(200);
    expect((await create(BOT, { name: 'bots of admins?', subscribers: [] })).status).toBe(400);
  });
});
