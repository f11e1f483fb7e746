/**
 * verify_action (zerver/tests/test_events.py): for each action, take a /register snapshot, do the
 * action through the HTTP API, apply the queued events to the snapshot as a client would
 * (test/helpers/apply-events.ts, after Zulip's apply_event), take a fresh snapshot, and compare.
 * A difference is a bug in the events or in the state the server computes.
 *
 * Every action is checked for three client profiles (one queue each): zulip-flutter's register
 * parameters, a "modern" client with every capability and subscriber lists, and a legacy client
 * with no capabilities (as zulip-terminal registers, with subscribers). The core (profiles,
 * apply, compare) is test/helpers/verify-action.ts, shared with the service tier (test/service).
 */
import { AuthService } from '../../../src/users/auth.service';
import { RealmService } from '../../../src/realm/realm.service';
import { PresenceService } from '../../../src/presence/presence.service';
import { Clock } from '../../../src/messaging/clock';
import { ScheduledDeliveryService } from '../../../src/scheduled-messages/scheduled-delivery.service';
import { animatedImage, stillImage } from '../../helpers/images';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { Events, VerifyDriver, verifyActionWith, VerifyOptions } from '../../helpers/verify-action';
import {
  channelId,
  CORDELIA,
  DESDEMONA,
  groupId,
  HAMLET,
  IAGO,
  ok,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  queuedEvents,
  register,
  userId,
} from './helpers';

