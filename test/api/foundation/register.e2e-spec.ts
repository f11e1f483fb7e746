/**
 * POST /register (zerver/views/events_register.py, zerver/lib/events.py fetch_initial_state_data).
 */
import { syntheticCustomizer, syntheticEvent } from '../../helpers/events';
import { expectRegisterMatchesOpenApi, SERVICE_KEYS } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { EventsService } from '../../../src/events/events.service';
import { RealmService } from '../../../src/realm/realm.service';

const HAMLET = 'hamlet@zulip.com';
const IAGO = 'iago@zulip.com';
const POLONIUS = 'polonius@zulip.com';

/** Keys every /register response has, whatever was fetched. */
const ALWAYS = [
  'result',
  'msg',
  'queue_id',
  'last_event_id',
  'zulip_version',
  'zulip_feature_level',
  'zulip_merge_base',
  ...SERVICE_KEYS,
];

describe('POST /register', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** Sends `event` to Hamlet's queues now (no transaction), and lets delivery finish. */
  const deliver = async (
    event: { type: string } & Record<string, unknown>,
    customize?: Parameters<typeof syntheticCustomizer>[0],
  ) => {
    const realm = (await t.app.get(RealmService).findByStringId('zulip'))!;
    t.app.get(EventsService).sendOnCommit(realm.id, syntheticEvent(event), [10], syntheticCustomizer(customize));
    await new Promise((resolve) => setImmediate(resolve));
  };

  /** The events waiting in one of Hamlet's queues. */
  const pending = async (queueId: string) => {
    const res = await t
      .http()
      .get('/api/v1/events')
      .auth(...(await t.auth(HAMLET)))
      .query({ queue_id: queueId, last_event_id: '-1', dont_block: 'true' });
    expect(res.status).toBe(200);
    return res.body.events as Array<Record<string, unknown>>;
  };

  const register = async (as: string, params: Record<string, string> = {}) =>
    t
      .http()
      .post('/api/v1/register')
      .auth(...(await t.auth(as)))
      .type('form')
      .send(params);

  describe('full state', () => {
    let body: Record<string, unknown>;
    beforeAll(async () => {
      const res = await register(HAMLET);
      expect(res.status).toBe(200);
      body = res.body as Record<string, unknown>;
    });

    it('matches the OpenAPI document (service_* keys aside)', () => {
      expectRegisterMatchesOpenApi(body);
    });

    it('allocates a queue and starts at last_event_id -1', async () => {
      expect(body).toMatchObject({ result: 'success', msg: '', last_event_id: -1 });
      expect(body.queue_id).toEqual(expect.any(String));
      expect(body).not.toHaveProperty('ignored_parameters_unsupported');
      const poll = await t
        .http()
        .get('/api/v1/events')
        .auth(...(await t.auth(HAMLET)))
        .query({ queue_id: body.queue_id as string, last_event_id: '-1', dont_block: 'true' });
      expect(poll.status).toBe(200);
      expect(poll.body.events).toEqual([]);
    });

    it('gives the feature level and version under both spellings', () => {
      expect(body).toMatchObject({ zulip_feature_level: 406, service_feature_level: 406 });
      expect(body.zulip_version).toEqual(expect.any(String));
      expect(body.service_version).toBe(body.zulip_version);
      expect(body.service_merge_base).toBe(body.zulip_merge_base);
    });

    it('gives the limits of DECISIONS #11 and the register-only constants', () => {
      expect(body).toMatchObject({
        max_message_length: 10000,
        max_topic_length: 60,
        max_stream_name_length: 60,
        max_stream_description_length: 1024,
        max_channel_folder_name_length: 60,
        max_channel_folder_description_length: 1024,
        max_reminder_note_length: 1000,
        max_bulk_new_subscription_messages: 100,
        realm_empty_topic_display_name: 'general chat',
        event_queue_longpoll_timeout_seconds: 90,
        server_typing_started_expiry_period_milliseconds: 45000,
        server_typing_stopped_wait_period_milliseconds: 12000,
        server_typing_started_wait_period_milliseconds: 30000,
      });
    });

    it("gives the realm's settings", () => {
      expect(body).toMatchObject({
        realm_name: 'Zulip Dev',
        realm_url: 'http://zulip.testserver',
        realm_uri: 'http://zulip.testserver',
        realm_invite_required: false,
        realm_enable_spectator_access: true,
        realm_enable_read_receipts: true,
        realm_allow_message_editing: true,
        realm_message_content_edit_limit_seconds: 600,
        realm_message_content_delete_limit_seconds: 600,
        realm_move_messages_within_stream_limit_seconds: 604800,
        realm_move_messages_between_streams_limit_seconds: 604800,
        realm_topics_policy: 'allow_empty_topic',
        realm_waiting_period_threshold: 0,
        realm_message_retention_days: -1,
        realm_org_type: 10,
        realm_bot_domain: 'zulip.testserver',
      });
      expect(body.realm_description).toContain('The Zulip development environment default organization.');
      expect(body.realm_date_created).toEqual(expect.any(Number));
    });

    it('gives realm group settings as group-setting values (system group ids)', async () => {
      const ids = await t.dataSource.query<Array<{ id: number; name: string }>>(
        `SELECT g.id, g.name FROM user_group g JOIN realm r ON r.id = g.realm_id WHERE r.string_id = 'zulip' AND g.is_system_group`,
      );
      const byName = new Map(ids.map((r) => [r.name, r.id]));
      expect(body.realm_can_delete_any_message_group).toBe(byName.get('role:administrators'));
      expect(body.realm_can_mention_many_users_group).toBe(byName.get('role:administrators'));
      expect(body.realm_can_resolve_topics_group).toBe(byName.get('role:everyone'));
      expect(body.realm_can_create_public_channel_group).toBe(byName.get('role:members'));
      expect(body.realm_can_create_web_public_channel_group).toBe(byName.get('role:owners'));
      // The demo realm lets administrators manage all groups, as Zulip's API-doc tests do.
      expect(body.realm_can_manage_all_groups).toBe(byName.get('role:administrators'));
    });

    it("gives the caller's own user fields", () => {
      expect(body).toMatchObject({
        user_id: 10,
        email: HAMLET,
        delivery_email: HAMLET,
        full_name: 'King Hamlet',
        is_admin: false,
        is_owner: false,
        is_moderator: false,
        is_guest: false,
        can_create_public_streams: true,
        can_create_private_streams: true,
        can_create_web_public_streams: false,
        can_subscribe_other_users: true,
        can_invite_others_to_realm: true,
      });
      expect(body.avatar_url).toEqual(expect.stringContaining('gravatar.com'));
    });

    it('lists active and non-active users separately', () => {
      const active = body.realm_users as Array<{ user_id: number; is_active: boolean }>;
      expect(active.map((u) => u.user_id).sort((a, b) => a - b)).toEqual([
        6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
      ]);
      expect(body.realm_non_active_users).toEqual([]);
      // The system bots of the zulipinternal realm, by name (get_cross_realm_dicts).
      expect((body.cross_realm_bots as Array<{ full_name: string }>).map((b) => b.full_name)).toEqual([
        'Email Gateway',
        'Notification Bot',
        'Welcome Bot',
      ]);
    });

    it('gives user groups, legacy top-level user settings and the realm defaults', () => {
      const groups = body.realm_user_groups as Array<{ name: string }>;
      expect(groups.map((g) => g.name)).toEqual(
        expect.arrayContaining(['hamletcharacters', 'role:everyone', 'role:nobody']),
      );
      expect(body).toMatchObject({ enter_sends: true, emojiset: 'google', timezone: '', notification_sound: 'zulip' });
      // Zulip sends the user_settings object whenever it is fetched; the capability only drops
      // the legacy top-level copies.
      expect(body.user_settings).toMatchObject({ enter_sends: true, web_font_size_px: 16 });
      // Settings newer than user_settings_object are not sent at the top level.
      expect(body).not.toHaveProperty('web_font_size_px');
      expect(body).not.toHaveProperty('email_address_visibility');
      expect(body.realm_user_settings_defaults).toMatchObject({
        enter_sends: true,
        email_address_visibility: 1,
        web_font_size_px: 16,
      });
    });
  });

  it('gives user_settings as an object with the user_settings_object capability', async () => {
    const res = await register(HAMLET, {
      client_capabilities: JSON.stringify({ user_settings_object: true, notification_settings_null: true }),
    });
    expect(res.status).toBe(200);
    expectRegisterMatchesOpenApi(res.body);
    expect(res.body.user_settings).toMatchObject({
      enter_sends: true,
      web_font_size_px: 16,
      email_address_visibility: 1,
      timezone: '',
    });
    expect(res.body).not.toHaveProperty('enter_sends');
  });

  it('gives role flags for an administrator and a guest', async () => {
    const iago = await register(IAGO, { fetch_event_types: '["realm_user"]' });
    expect(iago.body).toMatchObject({ user_id: 11, is_admin: true, is_owner: false, is_guest: false });
    expectRegisterMatchesOpenApi(iago.body);
    const polonius = await register(POLONIUS, { fetch_event_types: '["realm_user"]' });
    expect(polonius.body).toMatchObject({
      user_id: 13,
      is_admin: false,
      is_guest: true,
      can_create_public_streams: false,
      can_subscribe_other_users: false,
    });
    expectRegisterMatchesOpenApi(polonius.body);
  });

  describe('event_types and fetch_event_types', () => {
    it('fetch_event_types [] gives only the queue and version keys', async () => {
      const res = await register(HAMLET, { fetch_event_types: '[]' });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([...ALWAYS].sort());
      expectRegisterMatchesOpenApi(res.body);
    });

    it('fetch_event_types ["realm"] gives realm state but no users', async () => {
      const res = await register(HAMLET, { fetch_event_types: '["realm"]' });
      expect(res.body).toMatchObject({ realm_name: 'Zulip Dev', max_message_length: 10000 });
      expect(res.body).not.toHaveProperty('realm_users');
      expect(res.body).not.toHaveProperty('user_id');
      expect(res.body).not.toHaveProperty('realm_user_groups');
      expectRegisterMatchesOpenApi(res.body);
    });

    it('fetch_event_types ["realm_user"] gives users but no realm settings', async () => {
      const res = await register(HAMLET, { fetch_event_types: '["realm_user"]' });
      expect(res.body).toMatchObject({ user_id: 10, full_name: 'King Hamlet' });
      expect(res.body.realm_users).toEqual(expect.any(Array));
      expect(res.body).not.toHaveProperty('realm_name');
      expect(res.body).not.toHaveProperty('max_message_length');
      expectRegisterMatchesOpenApi(res.body);
    });

    it('event_types doubles as fetch_event_types when the latter is absent', async () => {
      const res = await register(HAMLET, { event_types: '["realm_user_groups"]' });
      expect(res.body.realm_user_groups).toEqual(expect.any(Array));
      expect(res.body).not.toHaveProperty('realm_name');
      expect(res.body).not.toHaveProperty('realm_users');
    });

    it('event_types limits what the queue receives; fetch_event_types does not', async () => {
      const res = await register(HAMLET, { event_types: '["message"]', fetch_event_types: '["realm"]' });
      expect(res.body.realm_name).toBe('Zulip Dev');
      await deliver({ type: 'realm', op: 'update', property: 'name', value: 'x' });
      await deliver({ type: 'message', n: 1 });
      expect(await pending(res.body.queue_id as string)).toEqual([{ type: 'message', n: 1, id: 0 }]);
    });

    it('a queue without event_types receives everything', async () => {
      const res = await register(HAMLET, { fetch_event_types: '[]' });
      await deliver({ type: 'realm', op: 'update', property: 'name', value: 'x' });
      await deliver({ type: 'anything' });
      expect((await pending(res.body.queue_id as string)).map((e) => e.type)).toEqual(['realm', 'anything']);
    });
  });

  it('records the client options on the queue', async () => {
    const res = await register(HAMLET, {
      fetch_event_types: '[]',
      apply_markdown: 'true',
      client_gravatar: 'false',
      all_public_streams: 'true',
      narrow: '[["stream", "Denmark"]]',
      client_capabilities: '{"empty_topic_name": true}',
    });
    expect(res.status).toBe(200);
    const seen = new Map<string, unknown>();
    await deliver({ type: 'probe' }, (queue) => {
      seen.set(queue.id, queue.options);
      return { type: 'probe' };
    });
    expect(seen.get(res.body.queue_id as string)).toMatchObject({
      userId: 10,
      applyMarkdown: true,
      clientGravatar: false,
      allPublicStreams: true,
      narrow: [['stream', 'Denmark']],
      clientCapabilities: { empty_topic_name: true },
    });
  });

  it('allocates a new queue on every call', async () => {
    const a = await register(HAMLET, { fetch_event_types: '[]' });
    const b = await register(HAMLET, { fetch_event_types: '[]' });
    expect(a.body.queue_id).not.toBe(b.body.queue_id);
  });

  it.each([
    [{ event_types: 'message' }, 'event_types is not valid JSON'],
    [{ event_types: '"message"' }, 'event_types is not a list'],
    [{ fetch_event_types: '{}' }, 'fetch_event_types is not a list'],
    [{ apply_markdown: 'yes' }, 'apply_markdown is not valid JSON'],
    [{ client_gravatar: '1' }, 'client_gravatar is not a boolean'],
    [{ client_capabilities: '[]' }, 'client_capabilities is not a dict'],
    [{ include_subscribers: 'maybe' }, 'Invalid include_subscribers'],
    [{ narrow: '{}' }, 'narrow is not a list'],
  ])('%j → %s', async (params, msg) => {
    const res = await register(HAMLET, params);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
  });

  it('reports unknown parameters as ignored', async () => {
    const res = await register(HAMLET, { fetch_event_types: '[]', bogus: '1' });
    expect(res.status).toBe(200);
    expect(res.body.ignored_parameters_unsupported).toEqual(['bogus']);
  });
});
