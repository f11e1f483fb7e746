/**
 * PATCH /realm, setting by setting (table-driven): each valid value round-trips (response,
 * realm event, a fresh /register's realm_* field), each invalid value gets Zulip's exact error
 * and writes nothing, members, moderators and guests are refused, owner-only settings refuse
 * administrators; another realm is unaffected; a request with one bad parameter writes nothing.
 */
import { RealmService } from '../../../src/realm/realm.service';
import { Role } from '../../../src/realm/system-groups';
import { UsersService } from '../../../src/users/users.service';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { channelId, expectError } from '../../helpers/api';
import { api, DESDEMONA, events, groupId, HAMLET, IAGO, POLONIUS, queue, SHIVA } from '../users/helpers';

const LEAR = 'goneril@lear.example';
const json = (value: unknown) => JSON.stringify(value);

interface SettingCase {
  name: string;
  /** Two values, sent in turn (each as the client sends it: strings raw, others as JSON). */
  values: [unknown, unknown];
  /** What /register's realm_<name> shows for a sent value (default: the value). */
  state?: (sent: unknown) => unknown;
  /** The response's value for a change (default: "updated" for strings, else the value). */
  response?: (sent: unknown) => unknown;
  /** The event a change sends (default: op update with the stored value). */
  event?: (sent: unknown) => Record<string, unknown>;
  /** Invalid values and Zulip's texts (code BAD_REQUEST unless given). */
  invalid: Array<[unknown, string, string?]>;
  ownerOnly?: boolean;
  /** /register field when it is not realm_<name>. */
  stateKey?: string;
}

const update = (property: string) => (value: unknown) => ({ type: 'realm', op: 'update', property, value });
const updateDict = (property: string) => (value: unknown) => ({
  type: 'realm',
  op: 'update_dict',
  property: 'default',
  data: { [property]: value },
});

const boolCase = (name: string, extra: Partial<SettingCase> = {}): SettingCase => ({
  name,
  values: [true, false],
  invalid: [
    [json('yes'), `${name} is not a boolean`],
    ['yes', `${name} is not valid JSON`],
  ],
  ...extra,
});

