import { call, channelId, groupId, HAMLET, IAGO, Method, userId } from '../../helpers/api';
import { startTestApp, TestApp } from '../../helpers/test-app';

/** Odd values for every parameter of endpoints outside the channels module: never a 500. */
const ODD_VALUES: unknown[] = [
  '',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '9'.repeat(30),
  -1,
  0,
  2 ** 31,
  2 ** 53 + 1,
  1e300,
  1.5,
  true,
  [],
  [null],
  [[1]],
  [2 ** 31],
  [-1],
  [1.5],
  {},
  { a: [2 ** 40] },
  ['\u0000'],
  'x'.repeat(5000),
];

const NARROWS: unknown[] = [
  [{ operator: 'stream', operand: 2 ** 40 }],
  [{ operator: 'channel', operand: -1 }],
  [{ operator: 'channel', operand: 1.5 }],
  [{ operator: 'channel', operand: 'a\u0000b' }],
  [{ operator: 'topic', operand: 'a\u0000b' }],
  [{ operator: 'id', operand: 2 ** 40 }],
  [{ operator: 'id', operand: '99999999999' }],
  [{ operator: 'near', operand: 2 ** 40 }],
  [{ operator: 'with', operand: 2 ** 40 }],
  [{ operator: 'dm', operand: [2 ** 40] }],
  [{ operator: 'dm', operand: [-1] }],
  [{ operator: 'dm', operand: 'a\u0000b@zulip.com' }],
  [{ operator: 'dm-including', operand: 2 ** 40 }],
  [{ operator: 'sender', operand: 2 ** 40 }],
  [{ operator: 'sender', operand: 'a\u0000b' }],
  [{ operator: 'search', operand: 'a\u0000b' }],
  [{ operator: 'search', operand: '\\' }],
  [{ operator: 'search', operand: "'&|!():*" }],
  [{ operator: 'has', operand: 'a\u0000' }],
  [{ operator: 'is', operand: 'a\u0000' }],
  [{ operator: 'channels', operand: 'public' }],
  [{ operator: {}, operand: [] }],
  [{ operator: 'dm', operand: { a: 1 } }],
  [['stream', 2 ** 40]],
  [['stream']],
  [[]],
  [null],
  [1],
];

const BIG = String(2 ** 31);
const HUGE = '9'.repeat(18);

// [method, path, base params, params to vary]
type Probe = [Method, string, Record<string, unknown>, string[]];

