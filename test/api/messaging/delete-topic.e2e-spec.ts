import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { Clock } from '../../../src/messaging/clock';
import { TopicDeleteService } from '../../../src/messaging/topic-delete.service';
import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import {
  BOT,
  call,
  channelId,
  CORDELIA,
  DESDEMONA,
  expectError,
  HAMLET,
  IAGO,
  openQueue,
  OTHELLO,
  POLONIUS,
  sendChannel,
  SHIVA,
  subscribe,
  takeEvents,
  userId,
} from './helpers';

describe('POST /streams/{stream_id}/delete_topic', () => {
  let t: TestApp;
  const deleteTopic = (email: string, streamId: number, topic: string) =>
    call(t, 'post', `/streams/${streamId}/delete_topic`, email, { topic_name: topic });
  const remaining = async (ids: number[]) =>
    (
      await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM message WHERE id = ANY($1::int[]) ORDER BY id`, [
        ids,
      ])
    ).map((r) => r.id);

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterEach(() => {
    const service = t.app.get(TopicDeleteService);
    service.batchSize = 1000;
    service.timeBudgetMs = 50_000;
    jest.restoreAllMocks();
  });
  afterAll(() => t.close());

  it('an administrator deletes every message of a topic (any case), others of the channel stay; events', async () => {
    const verona = await channelId(t, 'Verona');
    const ids = [
      await sendChannel(t, HAMLET, 'Verona', 'doomed', 'one'),
      await sendChannel(t, OTHELLO, 'Verona', 'Doomed', 'two'),
      await sendChannel(t, HAMLET, 'Verona', 'doomed', 'three'),
    ];
    const other = await sendChannel(t, HAMLET, 'Verona', 'kept', 'stays');
    const queue = await openQueue(t, OTHELLO, ['delete_message'], {
      client_capabilities: { bulk_message_deletion: true },
    });
    const res = await deleteTopic(IAGO, verona, 'DOOMED');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', complete: true });
    expectMatchesOpenApi('post', '/streams/{stream_id}/delete_topic', 200, res.body);
    expect(await remaining([...ids, other])).toEqual([other]);
    const events = await takeEvents(t, queue);
    expect(events).toEqual([
      {
        type: 'delete_message',
        message_ids: [...ids].sort((a, b) => a - b),
        message_type: 'stream',
        stream_id: verona,
        topic: expect.stringMatching(/^doomed$/i),
      },
    ]);
    // The topic is gone: deleting it again is complete at once.
    expect((await deleteTopic(IAGO, verona, 'doomed')).body).toMatchObject({ complete: true });
  });

  it('large topics go in batches; out of time, it answers complete: false and a repeat finishes', async () => {
    const verona = await channelId(t, 'Verona');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await sendChannel(t, HAMLET, 'Verona', 'huge', `m${i}`));
    const service = t.app.get(TopicDeleteService);
    service.batchSize = 2;
    // Each clock reading is 20 s later: two batches fit in the 50 s budget, the third check is past it.
    const clock = t.app.get(Clock);
    let now = Date.now();
    jest.spyOn(clock, 'now').mockImplementation(() => {
      const at = new Date(now);
      now += 20_000;
      return at;
    });
    const first = await deleteTopic(IAGO, verona, 'huge');
    expect(first.body).toEqual({ result: 'success', msg: '', complete: false });
    // Newest first: the oldest remains.
    expect(await remaining(ids)).toEqual(ids.slice(0, 1));
    jest.restoreAllMocks();
    const second = await deleteTopic(IAGO, verona, 'huge');
    expect(second.body).toEqual({ result: 'success', msg: '', complete: true });
    expect(await remaining(ids)).toEqual([]);
  });

  it('only administrators: owners yes; moderators, members, guests and bots get Zulip errors', async () => {
    const verona = await channelId(t, 'Verona');
    const id = await sendChannel(t, HAMLET, 'Verona', 'roles', 'x');
    for (const email of [SHIVA, HAMLET, POLONIUS, BOT]) {
      const res = await deleteTopic(email, verona, 'roles');
      expectError(res, 400, 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    }
    expect(await remaining([id])).toEqual([id]);
    expect((await deleteTopic(DESDEMONA, verona, 'roles')).body).toMatchObject({ complete: true });
    expect(await remaining([id])).toEqual([]);
  });

  it('bad input: unknown channel, another realm channel, missing topic_name', async () => {
    expectError(await deleteTopic(IAGO, 999_999, 'x'), 400, 'Invalid channel ID');
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: 'king@lear.example', fullName: 'King Lear' });
    const auth = await t.auth('king@lear.example', 'lear');
    const sub = await t
      .http()
      .post('/api/v1/users/me/subscriptions')
      .set('Host', 'lear.zulip.testserver')
      .auth(...auth)
      .type('form')
      .send({ subscriptions: JSON.stringify([{ name: 'heath' }]) });
    expect(sub.status).toBe(200);
    const created = await t.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM stream WHERE name = 'heath' AND realm_id = $1`,
      [lear.id],
    );
    expectError(await deleteTopic(IAGO, created[0].id, 'storm'), 400, 'Invalid channel ID');
    const missing = await call(t, 'post', `/streams/${await channelId(t, 'Verona')}/delete_topic`, IAGO, {});
    expectError(missing, 400, "Missing 'topic_name' argument", 'REQUEST_VARIABLE_MISSING');
  });

  it('private channel with protected history: only the messages the administrator received go', async () => {
    const res = await call(t, 'post', '/users/me/subscriptions', HAMLET, {
      subscriptions: [{ name: 'sealed' }],
      invite_only: true,
      history_public_to_subscribers: false,
    });
    expect(res.status).toBe(200);
    const sealed = await channelId(t, 'sealed');
    const before = await sendChannel(t, HAMLET, 'sealed', 'secret', 'before iago');
    await subscribe(t, HAMLET, 'sealed', [IAGO]);
    const after = await sendChannel(t, HAMLET, 'sealed', 'secret', 'after iago');
    // Hamlet follows the topic; he keeps the policy, since he still has a message of it.
    await call(t, 'post', '/user_topics', HAMLET, { stream_id: sealed, topic: 'secret', visibility_policy: 3 });
    expect((await deleteTopic(IAGO, sealed, 'secret')).body).toMatchObject({ complete: true });
    expect(await remaining([before, after])).toEqual([before]);
    const policies = await t.dataSource.query<unknown[]>(
      `SELECT 1 FROM user_topic WHERE stream_id = $1 AND user_profile_id = $2`,
      [sealed, await userId(t, HAMLET)],
    );
    expect(policies).toHaveLength(1);
  });

  it('the deleted topic loses its visibility policies, with user_topic and muted_topics events', async () => {
    const verona = await channelId(t, 'Verona');
    await sendChannel(t, HAMLET, 'Verona', 'muted one', 'x');
    await call(t, 'post', '/user_topics', CORDELIA, { stream_id: verona, topic: 'muted one', visibility_policy: 1 });
    await call(t, 'post', '/user_topics', OTHELLO, { stream_id: verona, topic: 'Muted One', visibility_policy: 3 });
    const cordelia = await openQueue(t, CORDELIA, ['user_topic']);
    // A client that predates user_topic gets the whole legacy muted list.
    const legacy = await openQueue(t, CORDELIA, ['muted_topics']);
    const othello = await openQueue(t, OTHELLO, ['user_topic', 'muted_topics']);
    expect((await deleteTopic(IAGO, verona, 'muted one')).body).toMatchObject({ complete: true });
    const left = await t.dataSource.query<unknown[]>(
      `SELECT 1 FROM user_topic WHERE stream_id = $1 AND lower(topic_name) = 'muted one'`,
      [verona],
    );
    expect(left).toHaveLength(0);
    const cordeliaEvents = await takeEvents(t, cordelia);
    expect(cordeliaEvents).toEqual([
      expect.objectContaining({ type: 'user_topic', stream_id: verona, topic_name: 'muted one', visibility_policy: 0 }),
    ]);
    const legacyEvents = await takeEvents(t, legacy);
    expect(legacyEvents).toEqual([{ type: 'muted_topics', muted_topics: [] }]);
    expect((await takeEvents(t, othello)).map((e) => e.type)).toEqual(['user_topic']);
  });
});
