import { RealmService } from '../../../src/realm/realm.service';
import { UsersService } from '../../../src/users/users.service';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  api,
  DESDEMONA,
  events,
  expectError,
  expectSuccess,
  HAMLET,
  IAGO,
  POLONIUS,
  queue,
  SHIVA,
} from '../users/helpers';

const PATH = '/realm/user_settings_defaults';

describe('PATCH /realm/user_settings_defaults', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function defaults(email = HAMLET): Promise<Record<string, unknown>> {
    const res = await api(t, 'post', '/register', email, { fetch_event_types: ['realm_user_settings_defaults'] });
    expect(res.status).toBe(200);
    return res.body.realm_user_settings_defaults as Record<string, unknown>;
  }

  async function ownSettings(email: string): Promise<Record<string, unknown>> {
    const res = await api(t, 'post', '/register', email, {
      fetch_event_types: ['user_settings'],
      client_capabilities: { user_settings_object: true },
    });
    expect(res.status).toBe(200);
    return res.body.user_settings as Record<string, unknown>;
  }

  it('changes the defaults, one realm_user_settings_defaults event per changed setting', async () => {
    const q = await queue(t, HAMLET, ['realm_user_settings_defaults']);
    const before = await defaults();
    expect(before).toMatchObject({ enter_sends: true, color_scheme: 1, web_home_view: 'inbox' });
    const res = await api(t, 'patch', PATH, IAGO, {
      color_scheme: 2,
      enter_sends: true, // unchanged: no event
      web_home_view: 'recent_topics',
      emojiset: 'text',
      notification_sound: 'ding',
      email_notifications_batching_period_seconds: 600,
      resolved_topic_notice_auto_read_policy: 'never',
      web_font_size_px: 18,
      web_animate_image_previews: 'always',
    });
    expect(expectSuccess(res, 'patch', PATH)).toEqual({ result: 'success', msg: '' });
    expect(await events(t, q)).toEqual([
      { type: 'realm_user_settings_defaults', op: 'update', property: 'color_scheme', value: 2 },
      {
        type: 'realm_user_settings_defaults',
        op: 'update',
        property: 'email_notifications_batching_period_seconds',
        value: 600,
      },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'emojiset', value: 'text' },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'notification_sound', value: 'ding' },
      {
        type: 'realm_user_settings_defaults',
        op: 'update',
        property: 'resolved_topic_notice_auto_read_policy',
        value: 'never',
      },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'web_animate_image_previews', value: 'always' },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'web_font_size_px', value: 18 },
      { type: 'realm_user_settings_defaults', op: 'update', property: 'web_home_view', value: 'recent_topics' },
    ]);
    expect(await defaults()).toMatchObject({
      color_scheme: 2,
      web_home_view: 'recent_topics',
      emojiset: 'text',
      notification_sound: 'ding',
      email_notifications_batching_period_seconds: 600,
      web_font_size_px: 18,
    });
    // Sending the same values again changes nothing.
    expectSuccess(await api(t, 'patch', PATH, IAGO, { color_scheme: 2, emojiset: 'text' }), 'patch', PATH);
    expect(await events(t, q)).toEqual([]);
  });

  it('applies to users created afterwards, not to existing users', async () => {
    expectSuccess(
      await api(t, 'patch', PATH, IAGO, { twenty_four_hour_time: true, left_side_userlist: true, color_scheme: 3 }),
      'patch',
      PATH,
    );
    const hamlet = await ownSettings(HAMLET);
    expect(hamlet).toMatchObject({ twenty_four_hour_time: false, left_side_userlist: false, color_scheme: 1 });
    // POST /users (iago holds can_create_users in the demo realm).
    const created = await api(t, 'post', '/users', IAGO, {
      email: 'newbie@zulip.com',
      full_name: 'New Bie',
      password: 'n3w-Pass!',
    });
    expect(expectSuccess(created, 'post', '/users').user_id).toEqual(expect.any(Number));
    const newbie = await ownSettings('newbie@zulip.com');
    expect(newbie).toMatchObject({ twenty_four_hour_time: true, left_side_userlist: true, color_scheme: 3 });
    // The same holds for users created by the service directly (CLI, seed).
    const users = t.app.get(UsersService);
    const realm = (await t.app.get(RealmService).findByStringId('zulip'))!;
    const { user } = await users.createUser(realm, { email: 'direct@zulip.com', fullName: 'Direct User' });
    expect(user.settings).toMatchObject({ twenty_four_hour_time: true, left_side_userlist: true, color_scheme: 3 });
  });

  it.each([
    ['color_scheme', 7, 'Invalid color_scheme: Value error, Not in the list of possible values'],
    [
      'web_mark_read_on_scroll_policy',
      4,
      'Invalid web_mark_read_on_scroll_policy: Value error, Not in the list of possible values',
    ],
    [
      'web_channel_default_view',
      0,
      'Invalid web_channel_default_view: Value error, Not in the list of possible values',
    ],
    ['demote_inactive_streams', 4, 'Invalid demote_inactive_streams: Value error, Not in the list of possible values'],
    ['user_list_style', 4, 'Invalid user_list_style: Value error, Not in the list of possible values'],
    [
      'web_stream_unreads_count_display_policy',
      9,
      'Invalid web_stream_unreads_count_display_policy: Value error, Not in the list of possible values',
    ],
    [
      'desktop_icon_count_display',
      5,
      'Invalid desktop_icon_count_display: Value error, Not in the list of possible values',
    ],
    [
      'realm_name_in_email_notifications_policy',
      4,
      'Invalid realm_name_in_email_notifications_policy: Value error, Not in the list of possible values',
    ],
    [
      'automatically_follow_topics_policy',
      5,
      'Invalid automatically_follow_topics_policy: Value error, Not in the list of possible values',
    ],
    [
      'automatically_unmute_topics_in_muted_streams_policy',
      0,
      'Invalid automatically_unmute_topics_in_muted_streams_policy: Value error, Not in the list of possible values',
    ],
    [
      'email_address_visibility',
      6,
      'Invalid email_address_visibility: Value error, Not in the list of possible values',
    ],
    ['emojiset', 'invalid', 'Invalid emojiset: Value error, Not in the list of possible values'],
    ['web_home_view', 'invalid', 'Invalid web_home_view'],
    ['web_animate_image_previews', 'sometimes', 'Invalid web_animate_image_previews'],
    ['resolved_topic_notice_auto_read_policy', 'sometimes', 'Invalid resolved_topic_notice_auto_read_policy'],
    ['notification_sound', 'invalid', "Invalid notification sound 'invalid'"],
    ['email_notifications_batching_period_seconds', -1, 'Invalid email batching period: -1 seconds'],
    ['email_notifications_batching_period_seconds', 0, 'Invalid email batching period: 0 seconds'],
    ['email_notifications_batching_period_seconds', 604801, 'Invalid email batching period: 604801 seconds'],
    ['color_scheme', '"1"', 'color_scheme is not an integer'],
    ['enter_sends', 'yes', 'enter_sends is not valid JSON'],
    ['enter_sends', '1', 'enter_sends is not a boolean'],
    ['web_font_size_px', 2 ** 40, 'Invalid web_font_size_px'],
  ])('%s = %j → %s', async (name, value, msg) => {
    expectError(await api(t, 'patch', PATH, IAGO, { [name]: value }), 'patch', PATH, msg);
  });

  it('accepts "none" as notification sound and the batching period bounds', async () => {
    expectSuccess(
      await api(t, 'patch', PATH, IAGO, {
        notification_sound: 'none',
        email_notifications_batching_period_seconds: 604800,
      }),
      'patch',
      PATH,
    );
    expectSuccess(await api(t, 'patch', PATH, IAGO, { email_notifications_batching_period_seconds: 1 }), 'patch', PATH);
  });

  it('checks the notification sound before the batching period', async () => {
    const res = await api(t, 'patch', PATH, IAGO, {
      notification_sound: 'x',
      email_notifications_batching_period_seconds: -1,
    });
    expectError(res, 'patch', PATH, "Invalid notification sound 'x'");
  });

  it('ignores unknown and removed parameters', async () => {
    const res = await api(t, 'patch', PATH, IAGO, {
      emoji_set: 'google',
      dense_mode: true,
      enable_login_emails: false,
      default_language: 'de',
    });
    const body = expectSuccess(res, 'patch', PATH);
    expect(body.ignored_parameters_unsupported).toEqual([
      'default_language',
      'dense_mode',
      'emoji_set',
      'enable_login_emails',
    ]);
    const good = await api(t, 'patch', PATH, IAGO, { starred_message_counts: false, emoji_set: 'google' });
    expect(expectSuccess(good, 'patch', PATH).ignored_parameters_unsupported).toEqual(['emoji_set']);
  });

  it('is for administrators only', async () => {
    for (const email of [HAMLET, SHIVA, POLONIUS]) {
      expectError(
        await api(t, 'patch', PATH, email, { color_scheme: 2 }),
        'patch',
        PATH,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    }
    // The role check comes before the parameters are read.
    expectError(
      await api(t, 'patch', PATH, HAMLET, { color_scheme: 99 }),
      'patch',
      PATH,
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectSuccess(await api(t, 'patch', PATH, DESDEMONA, { color_scheme: 1 }), 'patch', PATH);
  });
});