describe('PATCH /realm: every setting', () => {
  let t: TestApp;
  let verona: number;
  const cases: SettingCase[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const lear = await t.app.get(RealmService).createRealm({ stringId: 'lear', name: 'Lear & Co' });
    await t.app.get(UsersService).createUser(lear, { email: LEAR, fullName: 'Goneril', role: Role.OWNER });
    verona = await channelId(t, 'Verona');
  });
  afterAll(() => t.close());

  const UNLIMITED = json('unlimited');
  cases.push(
    boolCase('allow_message_editing', { event: updateDict('allow_message_editing') }),
    boolCase('avatar_changes_disabled'),
    boolCase('digest_emails_enabled'),
    boolCase('disallow_disposable_email_addresses', { ownerOnly: true }),
    boolCase('email_changes_disabled'),
    boolCase('emails_restricted_to_domains', { ownerOnly: true }),
    boolCase('enable_guest_user_dm_warning'),
    boolCase('enable_guest_user_indicator'),
    boolCase('enable_read_receipts'),
    boolCase('enable_spectator_access'),
    boolCase('inline_image_preview'),
    boolCase('inline_url_embed_preview'),
    boolCase('invite_required', { ownerOnly: true }),
    boolCase('message_content_allowed_in_email_notifications'),
    boolCase('name_changes_disabled'),
    boolCase('require_e2ee_push_notifications'),
    boolCase('require_unique_names'),
    boolCase('send_welcome_emails'),
    boolCase('want_advertise_in_communities_directory'),
    {
      name: 'default_code_block_language',
      values: ['python', ''],
      invalid: [],
    },
    {
      name: 'default_language',
      values: ['de', 'en'],
      invalid: [
        ['xx', "Invalid language 'xx'"],
        ['EN', "Invalid language 'EN'"],
      ],
    },
    {
      name: 'description',
      values: ['The *first* one', 'Second'],
      state: (v) => (v === 'Second' ? '<p>Second</p>' : '<p>The <em>first</em> one</p>'),
      event: (v) => update('description')(v),
      invalid: [['x'.repeat(1001), 'description is too long (limit: 1000 characters)']],
    },
    {
      name: 'name',
      values: ['Zulip One', 'Zulip Two'],
      invalid: [['x'.repeat(41), 'name is too long (limit: 40 characters)']],
    },
    {
      name: 'digest_weekday',
      values: [3, 6],
      invalid: [
        [7, 'Invalid digest_weekday'],
        [-1, 'Invalid digest_weekday'],
        [json('monday'), 'digest_weekday is not an integer'],
      ],
    },
    {
      name: 'giphy_rating',
      values: [0, 5],
      invalid: [
        [6, 'Invalid giphy_rating 6'],
        [-1, 'Invalid giphy_rating -1'],
      ],
    },
    {
      name: 'video_chat_provider',
      values: [0, 1],
      invalid: [
        [3, 'Invalid video_chat_provider 3'],
        [2, 'Invalid video_chat_provider 2'],
      ],
    },
    {
      name: 'message_edit_history_visibility_policy',
      values: ['moves', 'none'],
      response: (v) => ({ all: 1, moves: 2, none: 3 })[v as string],
      invalid: [['some', 'Invalid message_edit_history_visibility_policy']],
    },
    {
      name: 'topics_policy',
      values: ['disable_empty_topic', 'allow_empty_topic'],
      response: (v) => (v === 'allow_empty_topic' ? 2 : 3),
      event: (v) => ({
        type: 'realm',
        op: 'update_dict',
        property: 'default',
        data: { topics_policy: v, mandatory_topics: v === 'disable_empty_topic' },
      }),
      invalid: [['empty_topic_only', 'Invalid topics_policy']],
    },
    {
      name: 'waiting_period_threshold',
      values: [10, 0],
      ownerOnly: true,
      invalid: [
        [-1, 'waiting_period_threshold is too small'],
        [1.5, 'waiting_period_threshold is not an integer'],
      ],
    },
    {
      name: 'welcome_message_custom_text',
      values: ['Welcome to **our** team!', ''],
      invalid: [['x'.repeat(8001), 'welcome_message_custom_text is too long (limit: 8000 characters)']],
    },
    {
      name: 'message_retention_days',
      values: [30, UNLIMITED],
      ownerOnly: true,
      state: (v) => (v === UNLIMITED ? -1 : v),
      response: (v) => (v === UNLIMITED ? -1 : v),
      event: (v) => update('message_retention_days')(v === UNLIMITED ? -1 : v),
      invalid: [
        [0, "Bad value for 'message_retention_days': 0", 'REQUEST_VARIABLE_INVALID'],
        [json('forever'), "Bad value for 'message_retention_days': forever", 'REQUEST_VARIABLE_INVALID'],
      ],
    },
    {
      name: 'message_content_delete_limit_seconds',
      values: [120, UNLIMITED],
      state: (v) => (v === UNLIMITED ? null : v),
      response: (v) => (v === UNLIMITED ? null : v),
      event: (v) => update('message_content_delete_limit_seconds')(v === UNLIMITED ? null : v),
      invalid: [[0, "Bad value for 'message_content_delete_limit_seconds': 0", 'REQUEST_VARIABLE_INVALID']],
    },
    {
      name: 'message_content_edit_limit_seconds',
      values: [900, UNLIMITED],
      state: (v) => (v === UNLIMITED ? null : v),
      response: (v) => (v === UNLIMITED ? null : v),
      event: (v) => updateDict('message_content_edit_limit_seconds')(v === UNLIMITED ? null : v),
      invalid: [[json('soon'), "Bad value for 'message_content_edit_limit_seconds': soon", 'REQUEST_VARIABLE_INVALID']],
    },
    {
      name: 'move_messages_between_streams_limit_seconds',
      values: [3600, UNLIMITED],
      state: (v) => (v === UNLIMITED ? null : v),
      response: (v) => (v === UNLIMITED ? null : v),
      event: (v) => update('move_messages_between_streams_limit_seconds')(v === UNLIMITED ? null : v),
      invalid: [[-5, "Bad value for 'move_messages_between_streams_limit_seconds': -5", 'REQUEST_VARIABLE_INVALID']],
    },
    {
      name: 'jitsi_server_url',
      values: [json('https://jitsi.example.com/'), json('default')],
      state: (v) => (v === json('default') ? null : 'https://jitsi.example.com/'),
      response: (v) => (v === json('default') ? null : 'updated'),
      event: (v) => update('jitsi_server_url')(v === json('default') ? null : 'https://jitsi.example.com/'),
      invalid: [
        [json('not a url'), 'jitsi_server_url is not an allowed_type'],
        [json(`https://example.com/${'x'.repeat(190)}`), 'jitsi_server_url is not an allowed_type'],
        [json('javascript:alert(1)'), 'jitsi_server_url is not an allowed_type'],
        [5, 'jitsi_server_url is not a string'],
      ],
    },
    {
      name: 'org_type',
      values: [30, 90],
      invalid: [
        [15, 'Invalid org_type'],
        [json('business'), 'org_type is not an integer'],
      ],
    },
    {
      name: 'authentication_methods',
      values: [
        { Dev: true, Email: true },
        { Dev: true, Email: false },
      ],
      ownerOnly: true,
      state: (v) =>
        Object.fromEntries(
          Object.entries(v as Record<string, boolean>).map(([k, on]) => [k, { enabled: on, available: true }]),
        ),
      response: (v) => v,
      event: (v) => ({
        type: 'realm',
        op: 'update_dict',
        property: 'default',
        data: {
          authentication_methods: Object.fromEntries(
            Object.entries(v as Record<string, boolean>).map(([k, on]) => [k, { enabled: on, available: true }]),
          ),
        },
      }),
      invalid: [
        [{ GitHub: true }, "Invalid authentication method: GitHub. Valid methods are: ['Dev', 'Email']"],
        [{ Email: false }, 'At least one authentication method must be enabled.'],
        [{ Dev: false, Email: false }, 'At least one authentication method must be enabled.'],
        [[1], 'authentication_methods is not a dict'],
      ],
    },
  );
  for (const name of [
    'new_stream_announcements_stream_id',
    'signup_announcements_stream_id',
    'zulip_update_announcements_stream_id',
  ]) {
    cases.push({
      name,
      // Filled in with channel ids once the app is up (see channelValues).
      values: ['verona', -1],
      invalid: [
        [999999, 'Invalid channel ID'],
        [2 ** 40, 'Invalid channel ID'],
        [json('x'), `${name} is not an integer`],
      ],
    });
  }

  const resolve = (v: unknown): unknown => (v === 'verona' ? verona : v);
  const patch = (params: Record<string, unknown>, email: string) => api(t, 'patch', '/realm', email, params);

  async function realmField(key: string, email = HAMLET): Promise<unknown> {
    const res = await api(t, 'post', '/register', email, { fetch_event_types: ['realm'] });
    expect(res.status).toBe(200);
    return (res.body as Record<string, unknown>)[key];
  }

  /** Lear's /register realm state. */
  async function learState(): Promise<Record<string, unknown>> {
    const res = await t
      .http()
      .post('/api/v1/register')
      .set('Host', 'lear.zulip.testserver')
      .auth(...(await t.auth(LEAR, 'lear')))
      .type('form')
      .send({ fetch_event_types: JSON.stringify(['realm']) });
    expect(res.status).toBe(200);
    const { queue_id: _q, last_event_id: _l, ...state } = res.body as Record<string, unknown>;
    return state;
  }

  it.each(cases.map((c) => [c.name, c] as const))('%s round-trips, with its event', async (_name, c) => {
    const actor = c.ownerOnly ? DESDEMONA : IAGO;
    const key = c.stateKey ?? `realm_${c.name}`;
    const sentValues = c.values.map(resolve);
    // Start from the first value (whatever the realm had), then change it twice.
    expect((await patch({ [c.name]: sentValues[0] }, actor)).status).toBe(200);
    const q = await queue(t, HAMLET, ['realm']);
    for (const sent of [sentValues[1], sentValues[0]]) {
      const res = await patch({ [c.name]: sent }, actor);
      if (res.status !== 200) throw new Error(`${c.name}=${String(sent)}: ${res.status} ${JSON.stringify(res.body)}`);
      const stored = c.state ? c.state(sent) : sent;
      const answer = c.response ? c.response(sent) : typeof sent === 'string' ? 'updated' : sent;
      expect(res.body).toEqual({ result: 'success', msg: '', [c.name]: answer });
      const event = c.event ? c.event(sent) : update(c.name)(stored);
      expect(await events(t, q)).toEqual([event]);
      expect(await realmField(key)).toEqual(stored);
    }
    // The same value again changes nothing (org_type alone is always sent, as in Zulip).
    const again = await patch({ [c.name]: sentValues[0] }, actor);
    if (c.name === 'org_type') {
      expect(await events(t, q)).toHaveLength(1);
    } else {
      expect(again.body).toEqual({ result: 'success', msg: '' });
      expect(await events(t, q)).toEqual([]);
    }
  });

  it.each(cases.filter((c) => c.invalid.length > 0).map((c) => [c.name, c] as const))(
    '%s: invalid values get Zulip errors and change nothing',
    async (_name, c) => {
      const actor = c.ownerOnly ? DESDEMONA : IAGO;
      const key = c.stateKey ?? `realm_${c.name}`;
      const before = await realmField(key);
      const q = await queue(t, HAMLET, ['realm']);
      for (const [value, msg, code] of c.invalid) {
        expectError(await patch({ [c.name]: value }, actor), 400, msg, code);
      }
      expect(await events(t, q)).toEqual([]);
      expect(await realmField(key)).toEqual(before);
    },
  );

  it.each(cases.map((c) => [c.name, c] as const))('%s: refused to members, moderators and guests', async (_n, c) => {
    const value = resolve(c.values[1]);
    for (const email of [HAMLET, SHIVA, POLONIUS]) {
      expectError(
        await patch({ [c.name]: value }, email),
        400,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    }
    if (c.ownerOnly) {
      expectError(
        await patch({ [c.name]: value }, IAGO),
        400,
        'Must be an organization owner',
        'UNAUTHORIZED_PRINCIPAL',
      );
    }
  });

  it('owner checks come before the value checks that follow them, and after those before', async () => {
    // default_language is checked before the owner-only settings; the time limits after.
    expectError(await patch({ default_language: 'xx', invite_required: true }, IAGO), 400, "Invalid language 'xx'");
    expectError(
      await patch({ invite_required: true, message_content_edit_limit_seconds: 0 }, IAGO),
      400,
      'Must be an organization owner',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectError(
      await patch({ authentication_methods: { GitHub: true } }, IAGO),
      400,
      'Must be an organization owner',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectError(await patch({ video_chat_provider: 9, giphy_rating: 9 }, IAGO), 400, 'Invalid video_chat_provider 9');
  });

  it('string_id: owners only, and only demo organizations (this server has none)', async () => {
    expectError(
      await patch({ string_id: 'newzulip' }, IAGO),
      400,
      'Must be an organization owner',
      'UNAUTHORIZED_PRINCIPAL',
    );
    expectError(await patch({ string_id: 'newzulip' }, DESDEMONA), 400, 'Must be a demo organization.');
    expectError(
      await patch({ string_id: 'x'.repeat(41) }, DESDEMONA),
      400,
      'string_id is too long (limit: 40 characters)',
    );
  });

  it('the moderation request channel must be private', async () => {
    expectError(
      await patch({ moderation_request_channel_id: verona }, IAGO),
      400,
      'Moderation request channel must be private.',
    );
  });

  it('a request with one invalid parameter writes nothing and sends nothing', async () => {
    const name = await realmField('realm_name');
    const giphy = await realmField('realm_giphy_rating');
    const q = await queue(t, HAMLET, ['realm']);
    // Invalid before anything is written...
    expectError(await patch({ name: 'Atomic', default_language: 'xx' }, IAGO), 400, "Invalid language 'xx'");
    // ... and invalid only once the earlier settings were applied (channel settings come last).
    expectError(
      await patch({ name: 'Atomic', giphy_rating: 4, signup_announcements_stream_id: 999999 }, IAGO),
      400,
      'Invalid channel ID',
    );
    expectError(
      await patch({ name: 'Atomic', can_resolve_topics_group: { new: 999999 } }, IAGO),
      400,
      'Invalid user group',
    );
    expectError(await patch({ name: 'Atomic', string_id: 'other' }, DESDEMONA), 400, 'Must be a demo organization.');
    expect(await events(t, q)).toEqual([]);
    expect(await realmField('realm_name')).toBe(name);
    expect(await realmField('realm_giphy_rating')).toBe(giphy);
  });

  it('several settings in one request: one event each, in Zulip order, org_type last', async () => {
    const q = await queue(t, HAMLET, ['realm']);
    await patch({ org_type: 10, giphy_rating: 2, video_chat_provider: 1, default_code_block_language: '' }, IAGO);
    await events(t, q);
    const res = await patch(
      {
        org_type: 20,
        video_chat_provider: 0,
        giphy_rating: 3,
        default_code_block_language: 'rust',
        can_set_topics_policy_group: { new: await groupId(t, 'role:moderators') },
      },
      IAGO,
    );
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      default_code_block_language: 'updated',
      giphy_rating: 3,
      video_chat_provider: 0,
      can_set_topics_policy_group: await groupId(t, 'role:moderators'),
      org_type: 20,
    });
    expect(
      (await events(t, q)).map((e) => (e.op === 'update' ? e.property : Object.keys(e.data as object)[0])),
    ).toEqual([
      'default_code_block_language',
      'giphy_rating',
      'video_chat_provider',
      'can_set_topics_policy_group',
      'org_type',
    ]);
  });

  it('another realm is unaffected', async () => {
    const before = await learState();
    expect(before.realm_name).toBe('Lear & Co');
    await patch({ name: 'Only Zulip', giphy_rating: 1, default_language: 'fr', org_type: 60 }, IAGO);
    await patch({ authentication_methods: { Email: false, Dev: true }, waiting_period_threshold: 9 }, DESDEMONA);
    expect(await learState()).toEqual(before);
    expect(await realmField('realm_giphy_rating')).toBe(1);
    await patch({ authentication_methods: { Email: true, Dev: true } }, DESDEMONA);
  });

  it('GET /server_settings shows the name, description, public access and authentication methods', async () => {
    await patch({ name: 'Shown Name', description: 'Shown *here*', enable_spectator_access: true }, IAGO);
    await patch({ authentication_methods: { Email: false, Dev: true } }, DESDEMONA);
    let body = (await t.http().get('/api/v1/server_settings')).body as Record<string, unknown>;
    expect(body).toMatchObject({
      realm_name: 'Shown Name',
      realm_description: '<p>Shown <em>here</em></p>',
      realm_web_public_access_enabled: true,
      email_auth_enabled: false,
    });
    expect(body.authentication_methods).toMatchObject({ password: false, email: false });
    expect(await realmField('realm_password_auth_enabled')).toBe(false);
    expect(await realmField('realm_email_auth_enabled')).toBe(false);
    await patch({ enable_spectator_access: false }, IAGO);
    await patch({ authentication_methods: { Email: true } }, DESDEMONA);
    body = (await t.http().get('/api/v1/server_settings')).body as Record<string, unknown>;
    expect(body).toMatchObject({ realm_web_public_access_enabled: false, email_auth_enabled: true });
    expect(body.authentication_methods).toMatchObject({ password: true, email: true });
  });
});

