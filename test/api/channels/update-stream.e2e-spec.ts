import { expectMatchesOpenApi } from '../../helpers/openapi';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, channelId, expectError, expectSuccess, openQueue, systemGroupId, takeEvents, userId } from './helpers';

const HAMLET = 'hamlet@zulip.com';
const OTHELLO = 'othello@zulip.com';
const IAGO = 'iago@zulip.com';
const DESDEMONA = 'desdemona@zulip.com';
const POLONIUS = 'polonius@zulip.com';
const CORDELIA = 'cordelia@zulip.com';

type Channel = Record<string, unknown>;

describe('PATCH and DELETE /streams/{stream_id}', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT: 'off' });
    ids = {};
    for (const e of [HAMLET, OTHELLO, IAGO, DESDEMONA, POLONIUS, CORDELIA]) ids[e] = await userId(t, e);
  });
  afterAll(() => t.close());

  const patch = async (email: string, name: string | number, params: Record<string, unknown>) => {
    const id = typeof name === 'number' ? name : await channelId(t, name);
    const res = await call(t, 'patch', `/streams/${id}`, email, params);
    expectMatchesOpenApi('patch', '/streams/{stream_id}', res.status, res.body);
    return res;
  };
  const create = async (email: string, name: string, params: Record<string, unknown> = {}) =>
    expectSuccess(await call(t, 'post', '/users/me/subscriptions', email, { subscriptions: [{ name }], ...params }));
  const get = async (name: string, email = IAGO): Promise<Channel> => {
    const res = await call(t, 'get', `/streams/${await channelId(t, name)}`, email);
    expect(res.status).toBe(200);
    return (res.body as { stream: Channel }).stream;
  };

  describe('who may change a channel', () => {
    it('organization administrators and channel administrators; others are told', async () => {
      await create(HAMLET, 'hamlet own');
      expectSuccess(await patch(HAMLET, 'hamlet own', { description: 'mine' }));
      expectSuccess(await patch(IAGO, 'Verona', { description: 'A city' }));
      expectError(
        await patch(OTHELLO, 'Verona', { description: 'x' }),
        400,
        'You do not have permission to administer this channel.',
      );
      expectError(
        await patch(OTHELLO, 'hamlet own', { description: 'x' }),
        400,
        'You do not have permission to administer this channel.',
      );
    });

    it('does not reveal private channels to outsiders', async () => {
      expectError(await patch(OTHELLO, 'core team', { description: 'x' }), 400, 'Invalid channel ID');
      expectError(await patch(POLONIUS, 'Denmark', { description: 'x' }), 400, 'Invalid channel ID');
      expectError(await patch(OTHELLO, 999999, { description: 'x' }), 400, 'Invalid channel ID');
    });

    it('members of can_administer_channel_group administer a private channel without being subscribed', async () => {
      await create(DESDEMONA, 'admin group private', {
        invite_only: true,
        can_administer_channel_group: { direct_members: [ids[OTHELLO]], direct_subgroups: [] },
      });
      expectSuccess(await patch(OTHELLO, 'admin group private', { new_name: 'renamed by othello' }));
    });
  });

  describe('description and name', () => {
    it('description: newlines become spaces, rendered, sent to everyone who sees the channel', async () => {
      const othelloQ = await openQueue(t, OTHELLO, ['stream']);
      const guestQ = await openQueue(t, POLONIUS, ['stream']);
      const cordeliaQ = await openQueue(t, CORDELIA, ['stream']);
      expectSuccess(await patch(IAGO, 'Verona', { description: 'Fair\nVerona <3' }));
      const expected = {
        type: 'stream',
        op: 'update',
        stream_id: await channelId(t, 'Verona'),
        name: 'Verona',
        property: 'description',
        value: 'Fair Verona <3',
        rendered_description: '<p>Fair Verona &lt;3</p>',
      };
      expect(await takeEvents(t, othelloQ)).toEqual([expected]);
      expect(await takeEvents(t, guestQ)).toEqual([expected]); // polonius is subscribed to Verona
      expect(await takeEvents(t, cordeliaQ)).toEqual([expected]);
      expect(await get('Verona')).toMatchObject({
        description: 'Fair Verona <3',
        rendered_description: '<p>Fair Verona &lt;3</p>',
      });
    });

    it('description: too long', async () => {
      expectError(
        await patch(IAGO, 'Verona', { description: 'x'.repeat(1025) }),
        400,
        'description is too long (limit: 1024 characters)',
      );
    });

    it('private channel descriptions only reach those who can see the channel', async () => {
      const othelloQ = await openQueue(t, OTHELLO, ['stream']);
      const iagoQ = await openQueue(t, IAGO, ['stream']);
      expectSuccess(await patch(DESDEMONA, 'core team', { description: 'Core' }));
      expect(await takeEvents(t, othelloQ)).toEqual([]);
      expect(await takeEvents(t, iagoQ)).toHaveLength(1);
    });

    it('renames, with the old name in the event', async () => {
      await create(HAMLET, 'to rename');
      const q = await openQueue(t, OTHELLO, ['stream']);
      const id = await channelId(t, 'to rename');
      expectSuccess(await patch(HAMLET, id, { new_name: '  renamed  ' }));
      expect(await takeEvents(t, q)).toEqual([
        { type: 'stream', op: 'update', stream_id: id, name: 'to rename', property: 'name', value: 'renamed' },
      ]);
      expectSuccess(await patch(HAMLET, id, { new_name: 'Renamed' }));
      expect((await get('Renamed')).name).toBe('Renamed');
    });

    it.each([
      ['Denmark', 409, "Channel 'Denmark' already exists", 'CHANNEL_ALREADY_EXISTS'],
      ['DENMARK', 409, "Channel 'DENMARK' already exists", 'CHANNEL_ALREADY_EXISTS'],
      ['Verona', 400, 'Channel already has that name.', 'BAD_REQUEST'],
      ['a'.repeat(61), 400, 'Channel name too long (limit: 60 characters).', 'BAD_REQUEST'],
      ['bad\u0000name', 400, 'Invalid character in channel name, at position 4.', 'BAD_REQUEST'],
      ['  ', 400, "Channel name can't be empty.", 'BAD_REQUEST'],
    ])('renaming Verona to %j → %i %s', async (newName, status, msg, code) => {
      const res = await call(t, 'patch', `/streams/${await channelId(t, 'Verona')}`, IAGO, { new_name: newName });
      expectError(res, status, msg, code);
    });

    it('concurrent renames to the same name: one wins, the other gets 409', async () => {
      await create(HAMLET, 'rename race a');
      await create(HAMLET, 'rename race b');
      const [a, b] = await Promise.all([
        call(t, 'patch', `/streams/${await channelId(t, 'rename race a')}`, HAMLET, { new_name: 'winner' }),
        call(t, 'patch', `/streams/${await channelId(t, 'rename race b')}`, HAMLET, { new_name: 'winner' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      expect([a, b].find((r) => r.status === 409)!.body).toMatchObject({ code: 'CHANNEL_ALREADY_EXISTS' });
    });
  });

  describe('access settings', () => {
    it('public → private: subscribers keep it, the event carries the history setting', async () => {
      await create(HAMLET, 'going private', { principals: [ids[HAMLET], ids[OTHELLO]] });
      const q = await openQueue(t, OTHELLO, ['stream']);
      expectSuccess(await patch(HAMLET, 'going private', { is_private: true }));
      expect(await takeEvents(t, q)).toEqual([
        {
          type: 'stream',
          op: 'update',
          stream_id: await channelId(t, 'going private'),
          name: 'going private',
          property: 'invite_only',
          value: true,
          history_public_to_subscribers: false,
          is_web_public: false,
        },
      ]);
      expect(await get('going private', HAMLET)).toMatchObject({
        invite_only: true,
        history_public_to_subscribers: false,
      });
    });

    it('private → public: the channel is announced to those who could not see it', async () => {
      await create(HAMLET, 'going public', { invite_only: true, history_public_to_subscribers: true });
      const cordeliaQ = await openQueue(t, CORDELIA, ['stream', 'subscription']);
      const iagoQ = await openQueue(t, IAGO, ['stream', 'subscription']);
      expectSuccess(await patch(HAMLET, 'going public', { is_private: false }));
      const id = await channelId(t, 'going public');
      const cordelia = await takeEvents(t, cordeliaQ);
      expect(cordelia).toEqual([
        expect.objectContaining({ type: 'stream', op: 'create' }),
        { type: 'subscription', op: 'peer_add', stream_ids: [id], user_ids: [ids[HAMLET]] },
      ]);
      expect(await takeEvents(t, iagoQ)).toEqual([
        expect.objectContaining({ type: 'stream', op: 'update', property: 'invite_only', value: false }),
      ]);
    });

    it('web-public needs the permission; owners may', async () => {
      expectError(await patch(IAGO, 'Denmark', { is_web_public: true }), 400, 'Insufficient permission');
      expectSuccess(await patch(DESDEMONA, 'Denmark', { is_web_public: true }));
      expect(await get('Denmark')).toMatchObject({ is_web_public: true });
      expectSuccess(await patch(DESDEMONA, 'Denmark', { is_web_public: false }));
    });

    it.each([
      [{ is_web_public: true, is_private: true }, 'Invalid parameters'],
      [{ history_public_to_subscribers: false }, 'Invalid parameters'],
      [{ is_private: true, history_public_to_subscribers: false, is_web_public: true }, 'Invalid parameters'],
    ])('%j → %s', async (params, msg) => {
      expectError(await patch(DESDEMONA, 'Scotland', params), 400, msg);
    });

    it('a default channel cannot be private', async () => {
      expectError(await patch(IAGO, 'Verona', { is_private: true }), 400, 'A default channel cannot be private.');
      expectError(
        await patch(DESDEMONA, 'core team', { is_default_stream: true }),
        400,
        'A default channel cannot be private.',
      );
    });

    it('the moderation request channel stays private', async () => {
      expectError(
        await patch(DESDEMONA, 'core team', { is_private: false }),
        400,
        'Moderation request channel must be private.',
      );
    });

    it('changing privacy needs content access, even for administrators', async () => {
      expectError(await patch(CORDELIA, 'renamed by othello', { is_private: false }), 400, 'Invalid channel ID');
      // iago may still rename it (metadata access suffices)…
      await create(DESDEMONA, 'admins see only', { invite_only: true, history_public_to_subscribers: true });
      expectSuccess(await patch(IAGO, 'admins see only', { description: 'seen' }));
      // …but not make it public.
      expectError(
        await patch(IAGO, 'admins see only', { is_private: false }),
        400,
        'Channel content access is required.',
      );
    });

    it('default channels are for administrators', async () => {
      await create(HAMLET, 'maybe default');
      expectError(
        await patch(HAMLET, 'maybe default', { is_default_stream: true }),
        400,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
      const q = await openQueue(t, OTHELLO, ['default_streams']);
      expectSuccess(await patch(IAGO, 'maybe default', { is_default_stream: true }));
      const [event] = await takeEvents(t, q);
      expect(event.default_streams).toContain(await channelId(t, 'maybe default'));
      expectSuccess(await patch(IAGO, 'maybe default', { is_default_stream: false }));
    });
  });

  describe('other settings', () => {
    it('message_retention_days is for owners', async () => {
      expectError(
        await patch(IAGO, 'Scotland', { message_retention_days: 7 }),
        400,
        'Must be an organization owner',
        'UNAUTHORIZED_PRINCIPAL',
      );
      const q = await openQueue(t, OTHELLO, ['stream']);
      expectSuccess(await patch(DESDEMONA, 'Scotland', { message_retention_days: 7 }));
      expect(await takeEvents(t, q)).toEqual([
        expect.objectContaining({ property: 'message_retention_days', value: 7 }),
      ]);
      expectSuccess(await patch(DESDEMONA, 'Scotland', { message_retention_days: 'unlimited' }));
      expect((await get('Scotland')).message_retention_days).toBe(-1);
      expectSuccess(await patch(DESDEMONA, 'Scotland', { message_retention_days: 'realm_default' }));
      expect((await get('Scotland')).message_retention_days).toBeNull();
      expectError(
        await patch(DESDEMONA, 'Scotland', { message_retention_days: 'soon' }),
        400,
        "Bad value for 'message_retention_days': soon",
      );
    });

    it('topics_policy', async () => {
      const q = await openQueue(t, OTHELLO, ['stream']);
      expectSuccess(await patch(IAGO, 'Zulip', { topics_policy: 'empty_topic_only' }));
      expect(await takeEvents(t, q)).toEqual([
        expect.objectContaining({ property: 'topics_policy', value: 'empty_topic_only' }),
      ]);
      expect((await get('Zulip')).topics_policy).toBe('empty_topic_only');
      // Setting the same value again changes nothing and sends nothing.
      expectSuccess(await patch(IAGO, 'Zulip', { topics_policy: 'empty_topic_only' }));
      expect(await takeEvents(t, q)).toEqual([]);
      expectError(await patch(IAGO, 'Zulip', { topics_policy: 'never' }), 400, 'Invalid topics_policy');
    });

    it('folder_id: into a folder and out of it', async () => {
      const res = await call(t, 'post', '/channel_folders/create', IAGO, { name: 'Cities', description: 'Places' });
      const folder = (res.body as { channel_folder_id: number }).channel_folder_id;
      const q = await openQueue(t, OTHELLO, ['stream']);
      expectSuccess(await patch(IAGO, 'Venice', { folder_id: folder }));
      expect((await get('Venice')).folder_id).toBe(folder);
      expectSuccess(await patch(IAGO, 'Venice', { folder_id: null }));
      expect((await get('Venice')).folder_id).toBeNull();
      expect((await takeEvents(t, q)).map((e) => e.value)).toEqual([folder, null]);
      expectError(await patch(IAGO, 'Venice', { folder_id: 999999 }), 400, 'Invalid channel folder ID');
      expectError(await patch(IAGO, 'Venice', { folder_id: 'x' }), 400, 'folder_id is not valid JSON');
      expectError(await patch(IAGO, 'Venice', { folder_id: 'true' }), 400, 'folder_id is not an integer');
    });
  });

  describe('group settings', () => {
    it('can_send_message_group also updates the legacy stream_post_policy', async () => {
      const admins = await systemGroupId(t, 'role:administrators');
      const q = await openQueue(t, OTHELLO, ['stream']);
      expectSuccess(await patch(IAGO, 'sandbox', { can_send_message_group: { new: admins } }));
      const events = await takeEvents(t, q);
      expect(events.map((e) => [e.property, e.value])).toEqual([
        ['can_send_message_group', admins],
        ['stream_post_policy', 2],
        ['is_announcement_only', true],
      ]);
      expect(await get('sandbox')).toMatchObject({
        can_send_message_group: admins,
        stream_post_policy: 2,
        is_announcement_only: true,
      });
    });

    it('checks the expected old value', async () => {
      const everyone = await systemGroupId(t, 'role:everyone');
      const admins = await systemGroupId(t, 'role:administrators');
      const res = await patch(IAGO, 'sandbox', { can_send_message_group: { new: everyone, old: everyone } });
      expectError(res, 400, "'old' value does not match the expected value.", 'EXPECTATION_MISMATCH');
      expectSuccess(await patch(IAGO, 'sandbox', { can_send_message_group: { new: everyone, old: admins } }));
      expect((await get('sandbox')).stream_post_policy).toBe(1);
    });

    it('no event when the value does not change', async () => {
      const everyone = await systemGroupId(t, 'role:everyone');
      const q = await openQueue(t, OTHELLO, ['stream']);
      expectSuccess(
        await patch(IAGO, 'sandbox', {
          can_send_message_group: { new: { direct_members: [], direct_subgroups: [everyone] } },
        }),
      );
      expect(await takeEvents(t, q)).toEqual([]);
    });

    it('anonymous groups: set, replaced, and the old one deleted', async () => {
      await create(HAMLET, 'anon settings');
      const before = await t.dataSource.query<
        Array<{
          g: number;
        }>
      >(`SELECT can_administer_channel_group AS g FROM stream WHERE name = 'anon settings'`);
      expectSuccess(
        await patch(HAMLET, 'anon settings', {
          can_administer_channel_group: { new: { direct_members: [ids[HAMLET], ids[OTHELLO]], direct_subgroups: [] } },
        }),
      );
      expect((await get('anon settings')).can_administer_channel_group).toEqual({
        direct_members: [ids[HAMLET], ids[OTHELLO]].sort((a, b) => a - b),
        direct_subgroups: [],
      });
      const gone = await t.dataSource.query<unknown[]>(`SELECT 1 FROM user_group WHERE id = $1`, [before[0].g]);
      expect(gone).toHaveLength(0);
    });

    it.each([
      [{ can_send_message_group: 5 }, 'can_send_message_group is not a dict'],
      [{ can_send_message_group: { old: 5 } }, 'can_send_message_group["new"] field is missing: Field required'],
      [{ can_send_message_group: { new: 1, extra: 2 } }, 'Argument "extra" at can_send_message_group is unexpected'],
      [{ can_send_message_group: { new: 999999 } }, 'Invalid user group'],
    ])('%j → %s', async (params, msg) => {
      expectError(await patch(IAGO, 'sandbox', params), 400, msg);
    });

    it('refuses role:everyone where the setting forbids it', async () => {
      const res = await patch(IAGO, 'sandbox', {
        can_administer_channel_group: { new: await systemGroupId(t, 'role:everyone') },
      });
      expectError(res, 400, "'can_administer_channel_group' setting cannot be set to 'role:everyone' group.");
    });

    it('can_subscribe_group and can_add_subscribers_group need content access', async () => {
      const res = await patch(IAGO, 'admins see only', {
        can_subscribe_group: { new: { direct_members: [ids[IAGO]], direct_subgroups: [] } },
      });
      expectError(res, 400, 'Channel content access is required.');
      const nobody = await systemGroupId(t, 'role:nobody');
      expectSuccess(await patch(IAGO, 'admins see only', { can_remove_subscribers_group: { new: nobody } }));
    });

    it('granting metadata access announces the channel to the new members', async () => {
      await create(HAMLET, 'grant access', { invite_only: true });
      const othelloQ = await openQueue(t, OTHELLO, ['stream', 'subscription']);
      const hamletQ = await openQueue(t, HAMLET, ['stream', 'subscription']);
      expectSuccess(
        await patch(HAMLET, 'grant access', {
          can_add_subscribers_group: { new: { direct_members: [ids[OTHELLO]], direct_subgroups: [] } },
        }),
      );
      const id = await channelId(t, 'grant access');
      expect(await takeEvents(t, othelloQ)).toEqual([
        expect.objectContaining({ type: 'stream', op: 'create' }),
        { type: 'subscription', op: 'peer_add', stream_ids: [id], user_ids: [ids[HAMLET]] },
      ]);
      expect(await takeEvents(t, hamletQ)).toEqual([
        expect.objectContaining({
          type: 'stream',
          op: 'update',
          property: 'can_add_subscribers_group',
          value: { direct_members: [ids[OTHELLO]], direct_subgroups: [] },
        }),
      ]);
      // And removing it takes the channel away.
      const nobody = await systemGroupId(t, 'role:nobody');
      expectSuccess(await patch(HAMLET, 'grant access', { can_add_subscribers_group: { new: nobody } }));
      expect(await takeEvents(t, othelloQ)).toEqual([
        { type: 'stream', op: 'delete', streams: [{ stream_id: id }], stream_ids: [id] },
      ]);
    });
  });

  describe('archiving and unarchiving', () => {
    it('DELETE needs channel administration', async () => {
      const res = await call(t, 'delete', `/streams/${await channelId(t, 'Denmark')}`, OTHELLO);
      expectError(res, 400, 'You do not have permission to administer this channel.');
      expectMatchesOpenApi('delete', '/streams/{stream_id}', 400, res.body);
      expectError(
        await call(t, 'delete', `/streams/${await channelId(t, 'core team')}`, OTHELLO),
        400,
        'Invalid channel ID',
      );
    });

    it('archives: events by client capability, default and announcement settings cleared', async () => {
      const modern = await openQueue(t, OTHELLO, ['stream', 'default_streams', 'realm'], { archived_channels: true });
      const legacy = await openQueue(t, OTHELLO, ['stream', 'default_streams', 'realm']);
      const id = await channelId(t, 'Verona');
      const res = await call(t, 'delete', `/streams/${id}`, IAGO);
      expectSuccess(res);
      expectMatchesOpenApi('delete', '/streams/{stream_id}', 200, res.body);
      const realmEvent = {
        type: 'realm',
        op: 'update_dict',
        property: 'default',
        data: { new_stream_announcements_stream_id: -1 },
      };
      const modernEvents = await takeEvents(t, modern);
      expect(modernEvents).toEqual([
        realmEvent,
        { type: 'default_streams', default_streams: expect.not.arrayContaining([id]) as unknown },
        { type: 'stream', op: 'update', stream_id: id, name: 'Verona', property: 'is_archived', value: true },
      ]);
      expect(await takeEvents(t, legacy)).toEqual([
        realmEvent,
        expect.objectContaining({ type: 'default_streams' }),
        { type: 'stream', op: 'delete', streams: [{ stream_id: id }], stream_ids: [id] },
      ]);
      const rows = await t.dataSource.query<
        Array<{
          v: number | null;
        }>
      >(`SELECT new_stream_announcements_stream_id AS v FROM realm WHERE string_id = 'zulip'`);
      expect(rows[0].v).toBeNull();
      expectError(await call(t, 'delete', `/streams/${id}`, IAGO), 400, 'Channel is already deactivated');
    });

    it('an archived channel keeps its subscribers and settings can still be changed', async () => {
      expectSuccess(await patch(IAGO, 'Verona', { description: 'Archived city' }));
    });

    it('unarchives with is_archived=false', async () => {
      const modern = await openQueue(t, OTHELLO, ['stream'], { archived_channels: true });
      const legacy = await openQueue(t, OTHELLO, ['stream']);
      const id = await channelId(t, 'Verona');
      expectSuccess(await patch(IAGO, 'Verona', { is_archived: false }));
      expect(await takeEvents(t, modern)).toEqual([
        { type: 'stream', op: 'update', stream_id: id, name: 'Verona', property: 'is_archived', value: false },
      ]);
      expect(await takeEvents(t, legacy)).toEqual([
        { type: 'stream', op: 'create', streams: [expect.objectContaining({ stream_id: id, is_archived: false })] },
      ]);
      expectError(await patch(IAGO, 'Verona', { is_archived: false }), 400, 'Channel is not currently deactivated');
    });

    it('a private channel without subscribers cannot be unarchived', async () => {
      await create(HAMLET, 'lonely', { invite_only: true });
      expectSuccess(await call(t, 'delete', '/users/me/subscriptions', HAMLET, { subscriptions: ['lonely'] }));
      expectSuccess(await call(t, 'delete', `/streams/${await channelId(t, 'lonely')}`, HAMLET));
      expectError(
        await patch(HAMLET, 'lonely', { is_archived: false }),
        400,
        'Channel is private and have no subscribers',
      );
    });

    it('archiving the moderation request channel clears it', async () => {
      const q = await openQueue(t, HAMLET, ['realm']);
      expectSuccess(await call(t, 'delete', `/streams/${await channelId(t, 'core team')}`, DESDEMONA));
      expect(await takeEvents(t, q)).toEqual([
        { type: 'realm', op: 'update_dict', property: 'default', data: { moderation_request_channel_id: -1 } },
      ]);
    });
  });
});