describe('review: hostile input never gives a 500', () => {
  let t: TestApp;
  let verona: number;
  let hamlet: number;
  let group: number;
  let message: number;
  const failures: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    verona = await channelId(t, 'Verona');
    hamlet = await userId(t, HAMLET);
    group = await groupId(t, 'hamletcharacters').catch(() => groupId(t, 'role:members'));
    const sent = await call(t, 'post', '/messages', IAGO, { type: 'stream', to: 'Verona', topic: 't', content: 'x' });
    message = (sent.body as { id: number }).id;
  });
  afterAll(() => t.close());

  function probes(): Probe[] {
    const M = String(message);
    const narrows = NARROWS.map(
      (narrow) => ['get', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow }, []] as Probe,
    );
    const G = String(group);
    return [
      [
        'post',
        '/messages',
        { type: 'stream', to: 'Verona', topic: 't', content: 'c' },
        ['type', 'to', 'topic', 'content', 'queue_id', 'local_id', 'read_by_sender'],
      ],
      ['post', '/messages', { type: 'direct', to: [hamlet], content: 'c' }, ['to']],
      [
        'get',
        '/messages',
        { anchor: 'newest', num_before: 1, num_after: 0 },
        [
          'anchor',
          'num_before',
          'num_after',
          'narrow',
          'message_ids',
          'include_anchor',
          'use_first_unread_anchor',
          'client_gravatar',
          'apply_markdown',
        ],
      ],
      ['get', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] }, []],
      ['post', '/messages/render', { content: 'c' }, ['content']],
      ['post', '/messages/flags', { messages: [message], op: 'add', flag: 'read' }, ['messages', 'op', 'flag']],
      ['get', `/messages/${M}`, {}, ['apply_markdown', 'allow_empty_topic_name']],
      [
        'patch',
        `/messages/${M}`,
        { content: 'e' },
        ['content', 'topic', 'stream_id', 'propagate_mode', 'send_notification_to_old_thread', 'prev_content_sha256'],
      ],
      ['post', `/messages/${M}/report`, { report_type: 'spam' }, ['report_type', 'description']],
      ['post', `/messages/${M}/reactions`, { emoji_name: 'smile' }, ['emoji_name', 'emoji_code', 'reaction_type']],
      ['delete', `/messages/${M}/reactions`, { emoji_name: 'smile' }, ['emoji_name', 'emoji_code', 'reaction_type']],
      ['post', '/mark_stream_as_read', { stream_id: verona }, ['stream_id']],
      ['post', '/mark_topic_as_read', { stream_id: verona, topic_name: 't' }, ['stream_id', 'topic_name']],
      ['post', '/typing', { op: 'start', to: [hamlet] }, ['op', 'to', 'type', 'stream_id', 'topic']],
      ['post', '/typing', { op: 'start', type: 'stream', stream_id: verona, topic: 't' }, ['stream_id', 'topic']],
      ['get', '/users', {}, ['client_gravatar', 'include_custom_profile_fields', 'user_ids']],
      [
        'post',
        '/users',
        { email: 'new@zulip.com', password: 'p', full_name: 'New Person' },
        ['email', 'password', 'full_name'],
      ],
      ['get', `/users/${hamlet}`, {}, ['client_gravatar', 'include_custom_profile_fields']],
      ['patch', `/users/${hamlet}`, {}, ['full_name', 'role', 'profile_data', 'new_email']],
      ['get', '/user_groups', {}, ['include_deactivated_groups']],
      [
        'post',
        '/user_groups/create',
        { name: 'g', description: 'd', members: [hamlet] },
        ['name', 'description', 'members', 'subgroups', 'can_manage_group', 'can_mention_group'],
      ],
      [
        'patch',
        `/user_groups/${G}`,
        { description: 'd' },
        ['name', 'description', 'deactivated', 'can_manage_group', 'can_join_group'],
      ],
      ['post', `/user_groups/${G}/members`, { add: [hamlet] }, ['add', 'delete', 'add_subgroups', 'delete_subgroups']],
      ['post', `/user_groups/${G}/subgroups`, {}, ['add', 'delete']],
      ['get', `/user_groups/${G}/members`, {}, ['direct_member_only']],
      ['get', `/user_groups/${G}/subgroups`, {}, ['direct_subgroup_only']],
      [
        'post',
        '/navigation_views',
        { fragment: 'narrow/x', is_pinned: true, name: 'n' },
        ['fragment', 'is_pinned', 'name'],
      ],
      ['patch', '/navigation_views/inbox', {}, ['is_pinned', 'name']],
      [
        'post',
        '/realm/profile_fields',
        { field_type: 1, name: 'f' },
        ['field_type', 'name', 'hint', 'field_data', 'required'],
      ],
      ['patch', '/realm/profile_fields', { order: [1] }, ['order']],
      ['patch', '/realm/profile_fields/1', {}, ['name', 'hint', 'field_data']],
      [
        'patch',
        '/realm',
        {},
        [
          'name',
          'description',
          'message_retention_days',
          'moderation_request_channel_id',
          'message_content_edit_limit_seconds',
          'can_create_public_channel_group',
          'default_language',
          'new_stream_announcements_stream_id',
          'waiting_period_threshold',
        ],
      ],
      ['patch', '/realm/user_settings_defaults', {}, ['emojiset', 'web_font_size_px', 'timezone', 'default_language']],
      [
        'post',
        '/register',
        {},
        [
          'event_types',
          'narrow',
          'fetch_event_types',
          'client_capabilities',
          'queue_lifespan_secs',
          'all_public_streams',
          'include_subscribers',
        ],
      ],
      [
        'get',
        '/events',
        { queue_id: 'q', last_event_id: -1, dont_block: true },
        ['queue_id', 'last_event_id', 'dont_block'],
      ],
      ['delete', '/events', {}, ['queue_id']],
      ['post', '/users/me/apns_device_token', { token: 'abcd', appid: 'org.zulip' }, ['token', 'appid']],
      ['delete', '/users/me/apns_device_token', { token: 'abcd' }, ['token']],
      ['post', '/users/me/android_gcm_reg_id', { token: 'abc' }, ['token']],
      ['delete', '/users/me/android_gcm_reg_id', { token: 'abc' }, ['token']],
      ['post', '/fetch_api_key', { username: HAMLET, password: 'b' }, ['username', 'password']],
      ['post', '/dev_fetch_api_key', { username: HAMLET }, ['username']],
      ['get', '/attachments', {}, []],
      ['get', '/get_stream_id', { stream: 'Verona' }, ['stream']],
      ...narrows,
      ...NARROWS.map((narrow) => ['post', '/register', { narrow }, []] as Probe),
    ];
  }

  const PATHS: Array<[Method, string]> = [
    ['get', `/messages/${BIG}`],
    ['get', `/messages/${HUGE}`],
    ['patch', `/messages/${BIG}`],
    ['delete', `/messages/${HUGE}`],
    ['post', `/messages/${BIG}/report`],
    ['post', `/messages/${HUGE}/reactions`],
    ['delete', `/messages/${HUGE}/reactions`],
    ['get', `/users/me/${BIG}/topics`],
    ['get', `/users/me/${HUGE}/topics`],
    ['get', `/users/${BIG}`],
    ['get', `/users/${HUGE}`],
    ['get', '/users/a%00b@zulip.com'],
    ['patch', `/users/${HUGE}`],
    ['delete', `/users/${HUGE}`],
    ['post', `/users/${HUGE}/reactivate`],
    ['patch', `/user_groups/${HUGE}`],
    ['post', `/user_groups/${HUGE}/deactivate`],
    ['get', `/user_groups/${HUGE}/members`],
    ['post', `/user_groups/${HUGE}/members`],
    ['get', `/user_groups/${HUGE}/members/${HUGE}`],
    ['get', `/user_groups/1/members/${BIG}`],
    ['get', `/user_groups/${HUGE}/subgroups`],
    ['post', `/user_groups/${HUGE}/subgroups`],
    ['patch', `/realm/profile_fields/${HUGE}`],
    ['delete', `/realm/profile_fields/${HUGE}`],
    ['delete', `/attachments/${HUGE}`],
    ['patch', `/navigation_views/a%00b`],
    ['delete', `/navigation_views/a%00b`],
    ['get', `/streams/${HUGE}`],
    ['patch', `/streams/${HUGE}`],
    ['delete', `/streams/${HUGE}`],
    ['patch', `/channel_folders/${HUGE}`],
    ['get', `/user_uploads/${HUGE}/ab/a%00b.txt`],
    ['get', `/user_uploads/${BIG}/ab/x.txt`],
    ['get', '/user_uploads/temporary/a%00b/x.txt'],
    ['get', `/user_uploads/temporary/${'x'.repeat(3000)}/x.txt`],
  ];

  it('path params', async () => {
    for (const [method, path] of PATHS) {
      const res = path.startsWith('/user_uploads/')
        ? await t
            .http()
            .get(`/api/v1${path}`)
            .auth(...(await t.auth(IAGO)))
        : await call(t, method, path, IAGO, method === 'post' ? { emoji_name: 'smile', report_type: 'spam' } : {});
      if (res.status >= 500 || (res.body as { result?: string }).result !== 'error') {
        failures.push(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('body params', async () => {
    for (const [method, path, base, params] of probes()) {
      for (const param of params) {
        for (const value of ODD_VALUES) {
          const res = await call(t, method, path, IAGO, { ...base, [param]: value });
          if (res.status >= 500)
            failures.push(`${method} ${path} ${param}=${JSON.stringify(value).slice(0, 40)} → ${res.status}`);
          else if (res.status >= 400) {
            const body = res.body as { result?: string; msg?: unknown; code?: unknown };
            if (body.result !== 'error' || typeof body.msg !== 'string' || typeof body.code !== 'string') {
              failures.push(`${method} ${path} ${param} no envelope: ${JSON.stringify(res.body).slice(0, 80)}`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    // Some thousand requests in one test: a loaded machine (several suites at once) needs minutes.
  }, 420_000);
});

describe('review: private-channel data stays with its subscribers', () => {
  let t: TestApp;
  let secret: number;
  let message: number;
  beforeAll(async () => {
    t = await startTestApp();
    await call(t, 'post', '/users/me/subscriptions', IAGO, {
      subscriptions: [{ name: 'secret room', description: 'hidden' }],
      invite_only: true,
    });
    secret = await channelId(t, 'secret room');
    const sent = await call(t, 'post', '/messages', IAGO, {
      type: 'stream',
      to: secret,
      topic: 'classified topic',
      content: 'classified content',
    });
    message = (sent.body as { id: number }).id;
    expect(typeof message).toBe('number');
  });
  afterAll(() => t.close());

  it('a non-subscriber learns nothing', async () => {
    const probes: Array<[Method, string, Record<string, unknown>]> = [
      ['get', `/messages/${message}`, {}],
      [
        'get',
        '/messages',
        { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: secret }] },
      ],
      [
        'get',
        '/messages',
        { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'search', operand: 'classified' }] },
      ],
      [
        'get',
        '/messages',
        { anchor: message, num_before: 0, num_after: 0, narrow: [{ operator: 'id', operand: message }] },
      ],
      ['get', `/users/me/${secret}/topics`, {}],
      ['post', `/messages/${message}/reactions`, { emoji_name: 'smile' }],
      ['post', `/messages/${message}/report`, { report_type: 'spam' }],
      ['post', '/messages/flags', { messages: [message], op: 'add', flag: 'starred' }],
      ['post', '/mark_topic_as_read', { stream_id: secret, topic_name: 'classified topic' }],
      ['post', '/typing', { op: 'start', type: 'stream', stream_id: secret, topic: 'x' }],
      ['get', `/streams/${secret}`, {}],
      ['get', `/streams/${secret}/members`, {}],
      ['get', '/streams', {}],
      ['post', '/register', {}],
    ];
    const leaks: string[] = [];
    for (const [method, path, params] of probes) {
      const res = await call(t, method, path, HAMLET, params);
      const text = JSON.stringify(res.body);
      if (
        text.includes('classified') ||
        text.includes('hidden') ||
        (res.status === 200 && method !== 'get' && method !== 'post')
      ) {
        leaks.push(`${method} ${path} → ${res.status} ${text.slice(0, 150)}`);
      }
      if (res.status === 200 && method === 'post' && !path.includes('register')) {
        leaks.push(`${method} ${path} accepted → ${text.slice(0, 150)}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
