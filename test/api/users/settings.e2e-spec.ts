/**
 * PATCH /settings (Zulip's json_change_settings, do_change_user_setting; zerver/tests/
 * test_settings.py): a user's own name, password, time zone and preferences, and the legacy
 * paths /settings/display and /settings/notifications.
 */
import { RealmService } from '../../../src/realm/realm.service';
import { DEMO_PASSWORD } from '../../../src/seed/demo-realm';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { countQueries } from '../../helpers/query-counter';
import {
  api,
  DEFAULT_BOT,
  events,
  expectError,
  expectSuccess,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  queue,
  userId,
} from './helpers';

const PATH = '/settings';

describe('PATCH /settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function ownSettings(email: string): Promise<Record<string, unknown>> {
    const res = await api(t, 'post', '/register', email, {
      fetch_event_types: ['user_settings'],
      client_capabilities: { user_settings_object: true },
    });
    return res.body.user_settings as Record<string, unknown>;
  }
  async function modernQueue(email: string) {
    const res = await api(t, 'post', '/register', email, {
      event_types: ['user_settings', 'update_display_settings', 'update_global_notifications', 'realm_user'],
      fetch_event_types: [],
      client_capabilities: { user_settings_object: true },
    });
    return { email, queueId: res.body.queue_id as string, lastEventId: res.body.last_event_id as number };
  }

  it('changes settings: one user_settings event each, and the legacy forms only for old clients', async () => {
    const legacy = await queue(t, OTHELLO);
    const modern = await modernQueue(OTHELLO);
    const res = await api(t, 'patch', PATH, OTHELLO, {
      enter_sends: false,
      default_language: 'de',
      enable_sounds: false,
      web_font_size_px: 15,
      web_home_view: 'all_messages',
      starred_message_counts: true, // unchanged: no event
    });
    expect(expectSuccess(res, 'patch', PATH)).toEqual({ result: 'success', msg: '' });
    expect(await ownSettings(OTHELLO)).toMatchObject({
      enter_sends: false,
      default_language: 'de',
      enable_sounds: false,
      web_font_size_px: 15,
      web_home_view: 'all_messages',
    });

    const own = (await events(t, modern)).filter((e) => e.type !== 'heartbeat');
    // In the order of Zulip's parameters.
    expect(own).toEqual([
      { type: 'user_settings', op: 'update', property: 'web_font_size_px', value: 15 },
      { type: 'user_settings', op: 'update', property: 'default_language', value: 'de', language_name: 'Deutsch' },
      { type: 'user_settings', op: 'update', property: 'web_home_view', value: 'all_messages' },
      { type: 'user_settings', op: 'update', property: 'enable_sounds', value: false },
      { type: 'user_settings', op: 'update', property: 'enter_sends', value: false },
    ]);
    const email = (await api(t, 'get', '/users/me', OTHELLO)).body.email as string;
    const old = (await events(t, legacy)).filter((e) => String(e.type).startsWith('update_'));
    expect(old).toEqual([
      {
        type: 'update_display_settings',
        user: email,
        setting_name: 'default_language',
        setting: 'de',
        language_name: 'Deutsch',
      },
      { type: 'update_display_settings', user: email, setting_name: 'web_home_view', setting: 'all_messages' },
      { type: 'update_global_notifications', user: email, notification_name: 'enable_sounds', setting: false },
      { type: 'update_display_settings', user: email, setting_name: 'enter_sends', setting: false },
    ]);
  });

  it('sends nothing and writes nothing when nothing changes', async () => {
    const q = await modernQueue(HAMLET);
    const current = await ownSettings(HAMLET);
    const { queries } = await countQueries(() =>
      api(t, 'patch', PATH, HAMLET, { enter_sends: current.enter_sends, color_scheme: current.color_scheme }),
    );
    expect((await events(t, q)).filter((e) => e.type !== 'heartbeat')).toEqual([]);
    expect(queries.filter((sql) => /^\s*(UPDATE|INSERT|DELETE)\b/i.test(sql))).toEqual([]);
  });

  it('serves the legacy paths with the same view', async () => {
    for (const path of ['/settings/display', '/settings/notifications']) {
      const res = await api(t, 'patch', path, HAMLET, { left_side_userlist: true, enable_digest_emails: false });
      expect(res.status).toBe(200);
    }
    expect(await ownSettings(HAMLET)).toMatchObject({ left_side_userlist: true, enable_digest_emails: false });
  });

  it('lists unknown and removed parameters as ignored', async () => {
    const res = await api(t, 'patch', PATH, HAMLET, { dense_mode: true, night_mode: true, enter_sends: false });
    expect(expectSuccess(res, 'patch', PATH).ignored_parameters_unsupported).toEqual(['dense_mode', 'night_mode']);
  });

  it.each([
    ['color_scheme', 7, 'Invalid color_scheme: Value error, Not in the list of possible values'],
    ['emojiset', 'invalid', 'Invalid emojiset: Value error, Not in the list of possible values'],
    ['web_home_view', 'invalid', 'Invalid web_home_view'],
    ['enter_sends', 'yes', 'enter_sends is not valid JSON'],
    ['default_language', 'xx', 'Invalid default_language'],
    ['notification_sound', 'bell', "Invalid notification sound 'bell'"],
    ['email_notifications_batching_period_seconds', 0, 'Invalid email batching period: 0 seconds'],
    ['timezone', 'Mars/Olympus_Mons', 'timezone is not a recognized time zone'],
    ['timezone', '', 'timezone is not a recognized time zone'],
    ['full_name', 'x', 'Name too short!'],
    ['full_name', 'Hamlet `the` Dane', 'Invalid characters in name!'],
  ])('%s = %j → %s', async (name, value, msg) => {
    expectError(await api(t, 'patch', PATH, HAMLET, { [name]: value }), 'patch', PATH, msg);
  });

  it('checks every parameter before changing anything', async () => {
    const before = await ownSettings(HAMLET);
    // A good setting and name with a bad sound: nothing is written.
    const res = await api(t, 'patch', PATH, HAMLET, {
      full_name: 'Prince Hamlet',
      enter_sends: true,
      notification_sound: 'x',
    });
    expectError(res, 'patch', PATH, "Invalid notification sound 'x'");
    // A good setting with a wrong password: the transaction rolls back.
    const wrong = await api(t, 'patch', PATH, HAMLET, {
      color_scheme: 3,
      old_password: 'nope',
      new_password: 'a-new-pass-99',
    });
    expectError(wrong, 'patch', PATH, 'Wrong password!');
    expect(await ownSettings(HAMLET)).toEqual(before);
    const me = await api(t, 'get', '/users/me', HAMLET);
    expect(me.body.full_name).toBe('King Hamlet');
    // Parameters are checked in Zulip's order: the time zone before the language check.
    const order = await api(t, 'patch', PATH, HAMLET, { default_language: 'xx', timezone: 'Nowhere/Town' });
    expectError(order, 'patch', PATH, 'timezone is not a recognized time zone');
  });

  it('changes the password after checking the old one and the new one’s strength', async () => {
    const login = (password: string) =>
      t.http().post('/api/v1/fetch_api_key').type('form').send({ username: 'cordelia@zulip.com', password });
    expectError(
      await api(t, 'patch', PATH, 'cordelia@zulip.com', { old_password: DEMO_PASSWORD, new_password: 'aaa' }),
      'patch',
      PATH,
      'New password is too weak!',
    );
    expectError(
      await api(t, 'patch', PATH, 'cordelia@zulip.com', { new_password: 'Another-pass-42' }),
      'patch',
      PATH,
      'Wrong password!',
    );
    const ok = await api(t, 'patch', PATH, 'cordelia@zulip.com', {
      old_password: DEMO_PASSWORD,
      new_password: 'Another-pass-42',
    });
    expectSuccess(ok, 'patch', PATH);
    expect((await login('Another-pass-42')).status).toBe(200);
    expect((await login(DEMO_PASSWORD)).status).toBe(401);
  });

  it('changes the full name for everyone; ignores it silently when the organization forbids it', async () => {
    const q = await queue(t, IAGO, ['realm_user']);
    expectSuccess(await api(t, 'patch', PATH, 'prospero@zulip.com', { full_name: '  Prospero Duke  ' }), 'patch', PATH);
    const prospero = await userId(t, 'prospero@zulip.com');
    expect(await events(t, q)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: prospero, full_name: 'Prospero Duke' } },
    ]);
    // PATCH /realm does not offer this setting yet: set it in the row and drop the realm cache.
    const setNameChanges = async (disabled: boolean) => {
      await t.dataSource.query('UPDATE realm SET name_changes_disabled = $1', [disabled]);
      t.app.get(RealmService).invalidate();
    };
    await setNameChanges(true);
    try {
      expectSuccess(await api(t, 'patch', PATH, 'prospero@zulip.com', { full_name: 'Someone Else' }), 'patch', PATH);
      expect((await api(t, 'get', `/users/${prospero}`, IAGO)).body.user.full_name).toBe('Prospero Duke');
      // Administrators still may.
      expectSuccess(await api(t, 'patch', PATH, IAGO, { full_name: 'Iago the Admin' }), 'patch', PATH);
      expect((await api(t, 'get', '/users/me', IAGO)).body.full_name).toBe('Iago the Admin');
    } finally {
      await setNameChanges(false);
    }
  });

  it('announces a new time zone to everyone', async () => {
    const q = await queue(t, IAGO, ['realm_user']);
    expectSuccess(await api(t, 'patch', PATH, 'aaron@zulip.com', { timezone: 'Asia/Kolkata' }), 'patch', PATH);
    const aaron = await userId(t, 'aaron@zulip.com');
    expect(await events(t, q)).toEqual([
      {
        type: 'realm_user',
        op: 'update',
        person: {
          user_id: aaron,
          email: (await api(t, 'get', `/users/${aaron}`, IAGO)).body.user.email,
          timezone: 'Asia/Kolkata',
        },
      },
    ]);
    expect((await api(t, 'get', `/users/${aaron}`, IAGO)).body.user.timezone).toBe('Asia/Kolkata');
  });

  it('email address visibility: who gains or loses the real address, and the API email', async () => {
    const zoe = await userId(t, 'ZOE@zulip.com');
    const member = await queue(t, OTHELLO, ['realm_user']);
    const admin = await queue(t, IAGO, ['realm_user']);
    // Everyone (1) → administrators (3): members lose the address, and everyone sees the new API email.
    expectSuccess(await api(t, 'patch', PATH, 'ZOE@zulip.com', { email_address_visibility: 3 }), 'patch', PATH);
    const fake = `user${zoe}@zulip.testserver`;
    const memberEvents = (await events(t, member)).map((e) => e.person);
    expect(memberEvents).toEqual(
      expect.arrayContaining([
        { user_id: zoe, delivery_email: null },
        { user_id: zoe, new_email: fake },
      ]),
    );
    const adminEvents = (await events(t, admin)).map((e) => e.person);
    expect(adminEvents).toContainEqual({ user_id: zoe, new_email: fake });
    expect(adminEvents).not.toContainEqual(expect.objectContaining({ delivery_email: expect.anything() }));
    const seen = await api(t, 'get', `/users/${zoe}`, OTHELLO);
    expect(seen.body.user).toMatchObject({ email: fake, delivery_email: null });
    const byAdmin = await api(t, 'get', `/users/${zoe}`, IAGO);
    expect(byAdmin.body.user.delivery_email).toBe('ZOE@zulip.com');
  });

  it('takes effect at once (the authentication cache is refreshed)', async () => {
    expectSuccess(await api(t, 'patch', PATH, HAMLET, { send_private_typing_notifications: false }), 'patch', PATH);
    const typing = await api(t, 'post', '/typing', HAMLET, { op: 'start', to: [await userId(t, OTHELLO)] });
    expectError(typing, 'post', '/typing', 'User has disabled typing notifications for direct messages');
  });

  it('guests may change their own settings; bots may not use it', async () => {
    expectSuccess(await api(t, 'patch', PATH, POLONIUS, { twenty_four_hour_time: true }), 'patch', PATH);
    expectError(
      await api(t, 'patch', PATH, DEFAULT_BOT, { enter_sends: true }),
      'patch',
      PATH,
      'This endpoint does not accept bot requests.',
    );
  });

  it('refuses a deactivated user', async () => {
    const shiva = await userId(t, 'shiva@zulip.com');
    const auth = await t.auth('shiva@zulip.com');
    expect((await api(t, 'delete', `/users/${shiva}`, IAGO)).status).toBe(200);
    const res = await t
      .http()
      .patch('/api/v1/settings')
      .auth(...auth)
      .type('form')
      .send({ enter_sends: 'true' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ result: 'error', msg: 'Account is deactivated' });
  });
});
