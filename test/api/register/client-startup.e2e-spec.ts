/**
 * POST /register as real clients call it at start (src/register/README.md lists the keys and
 * who reads them): zulip-flutter (lib/api/route/events.dart registerQueue,
 * lib/api/model/initial_snapshot.dart) and zulip-terminal (zulipterminal/model.py). Every
 * response is validated against Zulip's OpenAPI document (our service_* keys removed).
 */
import { startTestApp, TestApp } from '../../helpers/test-app';
import { FLUTTER_CAPABILITIES } from '../../helpers/verify-action';
import { call, channelId, HAMLET, IAGO, ok, OTHELLO, POLONIUS, queuedEvents, register, userId } from './helpers';

const FLUTTER = {
  apply_markdown: true,
  slim_presence: true,
  client_gravatar: false,
  client_capabilities: FLUTTER_CAPABILITIES,
};

/** zulip-terminal's Model._register_desired_events(fetch_data=True), through the python client. */
const TERMINAL = {
  event_types: [
    'message',
    'update_message',
    'reaction',
    'subscription',
    'typing',
    'update_message_flags',
    'update_global_notifications',
    'update_display_settings',
    'user_settings',
    'realm_emoji',
  ],
  fetch_event_types: [
    'realm',
    'presence',
    'subscription',
    'message',
    'starred_messages',
    'update_message_flags',
    'muted_topics',
    'realm_user',
    'realm_user_groups',
    'update_global_notifications',
    'update_display_settings',
    'user_settings',
    'realm_emoji',
    'zulip_version',
  ],
  narrow: [],
  client_gravatar: true,
  apply_markdown: true,
  include_subscribers: true,
};

/** Every fetch_event_types value the server knows. */
const EVENT_TYPES = [
  'alert_words',
  'channel_folders',
  'custom_profile_fields',
  'default_stream_groups',
  'default_streams',
  'drafts',
  'giphy',
  'message',
  'muted_topics',
  'muted_users',
  'navigation_views',
  'onboarding_steps',
  'presence',
  'push_device',
  'realm',
  'realm_billing',
  'realm_bot',
  'realm_domains',
  'realm_embedded_bots',
  'realm_emoji',
  'realm_filters',
  'realm_incoming_webhook_bots',
  'realm_linkifiers',
  'realm_playgrounds',
  'realm_user',
  'realm_user_groups',
  'realm_user_settings_defaults',
  'recent_private_conversations',
  'reminders',
  'saved_snippets',
  'scheduled_messages',
  'starred_messages',
  'stop_words',
  'stream',
  'subscription',
  'update_display_settings',
  'update_global_notifications',
  'update_message_flags',
  'user_settings',
  'user_status',
  'user_topic',
  'video_calls',
];

type Body = Record<string, unknown>;
const isInt = (v: unknown) => Number.isInteger(v);
const isString = (v: unknown) => typeof v === 'string';
const isBool = (v: unknown) => typeof v === 'boolean';
const isList = (v: unknown) => Array.isArray(v);
const isDict = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
const nullOr = (check: (v: unknown) => boolean) => (v: unknown) => v === null || v === undefined || check(v);

/** Fails with the keys whose values do not pass their checks (absent keys included). */
function expectShape(object: unknown, shape: Record<string, (v: unknown) => boolean>, where: string): void {
  const record = (object ?? {}) as Record<string, unknown>;
  const bad = Object.entries(shape)
    .filter(([key, check]) => !check(record[key]))
    .map(([key]) => `${key}=${JSON.stringify(record[key])}`);
  expect({ where, bad }).toEqual({ where, bad: [] });
}