describe('verify_action: /register state + events = a fresh /register', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** Every event type seen by some verified action, for the coverage test at the end. */
  const covered = new Set<string>();

  /** verify_action for `observer` over HTTP: POST /register snapshots, GET /events (test/helpers/verify-action.ts). */
  async function verify(observer: string, action: () => Promise<unknown>, opts: VerifyOptions = {}): Promise<Events> {
    const driver: VerifyDriver = {
      userId: await userId(t, observer),
      register: (params) => register(t, observer, params),
      queuedEvents: (snapshot) => queuedEvents(t, observer, snapshot.queue_id as string),
    };
    return verifyActionWith(driver, action, opts, (events) => {
      for (const e of events) covered.add(typeof e.op === 'string' ? `${e.type}/${e.op}` : e.type);
    });
  }

  const patchRealm = (params: Record<string, unknown>) => ok(t, 'patch', '/realm', DESDEMONA, params);

  describe('realm', () => {
    it('realm update (name, default language)', async () => {
      await verify(HAMLET, () => patchRealm({ name: 'Zulip Test', default_language: 'de' }), {
        expectedEvents: ['realm'],
      });
    });

    it('realm update_dict (message editing)', async () => {
      await verify(HAMLET, () =>
        patchRealm({ allow_message_editing: false, message_content_edit_limit_seconds: 1200 }),
      );
      await verify(HAMLET, () => patchRealm({ allow_message_editing: true }));
    });

    it('realm update (message edit history visibility, with realm_allow_edit_history)', async () => {
      await verify(HAMLET, () => patchRealm({ message_edit_history_visibility_policy: 'none' }), {
        expectedEvents: ['realm'],
      });
      await verify(HAMLET, () => patchRealm({ message_edit_history_visibility_policy: 'moves' }));
      await verify(HAMLET, () => patchRealm({ message_edit_history_visibility_policy: 'all' }));
    });

    it('realm update_dict of group settings (channel creation, wildcard mentions, invitations)', async () => {
      const admins = await groupId(t, 'role:administrators');
      const members = await groupId(t, 'role:members');
      const moderators = await groupId(t, 'role:moderators');
      await verify(HAMLET, () =>
        patchRealm({
          can_create_public_channel_group: { new: admins },
          can_create_private_channel_group: { new: moderators },
          can_mention_many_users_group: { new: moderators },
          can_invite_users_group: { new: admins },
          can_add_subscribers_group: { new: admins },
        }),
      );
      const hamlet = await userId(t, HAMLET);
      await verify(HAMLET, () =>
        patchRealm({
          can_create_public_channel_group: { new: { direct_members: [hamlet], direct_subgroups: [admins] } },
          can_create_private_channel_group: { new: members },
          can_mention_many_users_group: { new: members },
          can_invite_users_group: { new: members },
          can_add_subscribers_group: { new: members },
        }),
      );
      await verify(HAMLET, () => patchRealm({ can_create_public_channel_group: { new: members } }));
    });

    it('realm update (topics policy, announcement channels)', async () => {
      const verona = await channelId(t, 'Verona');
      await verify(HAMLET, () =>
        patchRealm({ topics_policy: 'disable_empty_topic', new_stream_announcements_stream_id: verona }),
      );
      await verify(HAMLET, () =>
        patchRealm({ topics_policy: 'allow_empty_topic', new_stream_announcements_stream_id: -1 }),
      );
    });

    it('realm update of every scalar setting (do_set_realm_property)', async () => {
      await verify(
        HAMLET,
        () =>
          patchRealm({
            avatar_changes_disabled: true,
            default_code_block_language: 'python',
            digest_emails_enabled: true,
            digest_weekday: 4,
            disallow_disposable_email_addresses: false,
            email_changes_disabled: true,
            emails_restricted_to_domains: true,
            enable_guest_user_dm_warning: false,
            enable_guest_user_indicator: false,
            enable_read_receipts: true,
            enable_spectator_access: true,
            giphy_rating: 4,
            inline_image_preview: false,
            inline_url_embed_preview: true,
            invite_required: false,
            message_content_allowed_in_email_notifications: false,
            name_changes_disabled: true,
            require_e2ee_push_notifications: true,
            require_unique_names: true,
            send_welcome_emails: false,
            video_chat_provider: 0,
            waiting_period_threshold: 3,
            want_advertise_in_communities_directory: true,
            welcome_message_custom_text: 'Hello there',
            message_retention_days: 90,
            move_messages_between_streams_limit_seconds: JSON.stringify('unlimited'),
          }),
        { expectedEvents: ['realm'] },
      );
      // Back to the seeded values (later cases rely on them, e.g. name changes being allowed).
      await verify(HAMLET, () =>
        patchRealm({
          avatar_changes_disabled: false,
          default_code_block_language: '',
          digest_emails_enabled: false,
          digest_weekday: 1,
          disallow_disposable_email_addresses: true,
          email_changes_disabled: false,
          emails_restricted_to_domains: false,
          enable_guest_user_dm_warning: true,
          enable_guest_user_indicator: true,
          enable_read_receipts: false,
          enable_spectator_access: false,
          giphy_rating: 2,
          inline_image_preview: true,
          inline_url_embed_preview: false,
          invite_required: true,
          message_content_allowed_in_email_notifications: true,
          name_changes_disabled: false,
          require_e2ee_push_notifications: false,
          require_unique_names: false,
          send_welcome_emails: true,
          video_chat_provider: 1,
          waiting_period_threshold: 0,
          want_advertise_in_communities_directory: false,
          welcome_message_custom_text: '',
          message_retention_days: JSON.stringify('unlimited'),
          move_messages_between_streams_limit_seconds: 604800,
        }),
      );
    });

    it('realm update (Jitsi server URL, organization type) and update_dict (authentication methods)', async () => {
      await verify(HAMLET, () => patchRealm({ jitsi_server_url: JSON.stringify('https://jitsi.example.com') }), {
        expectedEvents: ['realm'],
      });
      await verify(HAMLET, () => patchRealm({ jitsi_server_url: JSON.stringify('default'), org_type: 30 }));
      await verify(HAMLET, () => patchRealm({ authentication_methods: { Email: false, Dev: true } }), {
        expectedEvents: ['realm'],
      });
      await verify(HAMLET, () => patchRealm({ authentication_methods: { Email: true } }));
    });

    it('realm update (signup and Zulip update announcement channels)', async () => {
      const verona = await channelId(t, 'Verona');
      await verify(HAMLET, () =>
        patchRealm({ signup_announcements_stream_id: verona, zulip_update_announcements_stream_id: verona }),
      );
      await verify(HAMLET, () =>
        patchRealm({ signup_announcements_stream_id: -1, zulip_update_announcements_stream_id: -1 }),
      );
    });

    it('realm_user_settings_defaults update', async () => {
      await verify(
        HAMLET,
        () => ok(t, 'patch', '/realm/user_settings_defaults', IAGO, { enter_sends: false, web_font_size_px: 14 }),
        { expectedEvents: ['realm_user_settings_defaults'] },
      );
    });
  });

  describe('own settings (PATCH /settings)', () => {
    it('user_settings update, and the legacy forms for the legacy client', async () => {
      await verify(
        HAMLET,
        () =>
          ok(t, 'patch', '/settings', HAMLET, {
            enter_sends: true,
            default_language: 'de',
            enable_sounds: false,
            web_font_size_px: 15,
            emojiset: 'twitter',
          }),
        { expectedEvents: ['user_settings'] },
      );
    });

    it('time zone (realm_user update to everyone) and full name', async () => {
      await verify(HAMLET, () => ok(t, 'patch', '/settings', HAMLET, { timezone: 'Europe/Berlin' }), {
        expectedEvents: ['user_settings', 'realm_user'],
      });
      await verify(OTHELLO, () => ok(t, 'patch', '/settings', HAMLET, { timezone: 'America/New_York' }), {
        expectedEvents: ['realm_user'],
      });
      await verify(OTHELLO, () => ok(t, 'patch', '/settings', HAMLET, { full_name: 'Hamlet, Prince' }), {
        expectedEvents: ['realm_user'],
      });
    });

    it('email address visibility: delivery_email and the API email, for the user and the others', async () => {
      for (const observer of [HAMLET, OTHELLO, IAGO]) {
        await verify(observer, () => ok(t, 'patch', '/settings', PROSPERO, { email_address_visibility: 3 }));
        await verify(observer, () => ok(t, 'patch', '/settings', PROSPERO, { email_address_visibility: 1 }));
      }
      await verify(PROSPERO, () => ok(t, 'patch', '/settings', PROSPERO, { email_address_visibility: 4 }));
    });
  });

  describe('users', () => {
    it('realm_user add (a new user)', async () => {
      await verify(
        HAMLET,
        () => ok(t, 'post', '/users', IAGO, { email: 'newbie@zulip.com', password: 'secret-123', full_name: 'Newbie' }),
        { expectedEvents: ['realm_user'] },
      );
    });

    it('realm_user add and update seen by a guest restricted by can_access_all_users_group', async () => {
      const members = (await ok(t, 'get', '/user_groups', IAGO)).user_groups as Array<{ id: number; name: string }>;
      const group = (name: string) => members.find((g) => g.name === name)!.id;
      await t.dataSource.query(`UPDATE realm SET can_access_all_users_group = $1 WHERE string_id = 'zulip'`, [
        group('role:members'),
      ]);
      t.app.get(RealmService).invalidate();
      try {
        await ok(t, 'delete', '/users/me/subscriptions', POLONIUS, { subscriptions: ['Verona'] });
        await verify(POLONIUS, () =>
          ok(t, 'post', '/users', IAGO, { email: 'stranger@zulip.com', password: 'secret-123', full_name: 'Stranger' }),
        );
        const stranger = await userId(t, 'stranger@zulip.com');
        await verify(POLONIUS, () => ok(t, 'patch', `/users/${stranger}`, IAGO, { full_name: 'Stranger Still' }), {
          noEvents: true,
        });
      } finally {
        await t.dataSource.query(`UPDATE realm SET can_access_all_users_group = $1 WHERE string_id = 'zulip'`, [
          group('role:everyone'),
        ]);
        t.app.get(RealmService).invalidate();
        await ok(t, 'post', '/users/me/subscriptions', IAGO, {
          subscriptions: [{ name: 'Verona' }],
          principals: [await userId(t, POLONIUS)],
        });
      }
    });

    it('realm_user remove and add when a restricted guest leaves and rejoins a channel', async () => {
      const members = (await ok(t, 'get', '/user_groups', IAGO)).user_groups as Array<{ id: number; name: string }>;
      const group = (name: string) => members.find((g) => g.name === name)!.id;
      await t.dataSource.query(`UPDATE realm SET can_access_all_users_group = $1 WHERE string_id = 'zulip'`, [
        group('role:members'),
      ]);
      t.app.get(RealmService).invalidate();
      const polonius = await userId(t, POLONIUS);
      try {
        const left = await verify(POLONIUS, () =>
          ok(t, 'delete', '/users/me/subscriptions', POLONIUS, { subscriptions: ['Verona'] }),
        );
        expect(left.filter((e) => e.type === 'realm_user').map((e) => e.op)).toContain('remove');
        const back = await verify(POLONIUS, () =>
          ok(t, 'post', '/users/me/subscriptions', IAGO, {
            subscriptions: [{ name: 'Verona' }],
            principals: [polonius],
          }),
        );
        expect(back.filter((e) => e.type === 'realm_user').map((e) => e.op)).toContain('add');
        // Seen from the other side: a member loses nothing (members see everyone), so nothing
        // reaches Hamlet but the subscription events.
        const forHamlet = await verify(HAMLET, () =>
          ok(t, 'delete', '/users/me/subscriptions', POLONIUS, { subscriptions: ['Verona'] }),
        );
        expect(forHamlet.filter((e) => e.type === 'realm_user')).toEqual([]);
      } finally {
        await t.dataSource.query(`UPDATE realm SET can_access_all_users_group = $1 WHERE string_id = 'zulip'`, [
          group('role:everyone'),
        ]);
        t.app.get(RealmService).invalidate();
        await ok(t, 'post', '/users/me/subscriptions', IAGO, {
          subscriptions: [{ name: 'Verona' }],
          principals: [polonius],
        });
      }
    });

    it('realm_user remove and add when a user a restricted guest sees through a channel is deactivated and reactivated', async () => {
      const members = (await ok(t, 'get', '/user_groups', IAGO)).user_groups as Array<{ id: number; name: string }>;
      const group = (name: string) => members.find((g) => g.name === name)!.id;
      await ok(t, 'post', '/users', IAGO, {
        email: 'passer@zulip.com',
        password: 'secret-123',
        full_name: 'Passer By',
      });
      const passer = await userId(t, 'passer@zulip.com');
      await ok(t, 'post', '/users/me/subscriptions', IAGO, {
        subscriptions: [{ name: 'Verona' }],
        principals: [passer],
      });
      await t.dataSource.query(`UPDATE realm SET can_access_all_users_group = $1 WHERE string_id = 'zulip'`, [
        group('role:members'),
      ]);
      t.app.get(RealmService).invalidate();
      try {
        const gone = await verify(POLONIUS, () => ok(t, 'delete', `/users/${passer}`, IAGO));
        expect(gone.filter((e) => e.type === 'realm_user').map((e) => e.op)).toEqual(['remove']);
        const back = await verify(POLONIUS, () => ok(t, 'post', `/users/${passer}/reactivate`, IAGO));
        expect(back.filter((e) => e.type === 'realm_user').map((e) => e.op)).toEqual(['add']);
        // An administrator sees the deactivated user and gets the updates.
        await verify(HAMLET, () => ok(t, 'delete', `/users/${passer}`, IAGO), { expectedEvents: ['realm_user'] });
        await verify(HAMLET, () => ok(t, 'post', `/users/${passer}/reactivate`, IAGO), {
          expectedEvents: ['realm_user'],
        });
      } finally {
        await t.dataSource.query(`UPDATE realm SET can_access_all_users_group = $1 WHERE string_id = 'zulip'`, [
          group('role:everyone'),
        ]);
        t.app.get(RealmService).invalidate();
      }
    });

    it('realm_user update (name, custom profile field)', async () => {
      const othello = await userId(t, OTHELLO);
      await verify(HAMLET, () => ok(t, 'patch', `/users/${othello}`, IAGO, { full_name: 'Othello the Moor' }), {
        expectedEvents: ['realm_user'],
      });
      const fields = (await ok(t, 'get', '/realm/profile_fields', HAMLET)).custom_fields as Array<{
        id: number;
        type: number;
      }>;
      const shortText = fields.find((f) => f.type === 1)!;
      await verify(HAMLET, () =>
        ok(t, 'patch', `/users/${othello}`, IAGO, { profile_data: [{ id: shortText.id, value: '+1 555' }] }),
      );
      await verify(HAMLET, () =>
        ok(t, 'patch', `/users/${othello}`, IAGO, { profile_data: [{ id: shortText.id, value: '' }] }),
      );
    });

    it("realm_user update (another user's role, and the observer's own role)", async () => {
      const othello = await userId(t, OTHELLO);
      await verify(HAMLET, () => ok(t, 'patch', `/users/${othello}`, IAGO, { role: 300 }));
      await verify(HAMLET, () => ok(t, 'patch', `/users/${othello}`, IAGO, { role: 400 }));
      const hamlet = await userId(t, HAMLET);
      await verify(HAMLET, () => ok(t, 'patch', `/users/${hamlet}`, IAGO, { role: 300 }));
      await verify(HAMLET, () => ok(t, 'patch', `/users/${hamlet}`, IAGO, { role: 400 }));
    });

    it('realm_user update (deactivation and reactivation)', async () => {
      const prospero = await userId(t, PROSPERO);
      await verify(HAMLET, () => ok(t, 'delete', `/users/${prospero}`, IAGO));
      await verify(HAMLET, () => ok(t, 'post', `/users/${prospero}/reactivate`, IAGO));
    });

    it("realm_user update and realm_bot (deactivating a bot's owner, seen by an administrator and the owner)", async () => {
      const zoe = await userId(t, 'ZOE@zulip.com');
      await verify(IAGO, () => ok(t, 'delete', `/users/${zoe}`, DESDEMONA));
      await verify(IAGO, () => ok(t, 'post', `/users/${zoe}/reactivate`, DESDEMONA));
      const bot = await userId(t, 'webhook-bot@zulip.com');
      await verify('ZOE@zulip.com', () => ok(t, 'post', `/users/${bot}/reactivate`, DESDEMONA));
    });

    it('custom_profile_fields (create, update, reorder, delete)', async () => {
      let id = 0;
      await verify(
        HAMLET,
        async () => {
          id = (await ok(t, 'post', '/realm/profile_fields', IAGO, { name: 'Pet', field_type: 1, hint: 'A pet' }))
            .id as number;
        },
        { expectedEvents: ['custom_profile_fields'] },
      );
      await verify(HAMLET, () => ok(t, 'patch', `/realm/profile_fields/${id}`, IAGO, { name: 'Pets', hint: 'Pets' }));
      const ids = ((await ok(t, 'get', '/realm/profile_fields', HAMLET)).custom_fields as Array<{ id: number }>).map(
        (f) => f.id,
      );
      await verify(HAMLET, () => ok(t, 'patch', '/realm/profile_fields', IAGO, { order: [...ids].reverse() }));
      const othello = await userId(t, OTHELLO);
      await ok(t, 'patch', `/users/${othello}`, IAGO, { profile_data: [{ id, value: 'a cat' }] });
      await verify(HAMLET, () => ok(t, 'delete', `/realm/profile_fields/${id}`, IAGO));
    });

    it('navigation_view add, update, remove', async () => {
      await verify(
        HAMLET,
        () =>
          ok(t, 'post', '/navigation_views', HAMLET, {
            fragment: 'narrow/is/alerted',
            is_pinned: true,
            name: 'Alerts',
          }),
        {
          expectedEvents: ['navigation_view'],
        },
      );
      await verify(HAMLET, () => ok(t, 'patch', '/navigation_views/narrow/is/alerted', HAMLET, { is_pinned: false }));
      await verify(HAMLET, () => ok(t, 'delete', '/navigation_views/narrow/is/alerted', HAMLET));
    });

    it("muted_users: muting marks the muted user's messages read, then the list; unmuting", async () => {
      const othello = await userId(t, OTHELLO);
      await ok(t, 'post', '/messages', OTHELLO, {
        type: 'direct',
        to: [await userId(t, HAMLET)],
        content: 'unread dm',
      });
      await ok(t, 'post', '/messages', OTHELLO, { type: 'stream', to: 'Verona', topic: 'muting', content: 'unread' });
      const events = await verify(HAMLET, () => ok(t, 'post', `/users/me/muted_users/${othello}`, HAMLET), {
        expectedEvents: ['update_message_flags', 'muted_users'],
      });
      expect(events.map((e) => e.type)).toEqual(['update_message_flags', 'muted_users']);
      await verify(HAMLET, () => ok(t, 'delete', `/users/me/muted_users/${othello}`, HAMLET), {
        expectedEvents: ['muted_users'],
      });
    });
  });

  describe('user groups', () => {
    let group = 0;
    it('user_group add', async () => {
      const [hamlet, othello] = [await userId(t, HAMLET), await userId(t, OTHELLO)];
      await verify(
        HAMLET,
        async () => {
          group = (
            await ok(t, 'post', '/user_groups/create', IAGO, {
              name: 'verifiers',
              description: 'Checking',
              members: [hamlet, othello],
            })
          ).group_id as number;
        },
        { expectedEvents: ['user_group'] },
      );
    });

    it('user_group update, add_members, remove_members', async () => {
      const cordelia = await userId(t, CORDELIA);
      await verify(HAMLET, () => ok(t, 'patch', `/user_groups/${group}`, IAGO, { name: 'checkers', description: 'x' }));
      await verify(HAMLET, () => ok(t, 'post', `/user_groups/${group}/members`, IAGO, { add: [cordelia] }));
      await verify(HAMLET, () => ok(t, 'post', `/user_groups/${group}/members`, IAGO, { delete: [cordelia] }));
    });

    it('user_group add_subgroups, remove_subgroups', async () => {
      const characters = await groupId(t, 'hamletcharacters');
      await verify(HAMLET, () => ok(t, 'post', `/user_groups/${group}/subgroups`, IAGO, { add: [characters] }));
      await verify(HAMLET, () => ok(t, 'post', `/user_groups/${group}/subgroups`, IAGO, { delete: [characters] }));
    });

    it('user_group deactivation (update deactivated, or remove without include_deactivated_groups)', async () => {
      await verify(HAMLET, () => ok(t, 'post', `/user_groups/${group}/deactivate`, IAGO));
    });
  });

  describe('channels and subscriptions', () => {
    it('subscription add and peer_add (joining a channel)', async () => {
      const rome = await channelId(t, 'Rome');
      await verify(
        HAMLET,
        () => ok(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'Rome' }] }),
        {
          expectedEvents: ['subscription'],
        },
      );
      await verify(OTHELLO, () =>
        ok(t, 'post', '/users/me/subscriptions', CORDELIA, { subscriptions: [{ name: 'Rome' }] }),
      );
      expect(rome).toBeGreaterThan(0);
    });

    it('subscription remove and peer_remove (leaving a channel)', async () => {
      await verify(HAMLET, () => ok(t, 'delete', '/users/me/subscriptions', HAMLET, { subscriptions: ['Rome'] }), {
        expectedEvents: ['subscription'],
      });
      await verify(OTHELLO, () => ok(t, 'delete', '/users/me/subscriptions', CORDELIA, { subscriptions: ['Rome'] }));
    });

    it('subscriptions of other users (peer events seen by a third user)', async () => {
      const othello = await userId(t, OTHELLO);
      await verify(HAMLET, () =>
        ok(t, 'post', '/users/me/subscriptions', IAGO, { subscriptions: [{ name: 'Venice' }], principals: [othello] }),
      );
      await verify(HAMLET, () =>
        ok(t, 'delete', '/users/me/subscriptions', IAGO, { subscriptions: ['Venice'], principals: [othello] }),
      );
    });

    it('leaving a private channel', async () => {
      await verify(HAMLET, () => ok(t, 'delete', '/users/me/subscriptions', HAMLET, { subscriptions: ['core team'] }));
    });

    it('subscription update (color, pin, mute, notification settings)', async () => {
      const denmark = await channelId(t, 'Denmark');
      const set = (property: string, value: unknown) =>
        ok(t, 'post', '/users/me/subscriptions/properties', HAMLET, {
          subscription_data: [{ stream_id: denmark, property, value }],
        });
      await verify(HAMLET, () => set('color', '#123456'), { expectedEvents: ['subscription'] });
      await verify(HAMLET, () => set('pin_to_top', true));
      await verify(HAMLET, () => set('is_muted', true));
      await verify(HAMLET, () => set('in_home_view', true));
      await verify(HAMLET, () => set('desktop_notifications', true));
      await verify(HAMLET, () => set('desktop_notifications', false));
      await verify(HAMLET, () => set('wildcard_mentions_notify', false));
    });

    it('stream create (a new channel) with subscription add', async () => {
      const othello = await userId(t, OTHELLO);
      await verify(
        HAMLET,
        () =>
          ok(t, 'post', '/users/me/subscriptions', IAGO, {
            subscriptions: [{ name: 'Elsinore', description: 'The castle' }],
            principals: [othello],
          }),
        { expectedEvents: ['stream'] },
      );
      await verify(HAMLET, () =>
        ok(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'Ophelia', description: 'Mine' }] }),
      );
    });

    it('stream update (description, name, privacy)', async () => {
      const elsinore = await channelId(t, 'Elsinore');
      await verify(HAMLET, () => ok(t, 'patch', `/streams/${elsinore}`, IAGO, { description: 'A **castle**' }), {
        expectedEvents: ['stream'],
      });
      await verify(HAMLET, () => ok(t, 'patch', `/streams/${elsinore}`, IAGO, { new_name: 'Helsingør' }));
      const ophelia = await channelId(t, 'Ophelia');
      await verify(HAMLET, () => ok(t, 'patch', `/streams/${ophelia}`, IAGO, { is_private: true }));
      await verify(OTHELLO, () => ok(t, 'patch', `/streams/${ophelia}`, HAMLET, { is_private: false }));
    });

    it('stream delete (archiving a channel)', async () => {
      const castle = await channelId(t, 'Helsingør');
      await verify(HAMLET, () => ok(t, 'delete', `/streams/${castle}`, IAGO), { expectedEvents: ['stream'] });
    });

    it('default_streams (a channel made default)', async () => {
      const scotland = await channelId(t, 'Scotland');
      await verify(HAMLET, () => ok(t, 'patch', `/streams/${scotland}`, IAGO, { is_default_stream: true }));
    });

    it('user_topic (mute, follow, unmute, the empty topic)', async () => {
      const verona = await channelId(t, 'Verona');
      const set = (topic: string, visibility_policy: number) =>
        ok(t, 'post', '/user_topics', HAMLET, { stream_id: verona, topic, visibility_policy });
      await verify(HAMLET, () => set('lunch', 1), { expectedEvents: ['user_topic'] });
      await verify(HAMLET, () => set('lunch', 3));
      await verify(HAMLET, () => set('', 1));
      await verify(HAMLET, () => set('lunch', 0));
      await verify(HAMLET, () => set('', 0));
    });

    it('channel_folder add and update', async () => {
      let folder = 0;
      await verify(
        HAMLET,
        async () => {
          folder = (await ok(t, 'post', '/channel_folders/create', IAGO, { name: 'Plays', description: 'Drama' }))
            .channel_folder_id as number;
        },
        { expectedEvents: ['channel_folder'] },
      );
      await verify(HAMLET, () => ok(t, 'patch', `/channel_folders/${folder}`, IAGO, { description: 'More **drama**' }));
      const denmark = await channelId(t, 'Denmark');
      await verify(HAMLET, () => ok(t, 'patch', `/streams/${denmark}`, IAGO, { folder_id: folder }));
      const empty = (await ok(t, 'post', '/channel_folders/create', IAGO, { name: 'Empty', description: '' }))
        .channel_folder_id as number;
      await verify(HAMLET, () => ok(t, 'patch', `/channel_folders/${empty}`, IAGO, { is_archived: true }));
    });
  });

  describe('presence and status', () => {
    it('user_status (text, emoji, clearing) and away (user_settings, presence)', async () => {
      await verify(
        HAMLET,
        () => ok(t, 'post', '/users/me/status', OTHELLO, { status_text: 'lunch', emoji_name: 'car' }),
        {
          expectedEvents: ['user_status'],
        },
      );
      await verify(HAMLET, () => ok(t, 'post', '/users/me/status', OTHELLO, { emoji_name: '' }));
      await verify(HAMLET, () => ok(t, 'post', '/users/me/status', HAMLET, { away: true }), {
        expectedEvents: ['user_status', 'presence'],
      });
      await verify(HAMLET, () => ok(t, 'post', '/users/me/status', HAMLET, { away: false, status_text: '' }));
    });

    it('presence: a user coming online', async () => {
      await verify(
        HAMLET,
        async () => {
          await ok(t, 'post', '/users/me/presence', CORDELIA, { status: 'active', ping_only: true });
          await t.app.get(PresenceService).flush();
        },
        { expectedEvents: ['presence'] },
      );
    });
  });

  describe('custom emoji', () => {
    it('realm_emoji update (upload a still and an animated emoji, deactivate one)', async () => {
      const uploadEmoji = async (name: string, data: Buffer, file: string) => {
        const res = await t
          .http()
          .post(`/api/v1/realm/emoji/${name}`)
          .auth(...(await t.auth(HAMLET)))
          .attach('f', data, file);
        if (res.status !== 200) throw new Error(`emoji upload: ${res.status} ${JSON.stringify(res.body)}`);
      };
      await verify(POLONIUS, async () => uploadEmoji('verified', await stillImage('png'), 'v.png'), {
        expectedEvents: ['realm_emoji'],
      });
      await verify(HAMLET, async () => uploadEmoji('verified_gif', await animatedImage('gif'), 'v.gif'));
      await verify(HAMLET, () => ok(t, 'delete', '/realm/emoji/verified', IAGO));
    });
  });

  describe('linkifiers and code playgrounds', () => {
    it('realm_linkifiers (add, update, reorder, remove) and realm_playgrounds (add, remove)', async () => {
      const first = await verify(
        POLONIUS,
        () =>
          ok(t, 'post', '/realm/filters', IAGO, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://t.example/{id}' }),
        { expectedEvents: ['realm_linkifiers'] },
      );
      expect(first.map((e) => e.type)).toEqual(['realm_linkifiers']);
      const ids = (await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM realm_filter ORDER BY id`)).map(
        (r) => r.id,
      );
      await verify(HAMLET, () =>
        ok(t, 'post', '/realm/filters', IAGO, { pattern: 'PR (?P<n>[0-9]+)', url_template: 'https://pr.example/{n}' }),
      );
      const both = (await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM realm_filter ORDER BY id`)).map(
        (r) => r.id,
      );
      await verify(HAMLET, () =>
        ok(t, 'patch', `/realm/filters/${ids[0]}`, IAGO, {
          pattern: '#(?P<id>[0-9]{2,})',
          url_template: 'https://t.example/x/{id}',
        }),
      );
      await verify(HAMLET, () =>
        ok(t, 'patch', '/realm/linkifiers', IAGO, { ordered_linkifier_ids: [...both].reverse() }),
      );
      await verify(HAMLET, () => ok(t, 'delete', `/realm/filters/${both[1]}`, IAGO));
      const added = await verify(
        HAMLET,
        () =>
          ok(t, 'post', '/realm/playgrounds', IAGO, {
            name: 'Python',
            pygments_language: 'python',
            url_template: 'https://py.example/?c={code}',
          }),
        { expectedEvents: ['realm_playgrounds'] },
      );
      expect(added.map((e) => e.type)).toEqual(['realm_playgrounds']);
      const [pg] = await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM realm_playground`);
      await verify(POLONIUS, () => ok(t, 'delete', `/realm/playgrounds/${pg.id}`, IAGO));
    });
  });

  describe('invitations', () => {
    it('invites_changed (invite, multiuse link, revoke) changes no /register state', async () => {
      const evs = await verify(
        IAGO,
        () => ok(t, 'post', '/invites', HAMLET, { invitee_emails: 'verify-invite@example.org', stream_ids: '[]' }),
        { expectedEvents: ['invites_changed'] },
      );
      expect(evs.map((e) => e.type)).toEqual(['invites_changed']);
      await verify(HAMLET, () => ok(t, 'post', '/invites/multiuse', IAGO, {}), { noEvents: true });
      const [row] = await t.dataSource.query<Array<{ id: number }>>(
        `SELECT id FROM invitation WHERE email = 'verify-invite@example.org'`,
      );
      await verify(HAMLET, () => ok(t, 'delete', `/invites/${row.id}`, IAGO), { expectedEvents: ['invites_changed'] });
    });
  });

  describe('messages', () => {
    const send = (as: string, params: Record<string, unknown>) => ok(t, 'post', '/messages', as, params);

    it('message (channel message, mention, unread counts)', async () => {
      await verify(HAMLET, () => send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'plans', content: 'hello' }), {
        expectedEvents: ['message'],
      });
      await verify(HAMLET, () =>
        send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'Plans', content: 'hi @**King Hamlet**' }),
      );
      await verify(HAMLET, () =>
        send(OTHELLO, { type: 'stream', to: 'Verona', topic: '', content: 'no topic @**all**' }),
      );
      // Into a muted topic: unread, but not counted.
      const verona = await channelId(t, 'Verona');
      await ok(t, 'post', '/user_topics', HAMLET, { stream_id: verona, topic: 'muted', visibility_policy: 1 });
      await verify(HAMLET, () =>
        send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'muted', content: 'shh @**all**' }),
      );
      // The observer's own message is read.
      await verify(HAMLET, () => send(HAMLET, { type: 'stream', to: 'Verona', topic: 'plans', content: 'mine' }));
    });

    it('message (direct messages: one-to-one, group, to oneself)', async () => {
      const [hamlet, othello, cordelia] = [
        await userId(t, HAMLET),
        await userId(t, OTHELLO),
        await userId(t, CORDELIA),
      ];
      await verify(HAMLET, () => send(OTHELLO, { type: 'direct', to: [hamlet], content: 'psst' }), {
        expectedEvents: ['message'],
      });
      await verify(HAMLET, () => send(OTHELLO, { type: 'direct', to: [hamlet, cordelia], content: 'all of us' }));
      await verify(HAMLET, () => send(HAMLET, { type: 'direct', to: [hamlet], content: 'note to self' }));
      await verify(HAMLET, () => send(HAMLET, { type: 'direct', to: [othello], content: 'reply' }));
    });

    it('user_topic from sending (automatic follow, also of the empty topic and of a muted topic)', async () => {
      // No settings endpoint yet: the user setting is set in the database (a fixture).
      const hamlet = await userId(t, HAMLET);
      await t.dataSource.query(`UPDATE user_profile SET automatically_follow_topics_policy = 2 WHERE id = $1`, [
        hamlet,
      ]);
      t.app.get(AuthService).invalidateUser(hamlet);
      await verify(HAMLET, () => send(HAMLET, { type: 'stream', to: 'Verona', topic: 'followed', content: 'x' }), {
        expectedEvents: ['user_topic'],
      });
      await verify(HAMLET, () => send(HAMLET, { type: 'stream', to: 'Denmark', topic: '', content: 'x' }));
      const verona = await channelId(t, 'Verona');
      await ok(t, 'post', '/user_topics', HAMLET, { stream_id: verona, topic: 'quiet', visibility_policy: 1 });
      await verify(HAMLET, () => send(HAMLET, { type: 'stream', to: 'Verona', topic: 'quiet', content: 'x' }));
      await t.dataSource.query(`UPDATE user_profile SET automatically_follow_topics_policy = 4 WHERE id = $1`, [
        hamlet,
      ]);
      t.app.get(AuthService).invalidateUser(hamlet);
    });

    it('update_message_flags (read, unread, starred)', async () => {
      const id = (await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'flags', content: 'flag me' }))
        .id as number;
      const dm = (await send(OTHELLO, { type: 'direct', to: [await userId(t, HAMLET)], content: 'dm flag' }))
        .id as number;
      const flag = (op: string, flagName: string, messages: number[]) =>
        ok(t, 'post', '/messages/flags', HAMLET, { messages, op, flag: flagName });
      await verify(HAMLET, () => flag('add', 'read', [id, dm]), { expectedEvents: ['update_message_flags'] });
      await verify(HAMLET, () => flag('remove', 'read', [id, dm]));
      await verify(HAMLET, () => flag('add', 'starred', [id]));
      await verify(HAMLET, () => flag('remove', 'starred', [id]));
      await verify(HAMLET, () => ok(t, 'post', '/mark_all_as_read', HAMLET));
    });

    it('update_message_flags from POST /messages/flags/narrow (mark read, unread from here, star)', async () => {
      const ids: number[] = [];
      for (const content of ['one', 'two', 'three']) {
        ids.push((await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'narrow flags', content })).id as number);
      }
      const narrow = [
        { operator: 'channel', operand: 'Verona' },
        { operator: 'topic', operand: 'narrow flags' },
      ];
      const byNarrow = (params: Record<string, unknown>) =>
        ok(t, 'post', '/messages/flags/narrow', HAMLET, { narrow, num_before: 0, ...params });
      await verify(HAMLET, () => byNarrow({ anchor: 'oldest', num_after: 10, op: 'add', flag: 'read' }), {
        expectedEvents: ['update_message_flags'],
      });
      await verify(HAMLET, () => byNarrow({ anchor: String(ids[1]), num_after: 10, op: 'remove', flag: 'read' }));
      await verify(HAMLET, () => byNarrow({ anchor: 'first_unread', num_after: 1, op: 'add', flag: 'starred' }));
    });

    it('reaction add and remove, typing (events that change no register state)', async () => {
      const id = (await send(HAMLET, { type: 'stream', to: 'Verona', topic: 'react', content: 'react' })).id as number;
      await verify(HAMLET, () => ok(t, 'post', `/messages/${id}/reactions`, OTHELLO, { emoji_name: 'smile' }), {
        expectedEvents: ['reaction'],
      });
      await verify(HAMLET, () => ok(t, 'delete', `/messages/${id}/reactions`, OTHELLO, { emoji_name: 'smile' }));
      const verona = await channelId(t, 'Verona');
      // Channel typing reaches only queues with the stream_typing_notifications capability.
      await verify(
        HAMLET,
        () => ok(t, 'post', '/typing', OTHELLO, { type: 'stream', op: 'start', stream_id: verona, topic: 'react' }),
        { eventsOnlyFor: ['flutter', 'modern'], expectedEvents: ['typing'] },
      );
      const hamlet = await userId(t, HAMLET);
      await verify(HAMLET, () => ok(t, 'post', '/typing', OTHELLO, { op: 'start', to: [hamlet] }), {
        expectedEvents: ['typing'],
      });
    });

    it('submessage (a widget message, then a vote: no register state changes)', async () => {
      const widget = { type: 'stream', to: 'Verona', topic: 'widgets', content: '/poll Lunch?\nsoup\nsalad' };
      const events = await verify(HAMLET, () => send(OTHELLO, widget), { expectedEvents: ['message'] });
      const id = (events.find((e) => e.type === 'message') as unknown as { message: { id: number } }).message.id;
      await verify(
        HAMLET,
        () =>
          ok(t, 'post', '/submessage', HAMLET, {
            message_id: id,
            msg_type: 'widget',
            content: JSON.stringify({ type: 'vote', key: 'canned,1', vote: 1 }),
          }),
        { expectedEvents: ['submessage'] },
      );
    });

    it('update_message (content edit adding a mention, topic rename, resolve, move to another channel)', async () => {
      const id = (await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'editable', content: 'first' }))
        .id as number;
      await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'editable', content: 'second' });
      await verify(HAMLET, () => ok(t, 'patch', `/messages/${id}`, OTHELLO, { content: 'first @**King Hamlet**' }), {
        expectedEvents: ['update_message'],
      });
      await verify(HAMLET, () => ok(t, 'patch', `/messages/${id}`, OTHELLO, { content: 'first, no mention' }));
      await verify(HAMLET, () =>
        ok(t, 'patch', `/messages/${id}`, OTHELLO, { topic: 'edited', propagate_mode: 'change_all' }),
      );
      await verify(HAMLET, () =>
        ok(t, 'patch', `/messages/${id}`, OTHELLO, { topic: '✔ edited', propagate_mode: 'change_all' }),
      );
      const denmark = await channelId(t, 'Denmark');
      await verify(HAMLET, () =>
        ok(t, 'patch', `/messages/${id}`, IAGO, { stream_id: denmark, propagate_mode: 'change_all' }),
      );
    });

    it("delete_message (channel message, starred message, direct message, a channel's first message)", async () => {
      const id = (await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'doomed', content: 'bye' })).id as number;
      await verify(HAMLET, () => ok(t, 'delete', `/messages/${id}`, IAGO), { expectedEvents: ['delete_message'] });
      const starred = (await send(OTHELLO, { type: 'stream', to: 'Verona', topic: 'doomed', content: 'star' }))
        .id as number;
      await ok(t, 'post', '/messages/flags', HAMLET, { messages: [starred], op: 'add', flag: 'starred' });
      await verify(HAMLET, () => ok(t, 'delete', `/messages/${starred}`, IAGO));
      const dm = (await send(OTHELLO, { type: 'direct', to: [await userId(t, HAMLET)], content: 'secret' }))
        .id as number;
      await verify(HAMLET, () => ok(t, 'delete', `/messages/${dm}`, OTHELLO));
      // Deleting a channel's first message moves its first_message_id (a stream update event).
      await ok(t, 'post', '/users/me/subscriptions', HAMLET, { subscriptions: [{ name: 'Fresh start' }] });
      const [firstId] = (
        await t.dataSource.query<Array<{ first_message_id: number }>>(
          `SELECT first_message_id FROM stream WHERE name = 'Fresh start'`,
        )
      ).map((r) => r.first_message_id);
      await send(OTHELLO, { type: 'stream', to: 'Fresh start', topic: 't', content: 'second' });
      await verify(HAMLET, () => ok(t, 'delete', `/messages/${firstId}`, IAGO), { expectedEvents: ['stream'] });
    });

    it('a guest observer', async () => {
      await verify(POLONIUS, () => patchRealm({ name: 'Zulip Dev' }));
    });
  });

  describe('alert words, drafts, saved snippets', () => {
    it('alert_words (add, add again ignoring case, remove)', async () => {
      await verify(HAMLET, () => ok(t, 'post', '/users/me/alert_words', HAMLET, { alert_words: ['Tea', 'scones'] }), {
        expectedEvents: ['alert_words'],
      });
      await verify(HAMLET, () => ok(t, 'post', '/users/me/alert_words', HAMLET, { alert_words: ['TEA', 'jam'] }));
      await verify(HAMLET, () => ok(t, 'delete', '/users/me/alert_words', HAMLET, { alert_words: ['tea'] }));
    });

    it('drafts (add several, update, remove, synchronization turned off)', async () => {
      const verona = await channelId(t, 'Verona');
      const othello = await userId(t, OTHELLO);
      let ids: number[] = [];
      await verify(
        HAMLET,
        async () => {
          ids = (
            await ok(t, 'post', '/drafts', HAMLET, {
              drafts: [
                { type: 'stream', to: [verona], topic: 'later', content: 'first', timestamp: 1700000100 },
                { type: 'private', to: [othello], topic: '', content: 'second', timestamp: 1700000000 },
              ],
            })
          ).ids as number[];
        },
        { expectedEvents: ['drafts'] },
      );
      await verify(HAMLET, () =>
        ok(t, 'patch', `/drafts/${ids[1]}`, HAMLET, {
          draft: { type: '', to: [], topic: '', content: 'no recipient', timestamp: 1700000200 },
        }),
      );
      await verify(HAMLET, () => ok(t, 'delete', `/drafts/${ids[0]}`, HAMLET));
      // Turning synchronization off deletes the drafts without draft events (as Zulip).
      await verify(HAMLET, () => ok(t, 'patch', '/settings', HAMLET, { enable_drafts_synchronization: false }), {
        expectedEvents: ['user_settings'],
      });
      await verify(HAMLET, () => ok(t, 'patch', '/settings', HAMLET, { enable_drafts_synchronization: true }));
    });

    it('saved_snippets (add, update, remove)', async () => {
      let id = 0;
      await verify(
        HAMLET,
        async () => {
          id = (await ok(t, 'post', '/saved_snippets', HAMLET, { title: 'Greeting', content: 'Hello' }))
            .saved_snippet_id as number;
        },
        { expectedEvents: ['saved_snippets'] },
      );
      await verify(HAMLET, () => ok(t, 'patch', `/saved_snippets/${id}`, HAMLET, { title: 'Hi' }));
      await verify(HAMLET, () => ok(t, 'delete', `/saved_snippets/${id}`, HAMLET));
    });
  });

  describe('scheduled messages and reminders', () => {
    const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
    /** Moves the server's clock past the scheduled times and runs a delivery pass. */
    const deliverNow = async () => {
      const clock = t.app.get(Clock);
      clock.advance(3700_000);
      try {
        await t.app.get(ScheduledDeliveryService).deliverDue();
      } finally {
        clock.reset();
      }
    };

    it('scheduled_messages add, update, remove; delivery; failure', async () => {
      const verona = await channelId(t, 'Verona');
      const othello = await userId(t, OTHELLO);
      let id = 0;
      await verify(
        HAMLET,
        async () => {
          const body = await ok(t, 'post', '/scheduled_messages', HAMLET, {
            type: 'stream',
            to: String(verona),
            topic: 'plans',
            content: 'Later **today**',
            scheduled_delivery_timestamp: inAnHour(),
          });
          id = body.scheduled_message_id as number;
        },
        { expectedEvents: ['scheduled_messages'] },
      );
      await verify(HAMLET, () =>
        ok(t, 'post', '/scheduled_messages', HAMLET, {
          type: 'direct',
          to: JSON.stringify([othello]),
          content: 'A direct one',
          scheduled_delivery_timestamp: inAnHour() - 60,
        }),
      );
      await verify(HAMLET, () =>
        ok(t, 'patch', `/scheduled_messages/${id}`, HAMLET, {
          topic: 'new plans',
          scheduled_delivery_timestamp: inAnHour() - 120,
        }),
      );
      await verify(HAMLET, () =>
        ok(t, 'patch', `/scheduled_messages/${id}`, HAMLET, { type: 'direct', to: `[${othello}]` }),
      );
      await verify(HAMLET, () => ok(t, 'delete', `/scheduled_messages/${id}`, HAMLET));
      // Delivery: the message, and the scheduled message leaves the list.
      await verify(HAMLET, deliverNow, { expectedEvents: ['message', 'scheduled_messages'] });
      // A failure: the row stays, flagged, and Notification Bot says why.
      await ok(t, 'post', '/scheduled_messages', HAMLET, {
        type: 'stream',
        to: String(verona),
        topic: 'doomed',
        content: 'Never sent',
        scheduled_delivery_timestamp: inAnHour(),
      });
      const hamlet = await userId(t, HAMLET);
      // Hamlet loses the right to post there before it falls due.
      const sendGroup = (group: number) =>
        ok(t, 'patch', `/streams/${verona}`, IAGO, { can_send_message_group: JSON.stringify({ new: group }) });
      await sendGroup(await groupId(t, 'role:administrators'));
      try {
        await verify(HAMLET, deliverNow, { expectedEvents: ['message', 'scheduled_messages'] });
      } finally {
        await sendGroup(await groupId(t, 'role:everyone'));
      }
      const [row] = await t.dataSource.query<Array<{ failed: boolean }>>(
        `SELECT failed FROM scheduled_message WHERE sender_id = $1 AND subject = 'doomed'`,
        [hamlet],
      );
      expect(row.failed).toBe(true);
    });

    it('reminders add, remove; delivery', async () => {
      const sent = await ok(t, 'post', '/messages', OTHELLO, {
        type: 'stream',
        to: 'Verona',
        topic: 'reminders',
        content: 'Do not forget',
      });
      let id = 0;
      await verify(
        HAMLET,
        async () => {
          const body = await ok(t, 'post', '/reminders', HAMLET, {
            message_id: sent.id,
            scheduled_delivery_timestamp: inAnHour(),
            note: 'important',
          });
          id = body.reminder_id as number;
        },
        { expectedEvents: ['reminders'] },
      );
      await verify(HAMLET, () => ok(t, 'delete', `/reminders/${id}`, HAMLET));
      await ok(t, 'post', '/reminders', HAMLET, { message_id: sent.id, scheduled_delivery_timestamp: inAnHour() });
      await verify(HAMLET, deliverNow, { expectedEvents: ['message', 'reminders'] });
    });
  });

  it('covers the event types the server emits today', () => {
    const expected = [
      'realm/update',
      'realm/update_dict',
      'realm_user_settings_defaults/update',
      'realm_user/add',
      'realm_user/update',
      'realm_user/remove',
      'custom_profile_fields',
      'realm_emoji/update',
      'realm_linkifiers',
      'realm_playgrounds',
      'invites_changed',
      'navigation_view/add',
      'navigation_view/update',
      'navigation_view/remove',
      'user_group/add',
      'user_group/update',
      'user_group/add_members',
      'user_group/remove_members',
      'user_group/add_subgroups',
      'user_group/remove_subgroups',
      'subscription/add',
      'subscription/remove',
      'subscription/update',
      'subscription/peer_add',
      'subscription/peer_remove',
      'stream/create',
      'stream/update',
      'stream/delete',
      'default_streams',
      'user_topic',
      'muted_topics',
      'channel_folder/add',
      'channel_folder/update',
      'message',
      'update_message_flags/add',
      'update_message_flags/remove',
      'update_message',
      'delete_message',
      'reaction/add',
      'reaction/remove',
      'submessage',
      'typing/start',
      'user_status',
      'user_settings/update',
      'presence',
      'alert_words',
      'drafts/add',
      'drafts/update',
      'drafts/remove',
      'saved_snippets/add',
      'saved_snippets/update',
      'saved_snippets/remove',
      'scheduled_messages/add',
      'scheduled_messages/update',
      'scheduled_messages/remove',
      'reminders/add',
      'reminders/remove',
    ];
    expect([...covered].sort()).toEqual(expect.arrayContaining(expected));
  });
});