describe('POST /realm/test_welcome_bot_custom_message', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const send = (params: Record<string, unknown>, email = IAGO) =>
    api(t, 'post', '/realm/test_welcome_bot_custom_message', email, params);

  it('sends the text to the caller as a direct message from Welcome Bot', async () => {
    const text = 'Welcome Bot custom message for testing';
    const res = await send({ welcome_message_custom_text: text });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', message_id: expect.any(Number) });
    const rows = await t.dataSource.query<Array<{ content: string; sender: string; to_user: string }>>(
      `SELECT m.content, s.delivery_email AS sender, r.delivery_email AS to_user
         FROM message m JOIN user_profile s ON s.id = m.sender_id
         JOIN user_message um ON um.message_id = m.id JOIN user_profile r ON r.id = um.user_profile_id
        WHERE m.id = $1 AND r.id <> s.id`,
      [res.body.message_id],
    );
    expect(rows).toEqual([{ content: expect.stringContaining(text), sender: 'welcome-bot@zulip.com', to_user: IAGO }]);
  });

  it('checks the text and the caller', async () => {
    expectError(await send({ welcome_message_custom_text: '' }), 400, 'Message must not be empty');
    expectError(
      await send({ welcome_message_custom_text: 'x'.repeat(8001) }),
      400,
      'welcome_message_custom_text is too long (limit: 8000 characters)',
    );
    expectError(await send({}), 400, "Missing 'welcome_message_custom_text' argument", 'REQUEST_VARIABLE_MISSING');
    for (const email of [HAMLET, SHIVA, POLONIUS]) {
      expectError(
        await send({ welcome_message_custom_text: 'Hi' }, email),
        400,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    }
  });
});