describe('POST /register for real clients', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('zulip-flutter', () => {
    let body: Body;
    beforeAll(async () => {
      body = await register(t, HAMLET, FLUTTER);
    });

    it('has every key InitialSnapshot.fromJson reads, with the types it casts to', () => {
      expectShape(
        body,
        {
          queue_id: isString,
          last_event_id: isInt,
          zulip_feature_level: isInt,
          zulip_version: isString,
          zulip_merge_base: isString,
          alert_words: isList,
          custom_profile_fields: isList,
          max_stream_name_length: isInt,
          max_topic_length: isInt,
          server_presence_ping_interval_seconds: isInt,
          server_presence_offline_threshold_seconds: isInt,
          server_typing_started_expiry_period_milliseconds: isInt,
          server_typing_stopped_wait_period_milliseconds: isInt,
          server_typing_started_wait_period_milliseconds: isInt,
          muted_users: isList,
          presences: isDict,
          realm_emoji: isDict,
          realm_user_groups: isList,
          recent_private_conversations: isList,
          saved_snippets: isList,
          subscriptions: isList,
          channel_folders: isList,
          unread_msgs: isDict,
          streams: isList,
          user_status: isDict,
          user_settings: isDict,
          user_topics: isList,
          realm_can_delete_any_message_group: (v) => isInt(v) || isDict(v),
          realm_can_delete_own_message_group: (v) => isInt(v) || isDict(v),
          // Required and an enum in zulip-flutter (RealmWildcardMentionPolicy).
          realm_wildcard_mention_policy: (v) => [1, 2, 3, 5, 6, 7].includes(v as number),
          realm_mandatory_topics: isBool,
          realm_name: isString,
          realm_waiting_period_threshold: isInt,
          realm_message_content_delete_limit_seconds: nullOr(isInt),
          realm_allow_message_editing: isBool,
          realm_message_content_edit_limit_seconds: nullOr(isInt),
          realm_enable_read_receipts: isBool,
          realm_icon_url: isString,
          realm_presence_disabled: isBool,
          realm_default_external_accounts: isDict,
          max_file_upload_size_mib: isInt,
          server_emoji_data_url: isString,
          realm_empty_topic_display_name: isString,
          realm_users: isList,
          realm_non_active_users: isList,
          cross_realm_bots: isList,
        },
        'snapshot',
      );
    });

    it('gives the nested objects the fields zulip-flutter requires', () => {
      expectShape(
        body.user_settings,
        {
          twenty_four_hour_time: nullOr(isBool),
          display_emoji_reaction_users: isBool,
          emojiset: isString,
          presence_enabled: isBool,
        },
        'user_settings',
      );
      const user = {
        user_id: isInt,
        email: isString,
        full_name: isString,
        date_joined: isString,
        is_bot: isBool,
        role: (v: unknown) => [100, 200, 300, 400, 600].includes(v as number),
        timezone: isString,
        avatar_version: isInt,
        delivery_email: nullOr(isString),
      };
      for (const list of ['realm_users', 'realm_non_active_users', 'cross_realm_bots']) {
        for (const u of body[list] as Body[]) expectShape(u, user, `${list} ${String(u.user_id)}`);
      }
      const channel = {
        stream_id: isInt,
        name: isString,
        description: isString,
        rendered_description: isString,
        date_created: isInt,
        first_message_id: nullOr(isInt),
        invite_only: isBool,
        is_web_public: isBool,
        history_public_to_subscribers: isBool,
        message_retention_days: nullOr(isInt),
      };
      for (const s of body.streams as Body[]) expectShape(s, channel, `stream ${String(s.name)}`);
      for (const s of body.subscriptions as Body[]) {
        expectShape(
          s,
          { ...channel, pin_to_top: isBool, is_muted: isBool, color: (v) => /^#[0-9a-f]{6}$/i.test(String(v)) },
          `subscription ${String(s.name)}`,
        );
      }
      for (const g of body.realm_user_groups as Body[]) {
        expectShape(
          g,
          {
            id: isInt,
            members: isList,
            direct_subgroup_ids: isList,
            name: isString,
            description: isString,
            is_system_group: isBool,
          },
          `group ${String(g.name)}`,
        );
      }
      for (const f of body.custom_profile_fields as Body[]) {
        expectShape(
          f,
          { id: isInt, type: isInt, order: isInt, name: isString, hint: isString, field_data: isString },
          `profile field ${String(f.name)}`,
        );
      }
      for (const a of Object.values(body.realm_default_external_accounts as Record<string, Body>)) {
        expectShape(a, { name: isString, text: isString, hint: isString, url_pattern: isString }, 'external account');
      }
      expectShape(
        body.unread_msgs,
        { count: isInt, pms: isList, streams: isList, huddles: isList, mentions: isList, old_unreads_missing: isBool },
        'unread_msgs',
      );
    });

    it('client_gravatar false: every user has an avatar URL', () => {
      for (const u of body.realm_users as Body[]) expect(u.avatar_url).toEqual(expect.stringContaining('gravatar.com'));
    });

    it('sends the modern forms only (no legacy top-level settings, no muted_topics)', () => {
      expect(body).not.toHaveProperty('twenty_four_hour_time');
      expect(body).not.toHaveProperty('enable_desktop_notifications');
      // Fetched everything, so the legacy list is there too (Zulip suppresses it only when
      // user_topic is requested explicitly).
      expect(body.muted_topics).toEqual([]);
      const sub = (body.subscriptions as Body[])[0];
      // notification_settings_null: unset channel notification settings stay null.
      expect(sub.desktop_notifications).toBeNull();
    });
  });

  describe('zulip-terminal', () => {
    let body: Body;
    beforeAll(async () => {
      const verona = await channelId(t, 'Verona');
      await ok(t, 'post', '/user_topics', HAMLET, { stream_id: verona, topic: 'lunch', visibility_policy: 1 });
      body = await register(t, HAMLET, TERMINAL);
    });

    it('has every key zulip-terminal reads at start', () => {
      expectShape(
        body,
        {
          queue_id: isString,
          last_event_id: isInt,
          zulip_version: isString,
          zulip_feature_level: isInt,
          user_id: isInt,
          email: isString,
          full_name: isString,
          realm_name: isString,
          max_message_id: isInt,
          max_stream_name_length: isInt,
          max_topic_length: isInt,
          max_message_length: isInt,
          realm_message_retention_days: isInt,
          realm_allow_message_editing: isBool,
          realm_users: isList,
          cross_realm_bots: isList,
          presences: isDict,
          subscriptions: isList,
          muted_topics: isList,
          realm_user_groups: isList,
          unread_msgs: isDict,
          starred_messages: isList,
          realm_emoji: isDict,
          user_settings: isDict,
          // Legacy top-level settings (update_display_settings / update_global_notifications).
          twenty_four_hour_time: isBool,
          pm_content_in_desktop_notifications: isBool,
        },
        'snapshot',
      );
      expect((body.user_settings as Body).send_private_typing_notifications).toEqual(expect.any(Boolean));
      // Only what was fetched.
      expect(body).not.toHaveProperty('streams');
      expect(body).not.toHaveProperty('user_topics');
      expect(body).not.toHaveProperty('realm_user_settings_defaults');
    });

    it('gives subscriptions with subscribers, colours and boolean notification settings', () => {
      for (const sub of body.subscriptions as Body[]) {
        expectShape(
          sub,
          {
            stream_id: isInt,
            name: isString,
            color: (v) => /^#[0-9a-f]{6}$/i.test(String(v)),
            pin_to_top: isBool,
            in_home_view: isBool,
            // Without notification_settings_null, unset values are the user's defaults.
            desktop_notifications: isBool,
            audible_notifications: isBool,
            push_notifications: isBool,
            email_notifications: isBool,
            invite_only: isBool,
            description: isString,
            date_created: isInt,
            message_retention_days: nullOr(isInt),
            subscribers: isList,
          },
          `subscription ${String(sub.name)}`,
        );
      }
    });

    it('client_gravatar true: gravatar users have a null avatar_url (the client computes it)', () => {
      for (const u of body.realm_users as Body[]) expect(u.avatar_url).toBeNull();
      // The user's own avatar is always a URL (Zulip forces client_gravatar off for it).
      expect(body.avatar_url).toEqual(expect.stringContaining('gravatar.com'));
    });

    it('lists muted topics as [channel, topic, timestamp] and unread DMs with sender_id', () => {
      expect(body.muted_topics).toEqual([['Verona', 'lunch', expect.any(Number)]]);
      for (const pm of (body.unread_msgs as { pms: Body[] }).pms) expect(pm.sender_id).toEqual(expect.any(Number));
    });

    it('accepts the python client encoding (include_subscribers=true as JSON, narrow [])', async () => {
      const res = await t
        .http()
        .post('/api/v1/register')
        .auth(...(await t.auth(HAMLET)))
        .type('form')
        .send({ include_subscribers: 'true', narrow: '[]', client_gravatar: 'true', fetch_event_types: '["realm"]' });
      expect(res.status).toBe(200);
    });
  });

  describe('fetch_event_types, capabilities and users: every response matches the document', () => {
    it.each(EVENT_TYPES)('fetch_event_types ["%s"]', async (type) => {
      for (const email of [HAMLET, IAGO, POLONIUS]) {
        await register(t, email, { fetch_event_types: [type] });
        await register(t, email, { fetch_event_types: [type], ...FLUTTER });
      }
    });

    it('every section at once, for each role and for a bot', async () => {
      for (const email of [HAMLET, IAGO, POLONIUS, 'desdemona@zulip.com', 'shiva@zulip.com', 'default-bot@zulip.com']) {
        await register(t, email);
        await register(t, email, { ...FLUTTER, include_subscribers: 'true' });
        await register(t, email, {
          include_subscribers: 'partial',
          client_capabilities: { ...FLUTTER.client_capabilities, archived_channels: true, user_list_incomplete: true },
        });
      }
    });
  });

  describe('values computed from the database', () => {
    it("realm_bots: every bot for an administrator, one's own bots otherwise, with working API keys", async () => {
      const iago = await register(t, IAGO, { fetch_event_types: ['realm_bot'] });
      const bots = iago.realm_bots as Body[];
      expect(bots.map((b) => b.email)).toEqual([
        'default-bot@zulip.com',
        'webhook-bot@zulip.com',
        'outgoing-webhook@zulip.com',
      ]);
      expect(bots[0]).toMatchObject({
        full_name: 'Zulip Default Bot',
        bot_type: 1,
        is_active: true,
        owner_id: await userId(t, 'desdemona@zulip.com'),
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
        services: [],
      });
      const me = await t
        .http()
        .get('/api/v1/users/me')
        .auth(bots[0].email as string, bots[0].api_key as string);
      expect(me.status).toBe(200);
      expect(me.body.user_id).toBe(bots[0].user_id);
      const zoe = await register(t, 'ZOE@zulip.com', { fetch_event_types: ['realm_bot'] });
      expect((zoe.realm_bots as Body[]).map((b) => b.email)).toEqual(['webhook-bot@zulip.com']);
      expect((await register(t, HAMLET, { fetch_event_types: ['realm_bot'] })).realm_bots).toEqual([]);
    });

    it('cross_realm_bots: the system bots, marked as such, with no owner', async () => {
      const body = await register(t, HAMLET, { fetch_event_types: ['realm_user'] });
      const bots = body.cross_realm_bots as Body[];
      expect(bots.map((b) => [b.email, b.full_name])).toEqual([
        ['emailgateway@zulip.com', 'Email Gateway'],
        ['notification-bot@zulip.com', 'Notification Bot'],
        ['welcome-bot@zulip.com', 'Welcome Bot'],
      ]);
      for (const bot of bots) expect(bot).toMatchObject({ is_bot: true, is_system_bot: true, bot_owner_id: null });
    });

    it('the deprecated *_policy enums follow the group settings', async () => {
      const body = await register(t, HAMLET, { fetch_event_types: ['realm'] });
      expect(body).toMatchObject({
        realm_create_public_stream_policy: 1, // role:members
        realm_create_private_stream_policy: 1,
        realm_create_web_public_stream_policy: 7, // role:owners
        realm_wildcard_mention_policy: 5, // role:administrators
        jitsi_server_url: 'https://meet.jit.si',
      });
    });

    it('stop_words are the stop words of the dictionary message search uses', async () => {
      const body = await register(t, HAMLET, { fetch_event_types: ['stop_words'] });
      const words = body.stop_words as string[];
      expect(words.length).toBeGreaterThan(100);
      const rows = await t.dataSource.query<Array<{ word: string; lexemes: string }>>(
        `SELECT w AS word, to_tsvector('pg_catalog.english', w)::text AS lexemes FROM unnest($1::text[]) AS w`,
        [words],
      );
      expect(rows.filter((r) => r.lexemes !== '').map((r) => r.word)).toEqual([]);
      // And an ordinary word is not one.
      const [castle] = await t.dataSource.query<Array<{ v: string }>>(
        `SELECT to_tsvector('pg_catalog.english', 'castle')::text AS v`,
      );
      expect(castle.v).not.toBe('');
    });

    it('user_settings always, legacy top-level settings only without user_settings_object', async () => {
      const legacy = await register(t, HAMLET, { fetch_event_types: ['user_settings', 'update_display_settings'] });
      expect(legacy).toMatchObject({ twenty_four_hour_time: false, emojiset: 'google' });
      expect(legacy).not.toHaveProperty('enable_sounds');
      expect(legacy.user_settings).toMatchObject({ twenty_four_hour_time: false });
      const modern = await register(t, HAMLET, {
        fetch_event_types: ['user_settings', 'update_display_settings', 'update_global_notifications'],
        client_capabilities: { notification_settings_null: true, user_settings_object: true },
      });
      expect(modern).not.toHaveProperty('twenty_four_hour_time');
      expect(modern).not.toHaveProperty('enable_sounds');
      expect(modern.user_settings).toMatchObject({ enable_sounds: true });
    });

    it('muted_topics is suppressed when user_topic is fetched too', async () => {
      const both = await register(t, HAMLET, { fetch_event_types: ['muted_topics', 'user_topic'] });
      expect(both).not.toHaveProperty('muted_topics');
      expect(both.user_topics).toEqual(expect.any(Array));
    });

    it('include_subscribers: "false" gives no lists, "true" and "partial" give full lists', async () => {
      const get = async (value: string) =>
        (await register(t, HAMLET, { fetch_event_types: ['subscription'], include_subscribers: value }))
          .subscriptions as Body[];
      expect((await get('false'))[0]).not.toHaveProperty('subscribers');
      const full = await get('true');
      expect(full[0].subscribers).toEqual(expect.any(Array));
      expect(await get('partial')).toEqual(full);
    });
  });

  describe('narrow', () => {
    it('limits message events to the narrow; other events pass', async () => {
      const q = await register(t, HAMLET, {
        fetch_event_types: [],
        narrow: [['stream', 'Denmark']],
        apply_markdown: true,
      });
      await ok(t, 'post', '/messages', OTHELLO, { type: 'stream', to: 'Verona', topic: 'x', content: 'elsewhere' });
      await ok(t, 'post', '/messages', OTHELLO, { type: 'stream', to: 'Denmark', topic: 'x', content: 'here' });
      await ok(t, 'post', '/messages', OTHELLO, {
        type: 'direct',
        to: [await userId(t, HAMLET)],
        content: 'private',
      });
      const events = await queuedEvents(t, HAMLET, q.queue_id as string);
      const messages = events.filter((e) => e.type === 'message').map((e) => (e.message as Body).content);
      expect(messages).toEqual(['<p>here</p>']);
    });

    it('accepts {operator, operand} terms', async () => {
      const q = await register(t, HAMLET, {
        fetch_event_types: [],
        narrow: [{ operator: 'is', operand: 'dm' }],
      });
      await ok(t, 'post', '/messages', OTHELLO, { type: 'stream', to: 'Denmark', topic: 'x', content: 'channel' });
      await ok(t, 'post', '/messages', OTHELLO, { type: 'direct', to: [await userId(t, HAMLET)], content: 'dm' });
      const events = await queuedEvents(t, HAMLET, q.queue_id as string);
      expect(events.filter((e) => e.type === 'message').map((e) => (e.message as Body).content)).toEqual([
        // apply_markdown defaults to false: the raw Markdown.
        'dm',
      ]);
    });

    it.each([
      [[['search', 'castle']], 'Operator search not supported.'],
      [[['near', '12']], 'Operator near not supported.'],
      [[[1, 2]], 'narrow[0] is not a valid narrow element'],
      [[{ operator: 'stream' }], 'narrow[0] is not a valid narrow element'],
      [['stream'], 'narrow[0] is not a valid narrow element'],
    ])('%j → %s', async (narrow, msg) => {
      const res = await call(t, 'post', '/register', HAMLET, { narrow });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
    });
  });

  describe('hostile input never gives a 500', () => {
    it.each([
      { client_capabilities: { user_settings_object: 'yes', empty_topic_name: 1, bogus: true } },
      { fetch_event_types: ['\u0000', 'x'.repeat(5000), 'realm'] },
      { event_types: ['message\u0000'], fetch_event_types: ['message'] },
      { narrow: [['stream', 'Den\u0000mark']] },
      { narrow: [['topic', 'x'.repeat(10000)]] },
      { include_subscribers: 'partial', client_gravatar: false, fetch_event_types: ['subscription', 'stream'] },
      { apply_markdown: false, slim_presence: false, all_public_streams: true },
    ])('%j', async (params) => {
      const res = await call(t, 'post', '/register', HAMLET, params);
      expect(res.status).toBeLessThan(500);
      if (res.status === 200) expect(res.body.result).toBe('success');
    });
  });
});
