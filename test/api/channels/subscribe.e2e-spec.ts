import { CORDELIA, DESDEMONA, HAMLET, IAGO, OTHELLO, POLONIUS, SHIVA } from '../../helpers/api';
import { expectMatchesOpenApi } from '../../helpers/openapi';
import { countQueries } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  call,
  channelId,
  expectError,
  expectSuccess,
  openQueue,
  subscribedNames,
  systemGroupId,
  takeEvents,
  userId,
} from './helpers';

describe('POST /users/me/subscriptions', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    ids = {};
    for (const email of [HAMLET, OTHELLO, IAGO, DESDEMONA, POLONIUS, SHIVA, CORDELIA, 'prospero@zulip.com']) {
      ids[email] = await userId(t, email);
    }
  });
  afterAll(() => t.close());

  const subscribe = (email: string, params: Record<string, unknown>) =>
    call(t, 'post', '/users/me/subscriptions', email, params);

  async function getChannel(id: number, email = IAGO) {
    const res = await call(t, 'get', `/streams/${id}`, email);
    expect(res.status).toBe(200);
    expectMatchesOpenApi('get', '/streams/{stream_id}', 200, res.body);
    return (res.body as { stream: Record<string, unknown> }).stream;
  }

  describe('creating channels', () => {
    it('creates a public channel with Zulip defaults and subscribes the caller', async () => {
      const res = await subscribe(HAMLET, {
        subscriptions: [{ name: '  new public  ', description: 'First line\nsecond <b>line</b>' }],
      });
      expectSuccess(res);
      expectMatchesOpenApi('post', '/users/me/subscriptions', 200, res.body);
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        subscribed: { [String(ids[HAMLET])]: ['new public'] },
        already_subscribed: {},
        new_subscription_messages_sent: true,
      });
      const id = await channelId(t, 'new public');
      const ch = await getChannel(id);
      expect(ch).toMatchObject({
        stream_id: id,
        name: 'new public',
        description: 'First line second <b>line</b>',
        rendered_description: '<p>First line second &lt;b&gt;line&lt;/b&gt;</p>',
        creator_id: ids[HAMLET],
        invite_only: false,
        is_web_public: false,
        history_public_to_subscribers: true,
        is_archived: false,
        message_retention_days: null,
        topics_policy: 'inherit',
        // The demo realm sends a "channel events" notice into new channels: that is the first message.
        first_message_id: expect.any(Number),
        folder_id: null,
        stream_post_policy: 1,
        is_announcement_only: false,
        stream_weekly_traffic: null,
        subscriber_count: 1,
        can_administer_channel_group: { direct_members: [ids[HAMLET]], direct_subgroups: [] },
        can_add_subscribers_group: await systemGroupId(t, 'role:nobody'),
        can_subscribe_group: await systemGroupId(t, 'role:nobody'),
        can_remove_subscribers_group: await systemGroupId(t, 'role:administrators'),
        can_send_message_group: await systemGroupId(t, 'role:everyone'),
        can_delete_any_message_group: await systemGroupId(t, 'role:nobody'),
        can_resolve_topics_group: await systemGroupId(t, 'role:nobody'),
      });
      expect(await subscribedNames(t, HAMLET)).toContain('new public');
    });

    it('creates a private channel with protected history by default, and with every creation parameter', async () => {
      const folder = await call(t, 'post', '/channel_folders/create', IAGO, { name: 'Engineering', description: '' });
      const folderId = (folder.body as { channel_folder_id: number }).channel_folder_id;
      const members = await systemGroupId(t, 'role:members');
      const res = await subscribe(DESDEMONA, {
        subscriptions: [{ name: 'secret plans', description: 'Shh', color: '#123456' }],
        invite_only: true,
        message_retention_days: 30,
        topics_policy: 'disable_empty_topic',
        can_add_subscribers_group: { direct_members: [ids[IAGO]], direct_subgroups: [] },
        can_remove_subscribers_group: members,
        can_administer_channel_group: { direct_members: [], direct_subgroups: [members] },
        can_delete_any_message_group: await systemGroupId(t, 'role:administrators'),
        can_delete_own_message_group: members,
        can_move_messages_out_of_channel_group: members,
        can_move_messages_within_channel_group: members,
        can_send_message_group: await systemGroupId(t, 'role:administrators'),
        can_subscribe_group: { direct_members: [ids[OTHELLO], ids[HAMLET]], direct_subgroups: [] },
        can_resolve_topics_group: members,
        folder_id: folderId,
      });
      expectSuccess(res);
      const id = await channelId(t, 'secret plans');
      const ch = await getChannel(id, DESDEMONA);
      expect(ch).toMatchObject({
        invite_only: true,
        history_public_to_subscribers: false,
        message_retention_days: 30,
        topics_policy: 'disable_empty_topic',
        folder_id: folderId,
        can_add_subscribers_group: { direct_members: [ids[IAGO]], direct_subgroups: [] },
        can_remove_subscribers_group: members,
        can_administer_channel_group: members,
        can_send_message_group: await systemGroupId(t, 'role:administrators'),
        stream_post_policy: 2,
        is_announcement_only: true,
        can_subscribe_group: {
          direct_members: [ids[HAMLET], ids[OTHELLO]].sort((a, b) => a - b),
          direct_subgroups: [],
        },
      });
      const subs = await call(t, 'get', '/users/me/subscriptions', DESDEMONA);
      const sub = (subs.body as { subscriptions: Array<Record<string, unknown>> }).subscriptions.find(
        (s) => s.name === 'secret plans',
      );
      expect(sub?.color).toBe('#123456');
    });

    it('can make a private channel with shared history', async () => {
      expectSuccess(
        await subscribe(HAMLET, {
          subscriptions: [{ name: 'shared history' }],
          invite_only: true,
          history_public_to_subscribers: true,
        }),
      );
      const ch = await getChannel(await channelId(t, 'shared history'), HAMLET);
      expect(ch).toMatchObject({ invite_only: true, history_public_to_subscribers: true });
    });

    it('ignores history_public_to_subscribers=false for public channels', async () => {
      expectSuccess(
        await subscribe(HAMLET, { subscriptions: [{ name: 'public history' }], history_public_to_subscribers: false }),
      );
      expect(await getChannel(await channelId(t, 'public history'))).toMatchObject({
        history_public_to_subscribers: true,
      });
    });

    it('makes default channels when an administrator asks', async () => {
      expectSuccess(await subscribe(IAGO, { subscriptions: [{ name: 'newcomers' }], is_default_stream: true }));
      const res = await call(t, 'get', '/streams', IAGO, { include_default: true });
      const ch = (res.body as { streams: Array<Record<string, unknown>> }).streams.find((s) => s.name === 'newcomers');
      expect(ch?.is_default).toBe(true);
    });

    it('lets owners create web-public channels and set retention to unlimited', async () => {
      expectSuccess(
        await subscribe(DESDEMONA, {
          subscriptions: [{ name: 'open web' }],
          is_web_public: true,
          message_retention_days: 'unlimited',
        }),
      );
      expect(await getChannel(await channelId(t, 'open web'))).toMatchObject({
        is_web_public: true,
        message_retention_days: -1,
      });
    });

    it('accepts message_retention_days=realm_default from anyone', async () => {
      expectSuccess(
        await subscribe(HAMLET, {
          subscriptions: [{ name: 'realm default' }],
          message_retention_days: 'realm_default',
        }),
      );
      expect(await getChannel(await channelId(t, 'realm default'))).toMatchObject({ message_retention_days: null });
    });

    it('treats names case-insensitively: an existing channel is not created twice', async () => {
      const res = await subscribe(OTHELLO, { subscriptions: [{ name: 'VERONA' }, { name: 'verona' }] });
      expectSuccess(res);
      expect(res.body).toMatchObject({ subscribed: {}, already_subscribed: { [String(ids[OTHELLO])]: ['Verona'] } });
    });
  });

  describe('subscribing', () => {
    it('reports channels the user was already subscribed to', async () => {
      const res = await subscribe(HAMLET, { subscriptions: [{ name: 'Verona' }, { name: 'Scotland' }] });
      expectSuccess(res);
      expectMatchesOpenApi('post', '/users/me/subscriptions', 200, res.body);
      expect(res.body).toMatchObject({
        subscribed: { [String(ids[HAMLET])]: ['Scotland'] },
        already_subscribed: { [String(ids[HAMLET])]: ['Verona'] },
      });
    });

    it('subscribes other users given by id or by email', async () => {
      const res = await subscribe(IAGO, {
        subscriptions: [{ name: 'Venice' }],
        principals: [ids[OTHELLO], ids['prospero@zulip.com']],
      });
      expect(res.body).toMatchObject({
        subscribed: { [String(ids[OTHELLO])]: ['Venice'] },
        already_subscribed: { [String(ids['prospero@zulip.com'])]: ['Venice'] },
      });
      const byEmail = await subscribe(IAGO, {
        subscriptions: [{ name: 'Venice' }],
        principals: ['CORDELIA@zulip.com'],
      });
      expect(byEmail.body).toMatchObject({ subscribed: { [String(ids[CORDELIA])]: ['Venice'] } });
    });

    it('re-activates an old subscription and keeps its settings', async () => {
      expectSuccess(
        await call(t, 'post', '/users/me/subscriptions/properties', OTHELLO, {
          subscription_data: [{ stream_id: await channelId(t, 'Denmark'), property: 'color', value: '#abcdef' }],
        }),
      );
      expectSuccess(await call(t, 'delete', '/users/me/subscriptions', OTHELLO, { subscriptions: ['Denmark'] }));
      const res = await subscribe(OTHELLO, { subscriptions: [{ name: 'Denmark' }] });
      expect(res.body).toMatchObject({ subscribed: { [String(ids[OTHELLO])]: ['Denmark'] } });
      const subs = await call(t, 'get', '/users/me/subscriptions', OTHELLO);
      const sub = (subs.body as { subscriptions: Array<Record<string, unknown>> }).subscriptions.find(
        (s) => s.name === 'Denmark',
      );
      expect(sub?.color).toBe('#abcdef');
    });

    it('lets members of can_add_subscribers_group subscribe others to a private channel they are not in', async () => {
      expectSuccess(
        await subscribe(DESDEMONA, {
          subscriptions: [{ name: 'adders only' }],
          invite_only: true,
          can_add_subscribers_group: { direct_members: [ids[HAMLET]], direct_subgroups: [] },
        }),
      );
      const res = await subscribe(HAMLET, { subscriptions: [{ name: 'adders only' }], principals: [ids[OTHELLO]] });
      expectSuccess(res);
      expect(res.body).toMatchObject({ subscribed: { [String(ids[OTHELLO])]: ['adders only'] } });
      expect(await subscribedNames(t, HAMLET)).not.toContain('adders only');
    });

    it('lets members of can_subscribe_group join a private channel', async () => {
      // 'secret plans' has can_subscribe_group = hamlet and othello.
      const res = await subscribe(OTHELLO, { subscriptions: [{ name: 'secret plans' }] });
      expect(res.body).toMatchObject({ subscribed: { [String(ids[OTHELLO])]: ['secret plans'] } });
    });

    it('reports channels the caller cannot access when authorization errors are not fatal', async () => {
      const res = await subscribe(OTHELLO, {
        subscriptions: [{ name: 'core team' }, { name: 'Verona' }],
        authorization_errors_fatal: false,
      });
      expectSuccess(res);
      expectMatchesOpenApi('post', '/users/me/subscriptions', 200, res.body);
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        subscribed: {},
        already_subscribed: { [String(ids[OTHELLO])]: ['Verona'] },
        unauthorized: ['core team'],
        new_subscription_messages_sent: true,
      });
    });

    it('omits new_subscription_messages_sent when the caller asks for no notifications', async () => {
      const res = await subscribe(HAMLET, {
        subscriptions: [{ name: 'Verona' }],
        send_new_subscription_messages: false,
      });
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        subscribed: {},
        already_subscribed: { [String(ids[HAMLET])]: ['Verona'] },
      });
    });
  });

  describe('errors', () => {
    it.each([
      [{}, 400, "Missing 'subscriptions' argument", 'REQUEST_VARIABLE_MISSING'],
      [{ subscriptions: 'not json' }, 400, 'subscriptions is not valid JSON', 'BAD_REQUEST'],
      [{ subscriptions: { name: 'x' } }, 400, 'subscriptions is not a list', 'BAD_REQUEST'],
      [
        { subscriptions: ['x'] },
        400,
        'Invalid subscriptions[0]: Input should be a valid dictionary or instance of AddSubscriptionData',
        'BAD_REQUEST',
      ],
      [
        { subscriptions: [{ description: 'x' }] },
        400,
        'subscriptions[0]["name"] field is missing: Field required',
        'BAD_REQUEST',
      ],
      [{ subscriptions: [{ name: 5 }] }, 400, 'subscriptions[0]["name"] is not a string', 'BAD_REQUEST'],
      [
        { subscriptions: [{ name: 'x', color: 'red' }] },
        400,
        'Invalid subscriptions[0]: Value error, add.color is not a valid hex color code',
        'BAD_REQUEST',
      ],
      [
        { subscriptions: [{ name: 'x', description: 'd'.repeat(1025) }] },
        400,
        'subscriptions[0]["description"] is too long (limit: 1024 characters)',
        'BAD_REQUEST',
      ],
      [
        { subscriptions: [{ name: 'a'.repeat(61) }] },
        400,
        'Channel name too long (limit: 60 characters).',
        'BAD_REQUEST',
      ],
      [{ subscriptions: [{ name: 'abc\0' }] }, 400, 'Invalid character in channel name, at position 4.', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: '   ' }] }, 400, "Channel name can't be empty.", 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'x' }], invite_only: 'yes' }, 400, 'invite_only is not valid JSON', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'x' }], announce: 1 }, 400, 'announce is not a boolean', 'BAD_REQUEST'],
      [
        { subscriptions: [{ name: 'x' }], principals: [1, 'a'] },
        400,
        'principals["list[str]"][0] is not a string',
        'BAD_REQUEST',
      ],
      [{ subscriptions: [{ name: 'x' }], principals: 'a' }, 400, 'principals is not valid JSON', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'x' }], topics_policy: 'sometimes' }, 400, 'Invalid topics_policy', 'BAD_REQUEST'],
      [
        { subscriptions: [{ name: 'x' }], message_retention_days: 'forever' },
        400,
        "Bad value for 'message_retention_days': forever",
        'BAD_REQUEST',
      ],
      [
        { subscriptions: [{ name: 'x' }], message_retention_days: 0 },
        400,
        "Bad value for 'message_retention_days': 0",
        'BAD_REQUEST',
      ],
      [{ subscriptions: [{ name: 'x' }], folder_id: 999999 }, 400, 'Invalid channel folder ID', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'x' }], folder_id: 'x' }, 400, 'folder_id is not valid JSON', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'x' }], principals: [999999] }, 400, 'No such user', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'x' }], principals: ['nobody@zulip.com'] }, 400, 'No such user', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'x' }], principals: [1] }, 400, 'No such user', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'core team' }] }, 400, 'Unable to access channel (core team).', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'x' }], is_default_stream: true }, 400, 'Insufficient permission', 'BAD_REQUEST'],
      [{ subscriptions: [{ name: 'x' }], is_web_public: true }, 400, 'Insufficient permission', 'BAD_REQUEST'],
      [
        { subscriptions: [{ name: 'x' }], message_retention_days: 'unlimited' },
        400,
        'Must be an organization owner',
        'UNAUTHORIZED_PRINCIPAL',
      ],
      [{ subscriptions: [{ name: 'x' }], can_add_subscribers_group: 999999 }, 400, 'Invalid user group', 'BAD_REQUEST'],
      [
        {
          subscriptions: [{ name: 'x' }],
          can_administer_channel_group: { direct_members: [999999], direct_subgroups: [] },
        },
        400,
        'Invalid user ID: 999999',
        'BAD_REQUEST',
      ],
    ])('%j → %i %s', async (params, status, msg, code) => {
      const res = await subscribe(OTHELLO, params);
      expectError(res, status, msg, code);
      // The endpoint's documented 400 shape has no room for REQUEST_VARIABLE_MISSING's var_name.
      if (code !== 'REQUEST_VARIABLE_MISSING')
        expectMatchesOpenApi('post', '/users/me/subscriptions', status, res.body);
    });

    it('does not create anything when a request fails', async () => {
      await subscribe(OTHELLO, { subscriptions: [{ name: 'never made' }], is_default_stream: true });
      const rows = await t.dataSource.query<unknown[]>(`SELECT 1 FROM stream WHERE name = 'never made'`);
      expect(rows).toHaveLength(0);
    });

    it('refuses guests before reading parameters', async () => {
      expectError(await subscribe(POLONIUS, {}), 400, 'Not allowed for guest users');
      expectError(
        await subscribe(POLONIUS, { subscriptions: [{ name: 'Verona' }] }),
        400,
        'Not allowed for guest users',
      );
    });

    it('refuses role:everyone where the setting does not allow it', async () => {
      const res = await subscribe(HAMLET, {
        subscriptions: [{ name: 'x' }],
        can_add_subscribers_group: await systemGroupId(t, 'role:everyone'),
      });
      expectError(res, 400, "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.");
    });

    it('requires can_set_delete_message_policy for the deletion settings', async () => {
      const members = await systemGroupId(t, 'role:members');
      expectError(
        await subscribe(HAMLET, { subscriptions: [{ name: 'del' }], can_delete_own_message_group: members }),
        400,
        'Insufficient permission',
      );
      expectSuccess(
        await subscribe(SHIVA, { subscriptions: [{ name: 'del' }], can_delete_own_message_group: members }),
      );
    });

    it('requires everyone to create topics in a channel with protected history', async () => {
      const res = await subscribe(HAMLET, {
        subscriptions: [{ name: 'protected topics' }],
        invite_only: true,
        can_create_topic_group: await systemGroupId(t, 'role:members'),
      });
      expectError(res, 400, 'Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group');
      expect(res.body).toMatchObject({ parameters: 'history_public_to_subscribers, can_create_topic_group' });
    });

    it('refuses administrators a private default channel', async () => {
      expectError(
        await subscribe(IAGO, {
          subscriptions: [{ name: 'private default' }],
          invite_only: true,
          is_default_stream: true,
        }),
        400,
        'A default channel cannot be private.',
      );
    });

    it('refuses deactivated principals', async () => {
      await t.dataSource.query(`UPDATE user_profile SET is_active = false WHERE id = $1`, [ids['prospero@zulip.com']]);
      try {
        expectError(
          await subscribe(IAGO, { subscriptions: [{ name: 'Verona' }], principals: [ids['prospero@zulip.com']] }),
          400,
          'User is deactivated',
        );
        expectError(
          await subscribe(IAGO, { subscriptions: [{ name: 'Verona' }], principals: ['prospero@zulip.com'] }),
          400,
          'User is deactivated',
        );
      } finally {
        await t.dataSource.query(`UPDATE user_profile SET is_active = true WHERE id = $1`, [ids['prospero@zulip.com']]);
      }
    });

    it('refuses web-public channels when the realm has spectator access off', async () => {
      await t.dataSource.query(`UPDATE realm SET enable_spectator_access = false WHERE string_id = 'zulip'`);
      try {
        expectError(
          await subscribe(DESDEMONA, { subscriptions: [{ name: 'web off' }], is_web_public: true }),
          400,
          'Web-public channels are not enabled.',
        );
      } finally {
        await t.dataSource.query(`UPDATE realm SET enable_spectator_access = true WHERE string_id = 'zulip'`);
      }
    });

    it('follows the realm settings for creating channels, topics policies and subscribing others', async () => {
      const admins = await systemGroupId(t, 'role:administrators');
      const members = await systemGroupId(t, 'role:members');
      await t.dataSource.query(
        `UPDATE realm SET can_create_public_channel_group = $1, can_create_private_channel_group = $1,
                          can_set_topics_policy_group = $1, can_add_subscribers_group = $1 WHERE string_id = 'zulip'`,
        [admins],
      );
      try {
        expectError(await subscribe(HAMLET, { subscriptions: [{ name: 'nope' }] }), 400, 'Insufficient permission');
        expectError(
          await subscribe(HAMLET, { subscriptions: [{ name: 'nope' }], invite_only: true }),
          400,
          'Insufficient permission',
        );
        expectError(
          await subscribe(HAMLET, { subscriptions: [{ name: 'Verona' }], topics_policy: 'allow_empty_topic' }),
          400,
          'Insufficient permission',
        );
        // "inherit" needs no permission.
        expectSuccess(await subscribe(HAMLET, { subscriptions: [{ name: 'Verona' }], topics_policy: 'inherit' }));
        expectError(
          await subscribe(HAMLET, { subscriptions: [{ name: 'Denmark' }], principals: [ids[CORDELIA]] }),
          400,
          'Insufficient permission',
        );
        expectSuccess(await subscribe(IAGO, { subscriptions: [{ name: 'Denmark' }], principals: [ids[CORDELIA]] }));
      } finally {
        await t.dataSource.query(
          `UPDATE realm SET can_create_public_channel_group = $1, can_create_private_channel_group = $1,
                            can_set_topics_policy_group = $1, can_add_subscribers_group = $1 WHERE string_id = 'zulip'`,
          [members],
        );
      }
    });
  });

  describe('role × channel kind', () => {
    const KINDS: Array<[string, Record<string, unknown>]> = [
      ['kind public', {}],
      ['kind web-public', { is_web_public: true }],
      ['kind private shared', { invite_only: true, history_public_to_subscribers: true }],
      ['kind private protected', { invite_only: true }],
      ['kind archived', {}],
    ];

    beforeAll(async () => {
      for (const [name, params] of KINDS) {
        expectSuccess(await subscribe(DESDEMONA, { subscriptions: [{ name }], ...params }));
      }
      expectSuccess(await call(t, 'delete', `/streams/${await channelId(t, 'kind archived')}`, DESDEMONA));
    });

    // Expected result of subscribing oneself (authorization_errors_fatal=false).
    const EXPECTED: Record<string, Record<string, 'subscribed' | 'unauthorized'>> = {
      [IAGO]: {
        'kind public': 'subscribed',
        'kind web-public': 'subscribed',
        'kind private shared': 'unauthorized',
        'kind private protected': 'unauthorized',
        'kind archived': 'subscribed',
      },
      [SHIVA]: {
        'kind public': 'subscribed',
        'kind web-public': 'subscribed',
        'kind private shared': 'unauthorized',
        'kind private protected': 'unauthorized',
        'kind archived': 'subscribed',
      },
      [OTHELLO]: {
        'kind public': 'subscribed',
        'kind web-public': 'subscribed',
        'kind private shared': 'unauthorized',
        'kind private protected': 'unauthorized',
        'kind archived': 'subscribed',
      },
    };

    it.each(Object.keys(EXPECTED))('%s subscribing to each kind', async (email) => {
      for (const [name] of KINDS) {
        const res = await subscribe(email, { subscriptions: [{ name }], authorization_errors_fatal: false });
        expectSuccess(res);
        const body = res.body as { subscribed: Record<string, string[]>; unauthorized: string[] };
        const outcome = body.unauthorized.includes(name) ? 'unauthorized' : 'subscribed';
        expect([name, outcome]).toEqual([name, EXPECTED[email][name]]);
      }
    });

    it('the owner who created them is subscribed to all', async () => {
      for (const [name] of KINDS) {
        const res = await subscribe(DESDEMONA, { subscriptions: [{ name }] });
        expect(res.body).toMatchObject({ already_subscribed: { [String(ids[DESDEMONA])]: [name] } });
      }
    });

    it('an administrator who is not subscribed cannot add others to a private channel', async () => {
      const res = await subscribe(IAGO, {
        subscriptions: [{ name: 'kind private shared' }],
        principals: [ids[HAMLET]],
      });
      expectError(res, 400, 'Unable to access channel (kind private shared).');
    });

    it('a subscriber adds others to a private channel', async () => {
      const res = await subscribe(DESDEMONA, {
        subscriptions: [{ name: 'kind private protected' }],
        principals: [ids[HAMLET]],
      });
      expect(res.body).toMatchObject({ subscribed: { [String(ids[HAMLET])]: ['kind private protected'] } });
    });
  });

  describe('events', () => {
    it('public channel: creation to non-guests, subscription add to the subscriber, peer_add to the others', async () => {
      const hamletQ = await openQueue(t, HAMLET, ['stream', 'subscription']);
      const othelloQ = await openQueue(t, OTHELLO, ['stream', 'subscription']);
      const guestQ = await openQueue(t, POLONIUS, ['stream', 'subscription']);
      expectSuccess(await subscribe(HAMLET, { subscriptions: [{ name: 'events public' }] }));
      const id = await channelId(t, 'events public');

      const hamletEvents = await takeEvents(t, hamletQ);
      expect(hamletEvents.map((e) => `${String(e.type)}/${String(e.op)}`)).toEqual([
        'stream/create',
        'subscription/add',
      ]);
      expect(hamletEvents[0]).toMatchObject({
        streams: [expect.objectContaining({ stream_id: id, name: 'events public', subscriber_count: 0 })],
      });
      expect(hamletEvents[1]).toMatchObject({
        subscriptions: [
          expect.objectContaining({ stream_id: id, subscribers: [ids[HAMLET]], in_home_view: true, is_muted: false }),
        ],
      });

      const othelloEvents = await takeEvents(t, othelloQ);
      expect(othelloEvents).toEqual([
        expect.objectContaining({ type: 'stream', op: 'create' }),
        { type: 'subscription', op: 'peer_add', stream_ids: [id], user_ids: [ids[HAMLET]] },
      ]);
      expect(await takeEvents(t, guestQ)).toEqual([]);
    });

    it('private channel: creation to administrators and newly subscribed users, peer_add to administrators', async () => {
      const iagoQ = await openQueue(t, IAGO, ['stream', 'subscription']);
      const othelloQ = await openQueue(t, OTHELLO, ['stream', 'subscription']);
      const cordeliaQ = await openQueue(t, CORDELIA, ['stream', 'subscription']);
      expectSuccess(
        await subscribe(HAMLET, {
          subscriptions: [{ name: 'events private' }],
          invite_only: true,
          principals: [ids[HAMLET], ids[OTHELLO]],
        }),
      );
      const id = await channelId(t, 'events private');
      expect(await takeEvents(t, iagoQ)).toEqual([
        expect.objectContaining({ type: 'stream', op: 'create' }),
        { type: 'subscription', op: 'peer_add', stream_ids: [id], user_ids: [ids[HAMLET], ids[OTHELLO]] },
      ]);
      const othelloEvents = await takeEvents(t, othelloQ);
      expect(othelloEvents.map((e) => `${String(e.type)}/${String(e.op)}`)).toEqual([
        'stream/create',
        'subscription/add',
      ]);
      expect(othelloEvents[1]).toMatchObject({
        subscriptions: [expect.objectContaining({ stream_id: id, subscribers: [ids[HAMLET], ids[OTHELLO]] })],
      });
      expect(await takeEvents(t, cordeliaQ)).toEqual([]);
    });

    it('subscribing a guest to a public channel tells the guest the channel exists', async () => {
      const guestQ = await openQueue(t, POLONIUS, ['stream', 'subscription']);
      expectSuccess(await subscribe(IAGO, { subscriptions: [{ name: 'Denmark' }], principals: [ids[POLONIUS]] }));
      const events = await takeEvents(t, guestQ);
      expect(events.map((e) => `${String(e.type)}/${String(e.op)}`)).toEqual(['stream/create', 'subscription/add']);
    });

    it('web-public channels are announced to guests too', async () => {
      const guestQ = await openQueue(t, POLONIUS, ['stream', 'subscription']);
      expectSuccess(await subscribe(DESDEMONA, { subscriptions: [{ name: 'events web' }], is_web_public: true }));
      const id = await channelId(t, 'events web');
      expect(await takeEvents(t, guestQ)).toEqual([
        expect.objectContaining({ type: 'stream', op: 'create' }),
        { type: 'subscription', op: 'peer_add', stream_ids: [id], user_ids: [ids[DESDEMONA]] },
      ]);
    });

    it('default channels changes are sent to non-guests', async () => {
      const q = await openQueue(t, HAMLET, ['default_streams']);
      expectSuccess(await subscribe(IAGO, { subscriptions: [{ name: 'events default' }], is_default_stream: true }));
      const [event] = await takeEvents(t, q);
      expect(event.type).toBe('default_streams');
      expect(event.default_streams).toContain(await channelId(t, 'events default'));
    });

    it('no events for a request that changes nothing', async () => {
      const q = await openQueue(t, HAMLET, ['stream', 'subscription']);
      expectSuccess(await subscribe(HAMLET, { subscriptions: [{ name: 'Verona' }] }));
      expect(await takeEvents(t, q)).toEqual([]);
    });
  });

  describe('query counts', () => {
    it('subscribing or unsubscribing 1 or 7 users costs the same number of queries', async () => {
      expectSuccess(await subscribe(IAGO, { subscriptions: [{ name: 'qc one' }, { name: 'qc two' }] }));
      const others = ['ZOE@zulip.com', CORDELIA, HAMLET, OTHELLO, 'prospero@zulip.com', SHIVA, DESDEMONA];
      const otherIds = await Promise.all(others.map((e) => userId(t, e)));
      const aaron = await userId(t, 'AARON@zulip.com');
      await subscribe(IAGO, { subscriptions: [{ name: 'Verona' }] }); // warm caches
      // Subscribing others sends them notices, rendered with the realm's (cached) linkifiers.
      expectSuccess(
        await call(t, 'post', '/messages', IAGO, { type: 'stream', to: 'Verona', topic: 'warm', content: 'up' }),
      );
      // Each measured request right after a request that refreshes the aged caches (the realm row
      // lives 2 s): on a slow machine an expiry between two measured requests is not a query more.
      const fresh = async <T>(fn: () => Promise<T>) => {
        expectSuccess(await call(t, 'get', '/users/me', IAGO));
        return countQueries(fn);
      };
      const one = await fresh(() => subscribe(IAGO, { subscriptions: [{ name: 'qc one' }], principals: [aaron] }));
      const seven = await fresh(() => subscribe(IAGO, { subscriptions: [{ name: 'qc two' }], principals: otherIds }));
      expectSuccess(one.result);
      expectSuccess(seven.result);
      expect(Object.keys((seven.result.body as { subscribed: object }).subscribed)).toHaveLength(7);
      expect(seven.count).toBe(one.count);

      const leaveOne = await fresh(() =>
        call(t, 'delete', '/users/me/subscriptions', IAGO, { subscriptions: ['qc one'], principals: [aaron] }),
      );
      const leaveSeven = await fresh(() =>
        call(t, 'delete', '/users/me/subscriptions', IAGO, { subscriptions: ['qc two'], principals: otherIds }),
      );
      expectSuccess(leaveSeven.result);
      expect(leaveSeven.count).toBe(leaveOne.count);
    });
  });

  describe('concurrency', () => {
    it('identical concurrent requests create one channel and one subscription', async () => {
      const before = await t.dataSource.query<
        Array<{
          id: number;
        }>
      >(`SELECT coalesce(max(id), 0) AS id FROM user_group`);
      const results = await Promise.all(
        Array.from({ length: 8 }, () => subscribe(HAMLET, { subscriptions: [{ name: 'race' }] })),
      );
      for (const res of results) expectSuccess(res);
      const subscribed = results.filter((r) => Object.keys((r.body as { subscribed: object }).subscribed).length > 0);
      expect(subscribed).toHaveLength(1);
      const channels = await t.dataSource.query<unknown[]>(`SELECT id FROM stream WHERE upper(name) = 'RACE'`);
      expect(channels).toHaveLength(1);
      const subs = await t.dataSource.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM subscription s JOIN stream c ON c.recipient_id = s.recipient_id WHERE c.name = 'race'`,
      );
      expect(subs[0].n).toBe(1);
      // The losers' anonymous groups (can_administer_channel_group) were cleaned up.
      const groups = await t.dataSource.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM user_group WHERE id > $1 AND name IS NULL`,
        [before[0].id],
      );
      expect(groups[0].n).toBe(1);
    });

    it('different users creating the same channel at once both end up subscribed to one channel', async () => {
      const emails = [HAMLET, OTHELLO, CORDELIA, SHIVA];
      const results = await Promise.all(
        emails.map((e) => subscribe(e, { subscriptions: [{ name: 'Race Two' }, { name: 'race three' }] })),
      );
      for (const res of results) expectSuccess(res);
      const rows = await t.dataSource.query<
        Array<{
          name: string;
        }>
      >(`SELECT name FROM stream WHERE upper(name) IN ('RACE TWO', 'RACE THREE') ORDER BY name`);
      expect(rows.map((r) => r.name)).toEqual(['Race Two', 'race three']);
      for (const email of emails)
        expect(await subscribedNames(t, email)).toEqual(expect.arrayContaining(['Race Two', 'race three']));
    });

    it('concurrent subscriptions of many users to the same channel never fail', async () => {
      const results = await Promise.all(
        [HAMLET, OTHELLO, CORDELIA, SHIVA, IAGO].map((e) =>
          subscribe(IAGO, { subscriptions: [{ name: 'Zulip' }], principals: [ids[e], ids[HAMLET], ids[OTHELLO]] }),
        ),
      );
      for (const res of results) expectSuccess(res);
    });
  });
});
