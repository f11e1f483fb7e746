import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  call,
  channelId,
  expectError,
  expectRegisterMatchesOpenApi,
  expectSuccess,
  openQueue,
  takeEvents,
} from './helpers';

const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const POLONIUS = 'polonius@zulip.com';

describe('topic visibility: PATCH /users/me/subscriptions/muted_topics and POST /user_topics', () => {
  let t: TestApp;
  let verona: number;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    verona = await channelId(t, 'Verona');
  });
  afterAll(() => t.close());

  const mute = async (email: string, params: Record<string, unknown>) => {
    const res = await call(t, 'patch', '/users/me/subscriptions/muted_topics', email, params);
    if ((res.body as { code?: string }).code !== 'REQUEST_VARIABLE_MISSING') {
      expectMatchesOpenApi('patch', '/users/me/subscriptions/muted_topics', res.status, res.body);
    }
    return res;
  };
  const userTopic = async (email: string, params: Record<string, unknown>) => {
    const res = await call(t, 'post', '/user_topics', email, params);
    if ((res.body as { code?: string }).code !== 'REQUEST_VARIABLE_MISSING') {
      expectMatchesOpenApi('post', '/user_topics', res.status, res.body);
    }
    return res;
  };
  const policies = async (email: string) => {
    // With empty_topic_name, the empty topic is "" (other clients see "general chat").
    const res = await call(t, 'post', '/register', email, {
      fetch_event_types: ['user_topic'],
      client_capabilities: { empty_topic_name: true },
    });
    expectRegisterMatchesOpenApi(res.body);
    return (res.body as { user_topics: Array<Record<string, unknown>> }).user_topics;
  };

  it('mutes by channel id, idempotently, with one user_topic event', async () => {
    const q = await openQueue(t, HAMLET, ['user_topic']);
    const res = await mute(HAMLET, { stream_id: verona, topic: 'lunch', op: 'add' });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expectSuccess(await mute(HAMLET, { stream_id: verona, topic: 'LUNCH', op: 'add' }));
    const events = await takeEvents(t, q);
    expect(events).toEqual([
      {
        type: 'user_topic',
        stream_id: verona,
        topic_name: 'lunch',
        last_updated: expect.any(Number) as unknown,
        visibility_policy: 1,
      },
    ]);
    expect(await policies(HAMLET)).toEqual([
      { stream_id: verona, topic_name: 'lunch', last_updated: expect.any(Number) as unknown, visibility_policy: 1 },
    ]);
  });

  it('unmutes by channel name, idempotently', async () => {
    const q = await openQueue(t, HAMLET, ['user_topic']);
    expectSuccess(await mute(HAMLET, { stream: 'verona', topic: 'Lunch', op: 'remove' }));
    expectSuccess(await mute(HAMLET, { stream: 'Verona', topic: 'lunch', op: 'remove' }));
    expect(await takeEvents(t, q)).toEqual([
      {
        type: 'user_topic',
        stream_id: verona,
        topic_name: 'Lunch',
        last_updated: expect.any(Number) as unknown,
        visibility_policy: 0,
      },
    ]);
    expect(await policies(HAMLET)).toEqual([]);
  });

  it('"(no topic)" and "general chat" mean the empty topic (DECISIONS #9)', async () => {
    expectSuccess(await mute(HAMLET, { stream_id: verona, topic: '(no topic)', op: 'add' }));
    expectSuccess(await mute(HAMLET, { stream_id: verona, topic: 'general chat', op: 'add' }));
    expect(await policies(HAMLET)).toEqual([expect.objectContaining({ topic_name: '', visibility_policy: 1 })]);
    expectSuccess(await mute(HAMLET, { stream_id: verona, topic: '', op: 'remove' }));
    expect(await policies(HAMLET)).toEqual([]);
  });

  it.each([
    [{ topic: 't', op: 'add' }, "Missing 'stream_id' argument", 'BAD_REQUEST'],
    [
      { stream_id: 1, stream: 'Verona', topic: 't', op: 'add' },
      'Unsupported parameter combination: stream_id, stream',
      'BAD_REQUEST',
    ],
    [{ stream_id: 999999999, topic: 't', op: 'add' }, 'Invalid channel ID', 'BAD_REQUEST'],
    [{ stream: 'no such channel', topic: 't', op: 'add' }, "Invalid channel name 'no such channel'", 'BAD_REQUEST'],
    [{ stream: 'BOGUS', topic: 't', op: 'remove' }, 'Topic is not muted', 'BAD_REQUEST'],
    [{ stream_id: 1, topic: 'x'.repeat(61), op: 'add' }, 'topic is too long (limit: 60 characters)', 'BAD_REQUEST'],
    [{ stream_id: 1, topic: 't', op: 'toggle' }, 'Invalid op', 'BAD_REQUEST'],
    [{ stream_id: 'one', topic: 't', op: 'add' }, 'stream_id is not valid JSON', 'BAD_REQUEST'],
    [{ stream_id: 1, op: 'add' }, "Missing 'topic' argument", 'REQUEST_VARIABLE_MISSING'],
  ])('%j → %s', async (params, msg, code) => {
    const res = await mute(HAMLET, params);
    expectError(res, 400, msg, code);
    if (msg.startsWith('Unsupported')) expect(res.body).toMatchObject({ parameters: 'stream_id, stream' });
  });

  it('needs content access to mute, but not to unmute', async () => {
    const core = await channelId(t, 'core team');
    expectError(await mute(OTHELLO, { stream_id: core, topic: 't', op: 'add' }), 400, 'Invalid channel ID');
    expectSuccess(await mute(OTHELLO, { stream_id: core, topic: 't', op: 'remove' }));
    expectError(
      await mute(POLONIUS, { stream_id: await channelId(t, 'Denmark'), topic: 't', op: 'add' }),
      400,
      'Invalid channel ID',
    );
    // Public channels do not need a subscription.
    expectSuccess(await mute(OTHELLO, { stream_id: await channelId(t, 'sandbox'), topic: 't', op: 'add' }));
  });

  describe('POST /user_topics', () => {
    it('sets each visibility policy, with events only on change', async () => {
      const q = await openQueue(t, OTHELLO, ['user_topic']);
      for (const policy of [1, 2, 3, 3, 0, 0]) {
        expectSuccess(await userTopic(OTHELLO, { stream_id: verona, topic: 'plans', visibility_policy: policy }));
      }
      expect((await takeEvents(t, q)).map((e) => e.visibility_policy)).toEqual([1, 2, 3, 0]);
    });

    it('shares the storage of muted topics', async () => {
      expectSuccess(await userTopic(OTHELLO, { stream_id: verona, topic: 'shared', visibility_policy: 3 }));
      expectSuccess(await mute(OTHELLO, { stream_id: verona, topic: 'Shared', op: 'add' }));
      expect((await policies(OTHELLO)).filter((p) => String(p.topic_name).toLowerCase() === 'shared')).toEqual([
        expect.objectContaining({ visibility_policy: 1 }),
      ]);
    });

    it.each([
      [{ stream_id: 1, topic: 't', visibility_policy: 4 }, 'Invalid visibility_policy', 'BAD_REQUEST'],
      [{ stream_id: 1, topic: 't', visibility_policy: 'muted' }, 'visibility_policy is not valid JSON', 'BAD_REQUEST'],
      [
        { stream_id: 1, topic: 'x'.repeat(61), visibility_policy: 1 },
        'topic is too long (limit: 60 characters)',
        'BAD_REQUEST',
      ],
      [{ stream_id: 999999, topic: 't', visibility_policy: 1 }, 'Invalid channel ID', 'BAD_REQUEST'],
      [{ stream_id: 999999, topic: 't', visibility_policy: 0 }, 'Invalid channel ID', 'BAD_REQUEST'],
      [{ topic: 't', visibility_policy: 1 }, "Missing 'stream_id' argument", 'REQUEST_VARIABLE_MISSING'],
      [{ stream_id: 1, topic: 't' }, "Missing 'visibility_policy' argument", 'REQUEST_VARIABLE_MISSING'],
    ])('%j → %s', async (params, msg, code) => {
      expectError(await userTopic(OTHELLO, params), 400, msg, code);
    });

    it('concurrent identical requests store one row and do not fail', async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => userTopic(HAMLET, { stream_id: verona, topic: 'race', visibility_policy: 3 })),
      );
      for (const res of results) expectSuccess(res);
      const rows = await t.dataSource.query<unknown[]>(`SELECT 1 FROM user_topic WHERE lower(topic_name) = 'race'`);
      expect(rows).toHaveLength(1);
    });
  });
});
