import { AuthService } from '../../../src/users/auth.service';
import { startTestApp, TestApp } from '../../helpers/test-app';
import {
  AARON,
  api,
  CORDELIA,
  DEFAULT_BOT,
  DESDEMONA,
  events,
  expectError,
  expectSuccess,
  groupId,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  queue,
  SHIVA,
  userId,
  ZOE,
} from './helpers';

const BY_ID = '/users/{user_id}';
const BY_EMAIL = '/users/{email}';

describe('administering users', () => {
  let t: TestApp;
  const ids: Record<string, number> = {};
  const fields: Record<string, number> = {};

  beforeAll(async () => {
    t = await startTestApp();
    for (const email of [
      IAGO,
      DESDEMONA,
      SHIVA,
      HAMLET,
      OTHELLO,
      CORDELIA,
      PROSPERO,
      POLONIUS,
      AARON,
      ZOE,
      DEFAULT_BOT,
    ]) {
      ids[email] = await userId(t, email);
    }
    const res = await api(t, 'get', '/realm/profile_fields', IAGO);
    for (const f of res.body.custom_fields as Array<{ id: number; name: string }>) fields[f.name] = f.id;
  });
  afterAll(() => t.close());

  async function getUser(id: number, viewer = IAGO): Promise<Record<string, unknown>> {
    const res = await api(t, 'get', `/users/${id}`, viewer, { include_custom_profile_fields: true });
    return expectSuccess(res, 'get', BY_ID).user as Record<string, unknown>;
  }

  async function setVisibility(email: string, visibility: number): Promise<void> {
    await t.dataSource.query(`UPDATE user_profile SET email_address_visibility = $1 WHERE id = $2`, [
      visibility,
      ids[email],
    ]);
    t.app.get(AuthService).invalidateAll();
  }

  describe('profile_data in user dicts', () => {
    it('has the demo values of iago and hamlet, rendered for text fields', async () => {
      const hamlet = await getUser(ids[HAMLET]);
      const data = hamlet.profile_data as Record<string, { value: string; rendered_value?: string }>;
      expect(data[String(fields['Phone number'])]).toEqual({
        value: '+0-11-23-456-7890',
        rendered_value: '<p>+0-11-23-456-7890</p>',
      });
      expect(data[String(fields.Biography)]).toEqual({
        value: 'I am:\n* The prince of Denmark\n* Nephew to the usurping Claudius',
        rendered_value:
          '<p>I am:</p>\n<ul>\n<li>The prince of Denmark</li>\n<li>Nephew to the usurping Claudius</li>\n</ul>',
      });
      expect(data[String(fields['Favorite editor'])]).toEqual({ value: '0' });
      expect(data[String(fields.Mentor)]).toEqual({ value: `[${ids[IAGO]}]` });
      expect(data[String(fields.GitHub)]).toEqual({ value: 'zulipbot' });
      expect(Object.keys(data)).toHaveLength(9);
      expect((await getUser(ids[OTHELLO])).profile_data).toEqual({});
    });

    it('appears in GET /users and /users/me when asked for', async () => {
      const list = await api(t, 'get', '/users', HAMLET, { include_custom_profile_fields: true });
      const members = expectSuccess(list, 'get', '/users').members as Array<Record<string, unknown>>;
      const iago = members.find((m) => m.user_id === ids[IAGO])!;
      expect((iago.profile_data as Record<string, { value: string }>)[String(fields['Favorite food'])].value).toBe(
        'Apples',
      );
      const plain = await api(t, 'get', '/users', HAMLET);
      expect((plain.body.members as Array<Record<string, unknown>>)[0].profile_data).toBeUndefined();
      const me = expectSuccess(await api(t, 'get', '/users/me', IAGO), 'get', '/users/me');
      expect(Object.keys(me.profile_data as object)).toHaveLength(9);
    });
  });

  describe('GET /users/{email}', () => {
    it('finds users by real or dummy email', async () => {
      const res = await api(t, 'get', `/users/${HAMLET}`, OTHELLO);
      expect(expectSuccess(res, 'get', BY_EMAIL).user).toMatchObject({ user_id: ids[HAMLET], email: HAMLET });
      const dummy = await api(t, 'get', `/users/user${ids[HAMLET]}@zulip.testserver`, OTHELLO);
      expect(expectSuccess(dummy, 'get', BY_EMAIL).user).toMatchObject({ user_id: ids[HAMLET] });
      const withFields = await api(t, 'get', `/users/${IAGO}`, OTHELLO, { include_custom_profile_fields: true });
      expect(Object.keys(withFields.body.user.profile_data as object)).toHaveLength(9);
      expectError(await api(t, 'get', '/users/nobody@zulip.com', OTHELLO), 'get', BY_EMAIL, 'No such user');
      expectError(await api(t, 'get', '/users/user99999@zulip.testserver', OTHELLO), 'get', BY_EMAIL, 'No such user');
    });

    it('hides users whose email the caller may not see, except through the dummy address', async () => {
      await setVisibility(CORDELIA, 3); // administrators only
      try {
        expectError(await api(t, 'get', `/users/${CORDELIA}`, OTHELLO), 'get', BY_EMAIL, 'No such user');
        expectSuccess(await api(t, 'get', `/users/${CORDELIA}`, IAGO), 'get', BY_EMAIL);
        expectSuccess(await api(t, 'get', `/users/user${ids[CORDELIA]}@zulip.testserver`, OTHELLO), 'get', BY_EMAIL);
      } finally {
        await setVisibility(CORDELIA, 1);
      }
    });
  });

  describe('PATCH /users/{user_id}', () => {
    it('changes the full name, with a realm_user update event', async () => {
      const q = await queue(t, OTHELLO, ['realm_user']);
      expectSuccess(await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { full_name: '  Zoe Z  ' }), 'patch', BY_ID);
      expect((await getUser(ids[ZOE])).full_name).toBe('Zoe Z');
      expect(await events(t, q)).toEqual([
        { type: 'realm_user', op: 'update', person: { user_id: ids[ZOE], full_name: 'Zoe Z' } },
      ]);
      // Blank and unchanged names are ignored.
      expectSuccess(await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { full_name: '   ' }), 'patch', BY_ID);
      expectSuccess(await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { full_name: 'Zoe Z' }), 'patch', BY_ID);
      expect(await events(t, q)).toEqual([]);
      expect((await getUser(ids[ZOE])).full_name).toBe('Zoe Z');
    });

    it.each([
      ['x'.repeat(101), 'Name too long!'],
      ['x', 'Name too short!'],
      ['Zoe*', 'Invalid characters in name!'],
      ['Zoe|15', 'Invalid format!'],
    ])('rejects the name %j', async (name, msg) => {
      expectError(await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { full_name: name }), 'patch', BY_ID, msg);
    });

    it('changes roles with realm_user and system-group events', async () => {
      const q = await queue(t, HAMLET, ['realm_user', 'user_group']);
      expectSuccess(await api(t, 'patch', `/users/${ids[PROSPERO]}`, IAGO, { role: 300 }), 'patch', BY_ID);
      expect((await getUser(ids[PROSPERO])).role).toBe(300);
      const members = await groupId(t, 'role:members');
      const fullMembers = await groupId(t, 'role:fullmembers');
      const moderators = await groupId(t, 'role:moderators');
      expect(await events(t, q)).toEqual([
        { type: 'realm_user', op: 'update', person: { user_id: ids[PROSPERO], role: 300 } },
        { type: 'user_group', op: 'remove_members', group_id: members, user_ids: [ids[PROSPERO]] },
        { type: 'user_group', op: 'add_members', group_id: moderators, user_ids: [ids[PROSPERO]] },
        { type: 'user_group', op: 'remove_members', group_id: fullMembers, user_ids: [ids[PROSPERO]] },
      ]);
      const mods = await api(t, 'get', `/user_groups/${moderators}/members`, HAMLET, { direct_member_only: true });
      expect(mods.body.members).toContain(ids[PROSPERO]);
      // The new role holds from the next request on.
      expectSuccess(await api(t, 'patch', `/users/${ids[PROSPERO]}`, IAGO, { role: 400 }), 'patch', BY_ID);
      expect((await getUser(ids[PROSPERO])).role).toBe(400);
      const full = await api(t, 'get', `/user_groups/${fullMembers}/members`, HAMLET, { direct_member_only: true });
      expect(full.body.members).toContain(ids[PROSPERO]);
    });

    it('keeps the owner role for owners, and the last owner', async () => {
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { role: 100 }),
        'patch',
        BY_ID,
        'Must be an organization owner',
        'UNAUTHORIZED_PRINCIPAL',
      );
      expectError(
        await api(t, 'patch', `/users/${ids[DESDEMONA]}`, IAGO, { role: 400 }),
        'patch',
        BY_ID,
        'Must be an organization owner',
        'UNAUTHORIZED_PRINCIPAL',
      );
      expectError(
        await api(t, 'patch', `/users/${ids[DESDEMONA]}`, DESDEMONA, { role: 200 }),
        'patch',
        BY_ID,
        'The owner permission cannot be removed from the only organization owner.',
      );
      expectSuccess(await api(t, 'patch', `/users/${ids[ZOE]}`, DESDEMONA, { role: 100 }), 'patch', BY_ID);
      expectSuccess(await api(t, 'patch', `/users/${ids[DESDEMONA]}`, ZOE, { role: 200 }), 'patch', BY_ID);
      expectSuccess(await api(t, 'patch', `/users/${ids[DESDEMONA]}`, ZOE, { role: 100 }), 'patch', BY_ID);
      expectSuccess(await api(t, 'patch', `/users/${ids[ZOE]}`, DESDEMONA, { role: 400 }), 'patch', BY_ID);
      // Guests can be made administrators and back: a role is one value.
      expectSuccess(await api(t, 'patch', `/users/${ids[POLONIUS]}`, IAGO, { role: 200 }), 'patch', BY_ID);
      expectSuccess(await api(t, 'patch', `/users/${ids[POLONIUS]}`, IAGO, { role: 600 }), 'patch', BY_ID);
    });

    it('validates the role at parse time', async () => {
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { role: 700 }),
        'patch',
        BY_ID,
        'Invalid role: Value error, Not in the list of possible values',
      );
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { role: 'admin' }),
        'patch',
        BY_ID,
        'role is not valid JSON',
      );
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { role: '"400"' }),
        'patch',
        BY_ID,
        'role is not an integer',
      );
      // Parameters are checked before the target is looked up.
      expectError(
        await api(t, 'patch', '/users/99999', IAGO, { role: 700 }),
        'patch',
        BY_ID,
        'Invalid role: Value error, Not in the list of possible values',
      );
    });

    it('sets and clears profile data with realm_user custom_profile_field events', async () => {
      const q = await queue(t, OTHELLO, ['realm_user']);
      const phone = fields['Phone number'];
      const bio = fields.Biography;
      const mentor = fields.Mentor;
      expectSuccess(
        await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, {
          profile_data: [
            { id: phone, value: '+1 555' },
            { id: mentor, value: [ids[HAMLET], ids[OTHELLO]] },
            { id: fields['Favorite editor'], value: '1' },
            { id: fields.Birthday, value: '1999-12-31' },
            { id: fields['Favorite website'], value: 'https://zoe.example.com' },
          ],
        }),
        'patch',
        BY_ID,
      );
      const data = (await getUser(ids[ZOE])).profile_data as Record<string, { value: string }>;
      expect(data[String(phone)]).toEqual({ value: '+1 555', rendered_value: '<p>+1 555</p>' });
      expect(data[String(mentor)]).toEqual({ value: `[${ids[HAMLET]},${ids[OTHELLO]}]` });
      expect(await events(t, q)).toEqual([
        {
          type: 'realm_user',
          op: 'update',
          person: {
            user_id: ids[ZOE],
            custom_profile_field: { id: phone, value: '+1 555', rendered_value: '<p>+1 555</p>' },
          },
        },
        {
          type: 'realm_user',
          op: 'update',
          person: {
            user_id: ids[ZOE],
            custom_profile_field: { id: mentor, value: `[${ids[HAMLET]},${ids[OTHELLO]}]` },
          },
        },
        {
          type: 'realm_user',
          op: 'update',
          person: { user_id: ids[ZOE], custom_profile_field: { id: fields['Favorite editor'], value: '1' } },
        },
        {
          type: 'realm_user',
          op: 'update',
          person: { user_id: ids[ZOE], custom_profile_field: { id: fields.Birthday, value: '1999-12-31' } },
        },
        {
          type: 'realm_user',
          op: 'update',
          person: {
            user_id: ids[ZOE],
            custom_profile_field: { id: fields['Favorite website'], value: 'https://zoe.example.com' },
          },
        },
      ]);
      // Clearing (null, "" or []), and unchanged values send nothing.
      expectSuccess(
        await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, {
          profile_data: [
            { id: phone, value: null },
            { id: mentor, value: [] },
            { id: bio, value: '' },
            { id: fields['Favorite editor'], value: '1' },
          ],
        }),
        'patch',
        BY_ID,
      );
      const after = (await getUser(ids[ZOE])).profile_data as Record<string, unknown>;
      expect(after[String(phone)]).toBeUndefined();
      expect(after[String(mentor)]).toBeUndefined();
      expect(await events(t, q)).toEqual([
        {
          type: 'realm_user',
          op: 'update',
          person: { user_id: ids[ZOE], custom_profile_field: { id: phone, value: null } },
        },
        {
          type: 'realm_user',
          op: 'update',
          person: { user_id: ids[ZOE], custom_profile_field: { id: mentor, value: null } },
        },
      ]);
    });

    it.each([
      [() => [{ id: 99999, value: 'x' }], 'Field id 99999 not found.'],
      [() => [{ id: 99999, value: null }], 'Field id 99999 not found.'],
      [
        () => [{ id: fields['Phone number'], value: 'x'.repeat(51) }],
        'Phone number is too long (limit: 50 characters)',
      ],
      [() => [{ id: fields.Biography, value: 'x'.repeat(501) }], 'Biography is too long (limit: 500 characters)'],
      [() => [{ id: fields['Favorite editor'], value: '7' }], "'7' is not a valid choice for 'Favorite editor'."],
      [() => [{ id: fields.Birthday, value: '1999-02-30' }], 'Birthday is not a date'],
      [() => [{ id: fields['Favorite website'], value: 'not a url' }], 'Favorite website is not a URL'],
      [() => [{ id: fields.Mentor, value: [99999] }], 'Invalid user IDs: 99999'],
      [() => [{ id: fields.Mentor, value: 'hamlet' }], 'User IDs is not a list'],
      [() => [{ id: fields.Mentor, value: [ids[DEFAULT_BOT]] }], 'User with ID 16 is a bot'],
      [() => [{ id: fields['Phone number'], value: ['x'] }], 'profile_data[0]["value"] is not a string'],
      [() => [{ value: 'x' }], 'profile_data[0]["id"] field is missing: Field required'],
      [() => ({ id: 1 }), 'profile_data is not a list'],
    ])('rejects profile data (%#): %s', async (data, msg) => {
      expectError(await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { profile_data: data() }), 'patch', BY_ID, msg);
    });

    it('refuses a deactivated person in a person picker', async () => {
      await t.dataSource.query(`UPDATE user_profile SET is_active = false WHERE id = $1`, [ids[AARON]]);
      try {
        expectError(
          await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, {
            profile_data: [{ id: fields.Mentor, value: [ids[AARON]] }],
          }),
          'patch',
          BY_ID,
          `User with ID ${ids[AARON]} is deactivated`,
        );
      } finally {
        await t.dataSource.query(`UPDATE user_profile SET is_active = true WHERE id = $1`, [ids[AARON]]);
      }
    });

    it('changes the email with can_change_user_emails (iago in the demo realm)', async () => {
      const q = await queue(t, OTHELLO, ['realm_user']);
      const key = await t.apiKey(AARON);
      expectSuccess(
        await api(t, 'patch', `/users/${ids[AARON]}`, IAGO, { new_email: 'aaron.new@zulip.com' }),
        'patch',
        BY_ID,
      );
      const user = await getUser(ids[AARON]);
      expect(user).toMatchObject({ email: 'aaron.new@zulip.com', delivery_email: 'aaron.new@zulip.com' });
      const evs = await events(t, q);
      expect(evs.map((e) => Object.keys(e.person as object).sort())).toEqual([
        ['delivery_email', 'user_id'],
        ['avatar_source', 'avatar_url', 'avatar_url_medium', 'avatar_version', 'user_id'],
        ['new_email', 'user_id'],
      ]);
      expect(evs[2]).toEqual({
        type: 'realm_user',
        op: 'update',
        person: { user_id: ids[AARON], new_email: 'aaron.new@zulip.com' },
      });
      // The new address is the login name from now on.
      const me = await t.http().get('/api/v1/users/me').auth('aaron.new@zulip.com', key);
      expect(me.status).toBe(200);
      const old = await t.http().get('/api/v1/users/me').auth(AARON, key);
      expect(old.status).toBe(401);
      const restore = await t
        .http()
        .patch(`/api/v1/users/${ids[AARON]}`)
        .auth(...(await t.auth(IAGO)))
        .type('form')
        .send({ new_email: AARON });
      expect(restore.status).toBe(200);
    });

    it('checks email changes', async () => {
      for (const email of [DESDEMONA, SHIVA]) {
        expectError(
          await api(t, 'patch', `/users/${ids[ZOE]}`, email, { new_email: 'z@zulip.com' }),
          'patch',
          BY_ID,
          email === SHIVA ? 'Insufficient permission' : 'User not authorized to change user emails',
        );
      }
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { new_email: 'not an email' }),
        'patch',
        BY_ID,
        'Invalid new email address.',
      );
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, IAGO, { new_email: HAMLET }),
        'patch',
        BY_ID,
        'New email value error: Email is already in use.',
      );
      // The permission check comes before the role change is applied.
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, DESDEMONA, { role: 300, new_email: 'z@zulip.com' }),
        'patch',
        BY_ID,
        'User not authorized to change user emails',
      );
      expect((await getUser(ids[ZOE])).role).toBe(400);
    });

    it('is for administrators; users are looked up first', async () => {
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, HAMLET, { full_name: 'Hacked' }),
        'patch',
        BY_ID,
        'Insufficient permission',
      );
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, SHIVA, { full_name: 'Hacked' }),
        'patch',
        BY_ID,
        'Insufficient permission',
      );
      expectError(
        await api(t, 'patch', `/users/${ids[ZOE]}`, POLONIUS, { full_name: 'Hacked' }),
        'patch',
        BY_ID,
        'Insufficient permission',
      );
      expectError(await api(t, 'patch', '/users/99999', IAGO, { full_name: 'Nobody' }), 'patch', BY_ID, 'No such user');
      // A bot's owner may rename it but not change its role; bots can be targets.
      const webhookBot = await userId(t, 'webhook-bot@zulip.com');
      expectSuccess(await api(t, 'patch', `/users/${webhookBot}`, ZOE, { full_name: 'Renamed Bot' }), 'patch', BY_ID);
      expectError(
        await api(t, 'patch', `/users/${webhookBot}`, ZOE, { role: 200 }),
        'patch',
        BY_ID,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
      expectError(
        await api(t, 'patch', `/users/${webhookBot}`, ZOE, { role: 100 }),
        'patch',
        BY_ID,
        'Must be an organization owner',
        'UNAUTHORIZED_PRINCIPAL',
      );
      expectSuccess(
        await api(t, 'patch', `/users/${ids[DEFAULT_BOT]}`, IAGO, { full_name: 'Default Bot' }),
        'patch',
        BY_ID,
      );
    });
  });

  describe('PATCH /users/{email}', () => {
    it('updates the user found by real or dummy email', async () => {
      expectSuccess(await api(t, 'patch', `/users/${OTHELLO}`, IAGO, { full_name: 'Othello' }), 'patch', BY_EMAIL);
      expect((await getUser(ids[OTHELLO])).full_name).toBe('Othello');
      expectSuccess(
        await api(t, 'patch', `/users/user${ids[OTHELLO]}@zulip.testserver`, IAGO, {
          full_name: 'Othello, the Moor of Venice',
        }),
        'patch',
        BY_EMAIL,
      );
      expect((await getUser(ids[OTHELLO])).full_name).toBe('Othello, the Moor of Venice');
    });

    it('cannot find a user whose visibility is "nobody" by real email', async () => {
      await setVisibility(OTHELLO, 4);
      try {
        expectError(
          await api(t, 'patch', `/users/${OTHELLO}`, IAGO, { full_name: 'Othello' }),
          'patch',
          BY_EMAIL,
          'No such user',
        );
        expectSuccess(
          await api(t, 'patch', `/users/user${ids[OTHELLO]}@zulip.testserver`, IAGO, { full_name: 'Othello' }),
          'patch',
          BY_EMAIL,
        );
      } finally {
        await setVisibility(OTHELLO, 1);
      }
      expectError(
        await api(t, 'patch', '/users/nobody@zulip.com', IAGO, { full_name: 'x y' }),
        'patch',
        BY_EMAIL,
        'No such user',
      );
      expectError(
        await api(t, 'patch', `/users/${OTHELLO}`, HAMLET, { full_name: 'x y' }),
        'patch',
        BY_EMAIL,
        'Insufficient permission',
      );
    });
  });

  describe('deactivation and reactivation', () => {
    it('deactivates a user and the bots they own, then reactivates', async () => {
      const q = await queue(t, HAMLET, ['realm_user', 'user_group']);
      const path = `/users/${ids[DESDEMONA]}`;
      expectError(
        await api(t, 'delete', path, IAGO),
        'delete',
        BY_ID,
        'Must be an organization owner',
        'UNAUTHORIZED_PRINCIPAL',
      );
      expectError(
        await api(t, 'delete', path, DESDEMONA),
        'delete',
        BY_ID,
        'Cannot deactivate the only organization owner',
      );

      const res = await api(t, 'delete', `/users/${ids[CORDELIA]}`, IAGO);
      expectSuccess(res, 'delete', BY_ID);
      expect(await events(t, q)).toEqual([
        { type: 'realm_user', op: 'update', person: { user_id: ids[CORDELIA], is_active: false } },
      ]);
      expect((await getUser(ids[CORDELIA])).is_active).toBe(false);
      // Deactivated users cannot log in and leave group member lists.
      const login = await t
        .http()
        .get('/api/v1/users/me')
        .auth(CORDELIA, await t.apiKey(CORDELIA));
      expect(login.status).toBe(401);
      expect(login.body.msg).toBe('Account is deactivated');
      const hc = await groupId(t, 'hamletcharacters');
      expect((await api(t, 'get', `/user_groups/${hc}/members`, HAMLET)).body.members).toEqual([ids[HAMLET]]);
      expectError(await api(t, 'delete', `/users/${ids[CORDELIA]}`, IAGO), 'delete', BY_ID, 'User is deactivated');

      const back = await api(t, 'post', `/users/${ids[CORDELIA]}/reactivate`, IAGO);
      expectSuccess(back, 'post', '/users/{user_id}/reactivate');
      const evs = await events(t, q);
      expect(evs[0]).toEqual({ type: 'realm_user', op: 'update', person: { user_id: ids[CORDELIA], is_active: true } });
      expect(evs.slice(1)).toEqual(
        expect.arrayContaining([{ type: 'user_group', op: 'add_members', group_id: hc, user_ids: [ids[CORDELIA]] }]),
      );
      expect((await api(t, 'get', `/user_groups/${hc}/members`, HAMLET)).body.members).toEqual(
        [ids[CORDELIA], ids[HAMLET]].sort((a, b) => a - b),
      );
      expect(
        (
          await t
            .http()
            .get('/api/v1/users/me')
            .auth(CORDELIA, await t.apiKey(CORDELIA))
        ).status,
      ).toBe(200);
      expectError(
        await api(t, 'post', `/users/${ids[CORDELIA]}/reactivate`, IAGO),
        'post',
        '/users/{user_id}/reactivate',
        'User is already active.',
      );
    });

    it('deactivating an owner deactivates their bots too', async () => {
      expectSuccess(await api(t, 'patch', `/users/${ids[ZOE]}`, DESDEMONA, { role: 100 }), 'patch', BY_ID);
      expectSuccess(await api(t, 'delete', `/users/${ids[DESDEMONA]}`, ZOE), 'delete', BY_ID);
      expect((await getUser(ids[DEFAULT_BOT])).is_active).toBe(false);
      expectSuccess(
        await api(t, 'post', `/users/${ids[DESDEMONA]}/reactivate`, ZOE),
        'post',
        '/users/{user_id}/reactivate',
      );
      expectSuccess(
        await api(t, 'post', `/users/${ids[DEFAULT_BOT]}/reactivate`, ZOE),
        'post',
        '/users/{user_id}/reactivate',
      );
      expectSuccess(await api(t, 'patch', `/users/${ids[ZOE]}`, DESDEMONA, { role: 400 }), 'patch', BY_ID);
    });

    it('is for administrators', async () => {
      expectError(await api(t, 'delete', `/users/${ids[ZOE]}`, HAMLET), 'delete', BY_ID, 'Insufficient permission');
      expectError(await api(t, 'delete', `/users/${ids[ZOE]}`, SHIVA), 'delete', BY_ID, 'Insufficient permission');
      expectError(await api(t, 'delete', '/users/99999', IAGO), 'delete', BY_ID, 'No such user');
      expectError(await api(t, 'delete', `/users/${ids[DEFAULT_BOT]}`, IAGO), 'delete', BY_ID, 'No such user');
      expectError(
        await api(t, 'post', `/users/${ids[ZOE]}/reactivate`, HAMLET),
        'post',
        '/users/{user_id}/reactivate',
        'Insufficient permission',
      );
      expectError(
        await api(t, 'delete', `/users/${ids[ZOE]}`, IAGO, { deactivation_notification_comment: 'x'.repeat(2001) }),
        'delete',
        BY_ID,
        'deactivation_notification_comment is too long (limit: 2000 characters)',
      );
      expectSuccess(
        await api(t, 'delete', `/users/${ids[ZOE]}`, IAGO, { deactivation_notification_comment: 'Bye' }),
        'delete',
        BY_ID,
      );
      expectSuccess(await api(t, 'post', `/users/${ids[ZOE]}/reactivate`, IAGO), 'post', '/users/{user_id}/reactivate');
    });
  });

  describe('POST /users', () => {
    it('creates a user, with a realm_user add event', async () => {
      const q = await queue(t, HAMLET, ['realm_user']);
      const res = await api(t, 'post', '/users', IAGO, {
        email: 'romeo@zulip.com',
        full_name: '  Romeo  ',
        password: 'verona-1595',
      });
      const id = expectSuccess(res, 'post', '/users').user_id as number;
      expect(await getUser(id)).toMatchObject({
        user_id: id,
        full_name: 'Romeo',
        email: 'romeo@zulip.com',
        role: 400,
        is_active: true,
        profile_data: {},
      });
      const evs = await events(t, q);
      expect(evs).toHaveLength(1);
      expect(evs[0]).toMatchObject({
        type: 'realm_user',
        op: 'add',
        person: { user_id: id, full_name: 'Romeo', profile_data: {} },
      });
      // The password works with /fetch_api_key.
      const key = await t
        .http()
        .post('/api/v1/fetch_api_key')
        .type('form')
        .send({ username: 'romeo@zulip.com', password: 'verona-1595' });
      expect(key.status).toBe(200);
    });

    it('checks the request', async () => {
      const create = (params: Record<string, unknown>, email = IAGO) => api(t, 'post', '/users', email, params);
      expectError(
        await create({ email: 'x@zulip.com', full_name: 'X Y', password: 'abcdef12' }, DESDEMONA),
        'post',
        '/users',
        'User not authorized to create users',
      );
      expectError(
        await create({ email: 'x@zulip.com', full_name: 'X Y', password: 'abcdef12' }, HAMLET),
        'post',
        '/users',
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
      expectError(
        await create({ email: 'x@zulip.com', full_name: 'X', password: 'abcdef12' }),
        'post',
        '/users',
        'Name too short!',
      );
      expectError(
        await create({ email: 'not-an-email', full_name: 'X Y', password: 'abcdef12' }),
        'post',
        '/users',
        'Bad name or username',
      );
      expectError(
        await create({ email: HAMLET, full_name: 'X Y', password: 'abcdef12' }),
        'post',
        '/users',
        'Email is already in use.',
      );
      expectError(
        await create({ email: 'x@zulip.com', full_name: 'X Y', password: 'aaa' }),
        'post',
        '/users',
        'The password is too weak.',
      );
      const missing = await create({ email: 'x@zulip.com', full_name: 'X Y' });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'password' argument" });
    });
  });
});
