import { expectError, expectSuccess, systemGroupIds } from '../../helpers/api';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { api, DESDEMONA, events, HAMLET, IAGO, POLONIUS, queue, SHIVA, userId } from '../users/helpers';

/** Time limits are JSON: an integer or the JSON string "unlimited". */
const UNLIMITED = JSON.stringify('unlimited');

/** PATCH /realm is not in the OpenAPI document we have; error bodies are checked exactly here. */
describe('PATCH /realm', () => {
  let t: TestApp;
  const sys: Record<string, number> = {};
  beforeAll(async () => {
    t = await startTestApp();
    Object.assign(sys, await systemGroupIds(t));
  });
  afterAll(() => t.close());

  const patch = (params: Record<string, unknown>, email = IAGO) => api(t, 'patch', '/realm', email, params);

  async function expectOk(params: Record<string, unknown>, email = IAGO): Promise<Record<string, unknown>> {
    return expectSuccess(await patch(params, email));
  }

  async function expectErr(params: Record<string, unknown>, msg: string, code = 'BAD_REQUEST', email = IAGO) {
    const res = await patch(params, email);
    expectError(res, 400, msg, code);
    return res.body as Record<string, unknown>;
  }

  async function realmState(email = HAMLET): Promise<Record<string, unknown>> {
    const res = await api(t, 'post', '/register', email, { fetch_event_types: ['realm'] });
    expect(res.status).toBe(200);
    return res.body as Record<string, unknown>;
  }

  async function channelId(name: string): Promise<number> {
    const rows = await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM stream WHERE name = $1`, [name]);
    return rows[0].id;
  }

  it('changes message editing settings with Zulip events and returns what changed', async () => {
    const q = await queue(t, HAMLET, ['realm']);
    const body = await expectOk({
      allow_message_editing: false,
      message_content_edit_limit_seconds: 1200,
      message_content_delete_limit_seconds: UNLIMITED,
      move_messages_within_stream_limit_seconds: 3600,
      move_messages_between_streams_limit_seconds: UNLIMITED,
    });
    expect(body).toEqual({
      result: 'success',
      msg: '',
      allow_message_editing: false,
      message_content_edit_limit_seconds: 1200,
      message_content_delete_limit_seconds: null,
      move_messages_within_stream_limit_seconds: 3600,
      move_messages_between_streams_limit_seconds: null,
    });
    expect(await events(t, q)).toEqual([
      { type: 'realm', op: 'update', property: 'message_content_delete_limit_seconds', value: null },
      { type: 'realm', op: 'update', property: 'move_messages_between_streams_limit_seconds', value: null },
      { type: 'realm', op: 'update_dict', property: 'default', data: { allow_message_editing: false } },
      { type: 'realm', op: 'update_dict', property: 'default', data: { message_content_edit_limit_seconds: 1200 } },
      { type: 'realm', op: 'update', property: 'move_messages_within_stream_limit_seconds', value: 3600 },
    ]);
    expect(await realmState()).toMatchObject({
      realm_allow_message_editing: false,
      realm_message_content_edit_limit_seconds: 1200,
      realm_message_content_delete_limit_seconds: null,
      realm_move_messages_within_stream_limit_seconds: 3600,
      realm_move_messages_between_streams_limit_seconds: null,
    });
    // Nothing changes: nothing is returned or sent.
    const again = await expectOk({
      allow_message_editing: false,
      message_content_edit_limit_seconds: 1200,
      message_content_delete_limit_seconds: UNLIMITED,
    });
    expect(again).toEqual({ result: 'success', msg: '' });
    expect(await events(t, q)).toEqual([]);
    await expectOk({ allow_message_editing: true, message_content_edit_limit_seconds: UNLIMITED });
    expect(await events(t, q)).toEqual([
      { type: 'realm', op: 'update_dict', property: 'default', data: { message_content_edit_limit_seconds: null } },
      { type: 'realm', op: 'update_dict', property: 'default', data: { allow_message_editing: true } },
    ]);
  });

  it.each([
    ['message_content_edit_limit_seconds', 0],
    ['message_content_edit_limit_seconds', -10],
    ['message_content_delete_limit_seconds', 'forever'],
    ['move_messages_within_stream_limit_seconds', 'never'],
    ['move_messages_between_streams_limit_seconds', 0],
  ])('rejects %s = %j', async (name, value) => {
    const body = await expectErr(
      { [name]: JSON.stringify(value) },
      `Bad value for '${name}': ${String(value)}`,
      'REQUEST_VARIABLE_INVALID',
    );
    expect(body).toMatchObject({ var_name: name, bad_value: value });
  });

  it('checks parameter types', async () => {
    await expectErr(
      { message_content_edit_limit_seconds: 'unlimited' },
      'message_content_edit_limit_seconds is not valid JSON',
    );
    await expectErr(
      { message_content_edit_limit_seconds: 1.5 },
      'message_content_edit_limit_seconds is not an integer',
    );
    await expectErr({ allow_message_editing: 'nope' }, 'allow_message_editing is not valid JSON');
    await expectErr({ name: 'x'.repeat(41) }, 'name is too long (limit: 40 characters)');
    await expectErr({ description: 'x'.repeat(1001) }, 'description is too long (limit: 1000 characters)');
    await expectErr({ topics_policy: 'empty_topic_only' }, 'Invalid topics_policy');
    await expectErr({ moderation_request_channel_id: '"x"' }, 'moderation_request_channel_id is not an integer');
  });

  it('changes the name, description and topics policy', async () => {
    const q = await queue(t, HAMLET, ['realm']);
    const body = await expectOk({
      name: 'Zulip Test',
      description: 'A *new* description',
      topics_policy: 'disable_empty_topic',
    });
    expect(body).toEqual({ result: 'success', msg: '', description: 'updated', name: 'updated', topics_policy: 3 });
    expect(await events(t, q)).toEqual([
      { type: 'realm', op: 'update', property: 'description', value: 'A *new* description' },
      { type: 'realm', op: 'update', property: 'name', value: 'Zulip Test' },
      {
        type: 'realm',
        op: 'update_dict',
        property: 'default',
        data: { topics_policy: 'disable_empty_topic', mandatory_topics: true },
      },
    ]);
    expect(await realmState()).toMatchObject({
      realm_name: 'Zulip Test',
      realm_topics_policy: 'disable_empty_topic',
      realm_mandatory_topics: true,
    });
    const settings = await t.http().get('/api/v1/server_settings');
    expect(settings.body.realm_name).toBe('Zulip Test');
    await expectOk({ name: 'Zulip Dev', topics_policy: 'allow_empty_topic' });
  });

  it('changes realm group settings with {new, old} and update_dict events', async () => {
    const q = await queue(t, HAMLET, ['realm']);
    const body = await expectOk({
      can_delete_any_message_group: { new: sys.moderators, old: sys.administrators },
      can_add_custom_emoji_group: {
        new: { direct_members: [await userId(t, HAMLET)], direct_subgroups: [sys.moderators] },
      },
    });
    const anonymous = { direct_members: [await userId(t, HAMLET)], direct_subgroups: [sys.moderators] };
    expect(body).toEqual({
      result: 'success',
      msg: '',
      can_add_custom_emoji_group: anonymous,
      can_delete_any_message_group: sys.moderators,
    });
    expect(await events(t, q)).toEqual([
      { type: 'realm', op: 'update_dict', property: 'default', data: { can_add_custom_emoji_group: anonymous } },
      { type: 'realm', op: 'update_dict', property: 'default', data: { can_delete_any_message_group: sys.moderators } },
    ]);
    expect(await realmState()).toMatchObject({
      realm_can_delete_any_message_group: sys.moderators,
      realm_can_add_custom_emoji_group: anonymous,
    });
    // The same value again, or {[], [g]} for g, is no change.
    const same = await expectOk({
      can_delete_any_message_group: { new: { direct_members: [], direct_subgroups: [sys.moderators] } },
    });
    expect(same).toEqual({ result: 'success', msg: '' });
    expect(await events(t, q)).toEqual([]);
    // {[], []} is role:nobody.
    const nobody = await expectOk({
      can_add_custom_emoji_group: { new: { direct_members: [], direct_subgroups: [] } },
    });
    expect(nobody.can_add_custom_emoji_group).toBe(sys.nobody);
  });

  it('checks group settings', async () => {
    await expectErr(
      { can_delete_any_message_group: { new: sys.members, old: sys.owners } },
      "'old' value does not match the expected value.",
      'EXPECTATION_MISMATCH',
    );
    await expectErr(
      { can_delete_any_message_group: { new: sys.everyone } },
      "'can_delete_any_message_group' setting cannot be set to 'role:everyone' group.",
    );
    await expectErr(
      { can_resolve_topics_group: { new: sys.internet } },
      "'can_resolve_topics_group' setting cannot be set to 'role:internet' group.",
    );
    await expectErr(
      { can_create_web_public_channel_group: { new: sys.members } },
      "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.",
    );
    await expectErr(
      { can_access_all_users_group: { new: { direct_members: [await userId(t, HAMLET)], direct_subgroups: [] } } },
      "'can_access_all_users_group' must be a system user group.",
      'SYSTEM_GROUP_REQUIRED',
    );
    await expectErr(
      { can_access_all_users_group: { new: sys.moderators } },
      "'can_access_all_users_group' setting cannot be set to 'role:moderators' group.",
    );
    await expectErr(
      { can_manage_all_groups: { new: sys.nobody } },
      "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.",
      'BAD_REQUEST',
      DESDEMONA,
    );
    await expectErr({ can_resolve_topics_group: { new: 999999 } }, 'Invalid user group');
    await expectErr(
      { can_resolve_topics_group: { new: { direct_members: [99999], direct_subgroups: [] } } },
      'Invalid user ID: 99999',
    );
    await expectErr({ can_resolve_topics_group: sys.members }, 'can_resolve_topics_group is not a dict');
    // A failed setting leaves the others of the request unchanged.
    await expectErr({ allow_message_editing: false, can_resolve_topics_group: { new: 999999 } }, 'Invalid user group');
    expect((await realmState()).realm_allow_message_editing).toBe(true);
  });

  it('needs an administrator, and an owner for some settings', async () => {
    for (const email of [HAMLET, SHIVA, POLONIUS]) {
      await expectErr({ name: 'x' }, 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL', email);
    }
    for (const setting of [
      'can_create_groups',
      'can_invite_users_group',
      'can_manage_all_groups',
      'can_manage_billing_group',
      'create_multiuse_invite_group',
    ]) {
      await expectErr(
        { [setting]: { new: sys.administrators } },
        'Must be an organization owner',
        'UNAUTHORIZED_PRINCIPAL',
      );
    }
    const body = await expectOk({ can_invite_users_group: { new: sys.administrators } }, DESDEMONA);
    expect(body.can_invite_users_group).toBe(sys.administrators);
  });

  it('sets the moderation request channel to a private channel, or none with -1', async () => {
    const q = await queue(t, HAMLET, ['realm']);
    const core = await channelId('core team');
    expect((await realmState()).realm_moderation_request_channel_id).toBe(core);
    expect(await expectOk({ moderation_request_channel_id: -1 })).toMatchObject({ moderation_request_channel_id: -1 });
    expect((await realmState()).realm_moderation_request_channel_id).toBe(-1);
    expect(await expectOk({ moderation_request_channel_id: core })).toMatchObject({
      moderation_request_channel_id: core,
    });
    expect(await events(t, q)).toEqual([
      { type: 'realm', op: 'update', property: 'moderation_request_channel_id', value: -1 },
      { type: 'realm', op: 'update', property: 'moderation_request_channel_id', value: core },
    ]);
    await expectErr(
      { moderation_request_channel_id: await channelId('Verona') },
      'Moderation request channel must be private.',
    );
    await expectErr({ moderation_request_channel_id: 999999 }, 'Invalid channel ID');
    await expectErr({ moderation_request_channel_id: 2 ** 40 }, 'Invalid channel ID');
    expect((await realmState()).realm_moderation_request_channel_id).toBe(core);
  });

  it('reports unsupported parameters', async () => {
    // bot_creation_policy was replaced by can_create_bots_group (Zulip dropped the parameter).
    const body = await expectOk({ allow_message_editing: true, bot_creation_policy: 1 });
    expect(body.ignored_parameters_unsupported).toEqual(['bot_creation_policy']);
  });
});
