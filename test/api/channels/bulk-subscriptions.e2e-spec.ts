import { DEFAULT_BOT as BOT, DESDEMONA, HAMLET, IAGO, OTHELLO, POLONIUS } from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, expectError, expectSuccess, openQueue, subscribedNames, takeEvents } from './helpers';

describe('PATCH /users/me/subscriptions', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
  });
  afterAll(() => t.close());

  const patch = async (email: string, params: Record<string, unknown>) => {
    const res = await call(t, 'patch', '/users/me/subscriptions', email, params);
    expectMatchesOpenApi('patch', '/users/me/subscriptions', res.status, res.body);
    return res;
  };

  it('adds (creating a channel) and removes in one call, answering both results merged', async () => {
    await patch(HAMLET, { add: [{ name: 'patch-old' }] });
    expect(await subscribedNames(t, HAMLET)).toContain('patch-old');
    const queue = await openQueue(t, HAMLET, ['subscription']);
    const res = await patch(HAMLET, {
      add: [{ name: 'patch-new', description: 'made by PATCH', color: '#c2c2c2' }, { name: 'Verona' }],
      delete: ['patch-old'],
    });
    expectSuccess(res);
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      subscribed: { [String(await idOf(HAMLET))]: ['patch-new'] },
      already_subscribed: { [String(await idOf(HAMLET))]: ['Verona'] },
      new_subscription_messages_sent: true,
      removed: ['patch-old'],
      not_removed: [],
    });
    const names = await subscribedNames(t, HAMLET);
    expect(names).toContain('patch-new');
    expect(names).not.toContain('patch-old');
    const channel = await t.dataSource.query<Array<{ description: string }>>(
      `SELECT description FROM stream WHERE name = 'patch-new'`,
    );
    expect(channel[0].description).toBe('made by PATCH');
    const color = await t.dataSource.query<Array<{ color: string }>>(
      `SELECT sub.color FROM subscription sub JOIN stream s ON s.recipient_id = sub.recipient_id
        WHERE s.name = 'patch-new' AND sub.user_profile_id = $1`,
      [await idOf(HAMLET)],
    );
    expect(color[0].color).toBe('#c2c2c2');
    const events = await takeEvents(t, queue);
    expect(events.map((e) => `${String(e.type)}:${String(e.op)}`)).toEqual(['subscription:add', 'subscription:remove']);
  });

  it('only one of them is enough; neither is "Nothing to do"', async () => {
    expect((await patch(OTHELLO, { add: [{ name: 'patch-solo' }] })).body).toMatchObject({
      removed: [],
      not_removed: [],
    });
    expect((await patch(OTHELLO, { delete: ['patch-solo'] })).body).toMatchObject({
      subscribed: {},
      already_subscribed: {},
      removed: ['patch-solo'],
    });
    expectError(await patch(OTHELLO, {}), 400, 'Nothing to do. Specify at least one of "add" or "delete".');
    expectError(
      await patch(OTHELLO, { add: [], delete: [] }),
      400,
      'Nothing to do. Specify at least one of "add" or "delete".',
    );
  });

  it('a refused removal rolls the additions back: nothing is half-written', async () => {
    const before = await subscribedNames(t, IAGO);
    const res = await patch(IAGO, { add: [{ name: 'patch-rollback' }], delete: ['no such channel'] });
    expectError(res, 400, 'Channel(s) (no such channel) do not exist');
    expect(await subscribedNames(t, IAGO)).toEqual(before);
    const created = await t.dataSource.query<unknown[]>(`SELECT 1 FROM stream WHERE name = 'patch-rollback'`);
    expect(created).toHaveLength(0);
  });

  it('bad input gets the parameter errors of add and delete', async () => {
    expectError(await patch(HAMLET, { add: 'Verona' }), 400, 'add is not valid JSON');
    expectError(await patch(HAMLET, { add: '"Verona"' }), 400, 'add is not a list');
    expectError(await patch(HAMLET, { delete: '{"a":1}' }), 400, 'delete is not a list');
    expectError(await patch(HAMLET, { delete: [1] }), 400, 'delete[0] is not a string');
    expectError(
      await patch(HAMLET, { add: ['Verona'] }),
      400,
      'Invalid add[0]: Input should be a valid dictionary or instance of AddSubscriptionData',
    );
    expectError(
      await patch(HAMLET, { add: [{ color: '#fff' }] }),
      400,
      'add[0]["name"] field is missing: Field required',
    );
    expectError(
      await patch(HAMLET, { add: [{ name: 'x', color: 'red' }] }),
      400,
      'Invalid add[0]: Value error, add.color is not a valid hex color code',
    );
    expectError(await patch(HAMLET, { add: [{ name: '' }] }), 400, "Channel name can't be empty.");
  });

  it('guests may not; bots and owners may', async () => {
    expectError(await patch(POLONIUS, { delete: ['Verona'] }), 400, 'Not allowed for guest users');
    expectSuccess(await patch(BOT, { add: [{ name: 'Verona' }] }));
    expectSuccess(await patch(DESDEMONA, { add: [{ name: 'Verona' }], delete: ['Denmark'] }));
  });

  async function idOf(email: string): Promise<number> {
    const rows = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM user_profile WHERE lower(delivery_email) = lower($1)`,
      [email],
    );
    return rows[0].id;
  }
});
