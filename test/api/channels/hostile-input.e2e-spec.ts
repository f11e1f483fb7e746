import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectError, expectSuccess, Method } from './helpers';

const HAMLET = 'hamlet@zulip.com';
const IAGO = 'iago@zulip.com';

/** Odd values of every kind, for every parameter of every endpoint: 4xx or success, never a 500. */
const ODD_VALUES: unknown[] = [
  '',
  'null',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '9'.repeat(30),
  -1,
  0,
  2 ** 31,
  1e20,
  1.5,
  true,
  [],
  [null],
  [[1]],
  {},
  { direct_members: [2 ** 40], direct_subgroups: [-1] },
  { new: { direct_members: 'x', direct_subgroups: [] } },
  [{ name: '\u0000' }],
  [{ stream_id: 2 ** 40, property: 'color', value: '#fff' }],
  'x'.repeat(5000),
];

const ENDPOINTS: Array<[Method, string, string[]]> = [
  [
    'post',
    '/users/me/subscriptions',
    [
      'subscriptions',
      'principals',
      'folder_id',
      'message_retention_days',
      'topics_policy',
      'can_add_subscribers_group',
    ],
  ],
  ['delete', '/users/me/subscriptions', ['subscriptions', 'principals']],
  ['get', '/users/me/subscriptions', ['include_subscribers']],
  ['post', '/users/me/subscriptions/properties', ['subscription_data']],
  ['patch', '/users/me/subscriptions/muted_topics', ['stream_id', 'stream', 'topic', 'op']],
  ['post', '/user_topics', ['stream_id', 'topic', 'visibility_policy']],
  ['get', '/streams', ['include_public', 'include_all']],
  ['get', '/get_stream_id', ['stream']],
  [
    'patch',
    '/streams/STREAM',
    ['description', 'new_name', 'folder_id', 'message_retention_days', 'can_send_message_group', 'topics_policy'],
  ],
  ['post', '/channel_folders/create', ['name', 'description']],
  ['patch', '/channel_folders/1', ['name', 'description', 'is_archived']],
];

describe('hostile input never gives a 500', () => {
  let t: TestApp;
  let verona: number;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    verona = await channelId(t, 'Verona');
    expectSuccess(await call(t, 'post', '/channel_folders/create', IAGO, { name: 'Folder', description: '' }));
  });
  afterAll(() => t.close());

  const BASE: Record<string, Record<string, unknown>> = {
    '/users/me/subscriptions/muted_topics': { stream_id: 0, topic: 't', op: 'add' },
    '/user_topics': { stream_id: 0, topic: 't', visibility_policy: 1 },
    '/channel_folders/create': { name: 'n', description: 'd' },
  };

  it.each(ENDPOINTS)('%s %s', async (method, rawPath, params) => {
    const path = rawPath.replace('STREAM', String(verona));
    for (const param of params) {
      for (const value of ODD_VALUES) {
        const base = { ...(BASE[rawPath] ?? {}) };
        if ('stream_id' in base) base.stream_id = verona;
        const res = await call(t, method, path, IAGO, { ...base, [param]: value });
        if (res.status >= 500) throw new Error(`${method} ${path} ${param}=${JSON.stringify(value)} → ${res.status}`);
      }
    }
  });

  it('NUL in descriptions is stored as U+FFFD', async () => {
    expectSuccess(
      await call(t, 'post', '/users/me/subscriptions', HAMLET, {
        subscriptions: [{ name: 'nul desc', description: 'a\u0000b' }],
      }),
    );
    const res = await call(t, 'get', `/streams/${await channelId(t, 'nul desc')}`, HAMLET);
    expect((res.body as { stream: { description: string } }).stream.description).toBe('a\uFFFDb');
  });

  it('NUL in topics is refused with Zulip’s topic error', async () => {
    expectError(
      await call(t, 'patch', '/users/me/subscriptions/muted_topics', HAMLET, {
        stream_id: verona,
        topic: 'ab\u0000',
        op: 'add',
      }),
      400,
      'Invalid character in topic, at position 3!',
    );
  });
});
