/**
 * Request shapes that used to crash the server (issue 11, item 1): JSON parameters holding
 * objects whose keys are Object.prototype names, and message ids beyond PostgreSQL's range in a
 * narrow. Each answer must be Zulip's error envelope (or a success), never a 500.
 */
import { call, channelId, groupId, HAMLET, IAGO, Method, userId } from '../../helpers/api';
import { startTestApp, TestApp } from '../../helpers/test-app';

/** Keys that name Object.prototype members (or are special to JavaScript objects). */
const PROTOTYPE_KEYS = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'length',
  '__defineGetter__',
  '__lookupSetter__',
];

/** JSON texts whose objects carry those keys, at the top and nested. */
function prototypeShapes(): string[] {
  const shapes: string[] = [];
  for (const key of PROTOTYPE_KEYS) {
    const k = JSON.stringify(key);
    shapes.push(`{${k}:{"a":1}}`, `{${k}:1}`, `[{${k}:{}}]`, `{"x":{${k}:[]}}`, `[[{${k}:null}]]`);
  }
  return shapes;
}

describe('JSON parameters with Object.prototype keys never give a 500', () => {
  let t: TestApp;
  let message: number;
  let hamlet: number;
  let verona: number;
  let group: number;

  beforeAll(async () => {
    t = await startTestApp();
    hamlet = await userId(t, HAMLET);
    verona = await channelId(t, 'Verona');
    group = await groupId(t, 'hamletcharacters');
    const sent = await call(t, 'post', '/messages', IAGO, { type: 'stream', to: 'Verona', topic: 't', content: 'x' });
    message = (sent.body as { id: number }).id;
  });
  afterAll(() => t.close());

  // [method, path, base params, JSON parameters to replace with each shape]
  const endpoints = (): Array<[Method, string, Record<string, unknown>, string[]]> => [
    ['post', '/messages', { type: 'stream', to: 'Verona', topic: 't', content: 'c' }, ['read_by_sender', 'to']],
    ['patch', `/messages/${message}`, { content: 'e' }, ['stream_id', 'send_notification_to_old_thread']],
    ['post', '/users/me/subscriptions/properties', {}, ['subscription_data']],
    ['post', '/users/me/subscriptions', {}, ['subscriptions', 'principals', 'invite_only']],
    ['patch', '/realm/user_settings_defaults', {}, ['enter_sends', 'web_font_size_px', 'twenty_four_hour_time']],
    ['patch', `/users/${encodeURIComponent(HAMLET)}`, {}, ['profile_data', 'role']],
    ['patch', `/users/${hamlet}`, {}, ['profile_data', 'role']],
    ['post', '/user_groups/create', { name: 'g', description: 'd' }, ['members', 'subgroups', 'can_manage_group']],
    ['post', '/messages/flags', { op: 'add', flag: 'read' }, ['messages']],
    ['post', `/user_groups/${group}/subgroups`, {}, ['add', 'delete']],
    ['post', `/user_groups/${group}/members`, {}, ['add', 'delete']],
    ['post', '/register', {}, ['event_types', 'fetch_event_types', 'narrow', 'client_capabilities']],
    ['get', '/users', {}, ['user_ids']],
    ['get', '/messages', { anchor: 'newest', num_before: 1, num_after: 0 }, ['narrow', 'message_ids']],
    ['patch', '/realm', {}, ['can_create_public_channel_group', 'message_content_edit_limit_seconds']],
    ['patch', `/streams/${verona}`, {}, ['can_send_message_group', 'is_private']],
    ['post', '/realm/profile_fields', { name: 'f', field_type: 3 }, ['field_data']],
  ];

  it.each(['constructor', '__proto__', 'toString'])(
    'keys named %s: Zulip envelope on every endpoint',
    async (key) => {
      const failures: string[] = [];
      const shapes = prototypeShapes().filter((s) => s.includes(JSON.stringify(key)));
      for (const [method, path, base, params] of endpoints()) {
        for (const param of params) {
          for (const shape of shapes) {
            const res = await call(t, method, path, IAGO, { ...base, [param]: shape });
            const body = res.body as { result?: unknown; msg?: unknown; code?: unknown };
            if (
              res.status >= 500 ||
              (res.status >= 400 && (body.result !== 'error' || typeof body.code !== 'string'))
            ) {
              failures.push(`${method} ${path} ${param}=${shape} → ${res.status} ${JSON.stringify(res.body)}`);
            }
          }
        }
      }
      expect(failures).toEqual([]);
    },
    120_000,
  );

  it('every other prototype-named key, on the endpoints the issue names', async () => {
    const failures: string[] = [];
    // Two shapes per key (top level and nested in a list) keep this under a few hundred requests.
    const shapes = prototypeShapes().filter((_, i) => i % 5 < 2);
    for (const [method, path, base, params] of endpoints().slice(0, 13)) {
      for (const shape of shapes) {
        const res = await call(t, method, path, IAGO, { ...base, [params[0]]: shape });
        if (res.status >= 500) failures.push(`${method} ${path} ${params[0]}=${shape} → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('a boolean parameter holding {"constructor": …} is "not a boolean"', async () => {
    const res = await call(t, 'post', '/messages', IAGO, {
      type: 'stream',
      to: 'Verona',
      topic: 't',
      content: 'c',
      read_by_sender: '{"constructor":{"name":"x"}}',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg: 'read_by_sender is not a boolean', code: 'BAD_REQUEST' });
  });

  it('an integer list holding an object with a constructor key is "not an integer"', async () => {
    const res = await call(t, 'get', '/users', IAGO, { user_ids: '[{"constructor":{}}]' });
    expect(res.status).toBe(400);
    expect((res.body as { result: string }).result).toBe('error');
  });

  it('values nested under prototype-named keys are kept as data, not dropped', async () => {
    // A property that happens to be called "constructor" is an ordinary unknown key.
    const res = await call(t, 'post', '/users/me/subscriptions/properties', HAMLET, {
      subscription_data: [{ stream_id: verona, property: 'constructor', value: 'x' }],
    });
    expect(res.status).toBe(400);
    expect((res.body as { msg: string }).msg).toMatch(/constructor/);
  });
});

describe('ids beyond PostgreSQL integers in a narrow never reach SQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await call(t, 'post', '/messages', HAMLET, { type: 'stream', to: 'Verona', topic: 't', content: 'x' });
  });
  afterAll(() => t.close());

  it.each([
    ['2^63', 9223372036854775808n],
    ['2^64', 18446744073709551616n],
    ['2^31', 2147483648n],
    ['a 40-digit id', 10n ** 40n],
  ])('GET /messages with an id operand of %s finds nothing', async (_label, id) => {
    const narrow = `[{"operator":"id","operand":${id}}]`;
    const res = await call(t, 'get', '/messages', HAMLET, { anchor: 'newest', num_before: 5, num_after: 0, narrow });
    expect(res.status).toBe(200);
    expect((res.body as { messages: unknown[] }).messages).toEqual([]);
    const asText = await call(t, 'get', '/messages', HAMLET, {
      anchor: 'newest',
      num_before: 5,
      num_after: 0,
      narrow: [{ operator: 'id', operand: String(id) }],
    });
    expect(asText.status).toBe(200);
    expect((asText.body as { messages: unknown[] }).messages).toEqual([]);
  });

  it('a negated out-of-range id excludes nothing', async () => {
    const narrow = `[{"operator":"id","operand":9223372036854775808,"negated":true}]`;
    const res = await call(t, 'get', '/messages', HAMLET, { anchor: 'newest', num_before: 5, num_after: 0, narrow });
    expect(res.status).toBe(200);
    expect((res.body as { messages: unknown[] }).messages.length).toBeGreaterThan(0);
  });
});
