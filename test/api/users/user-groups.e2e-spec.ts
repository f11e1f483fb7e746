import { systemGroupIds } from '../../helpers/api';
import type { Queue } from '../../helpers/events';
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

type Group = Record<string, unknown> & { id: number; name: string };

describe('user groups', () => {
  let t: TestApp;
  const ids: Record<string, number> = {};
  const sys: Record<string, number> = {};
  let counter = 0;
  const fresh = (prefix = 'group') => `${prefix}-${++counter}`;

  beforeAll(async () => {
    t = await startTestApp();
    for (const email of [IAGO, DESDEMONA, SHIVA, HAMLET, OTHELLO, CORDELIA, PROSPERO, POLONIUS, AARON, ZOE]) {
      ids[email] = await userId(t, email);
    }
    Object.assign(sys, await systemGroupIds(t));
  });
  afterAll(() => t.close());

  async function create(email: string, params: Record<string, unknown>) {
    return api(t, 'post', '/user_groups/create', email, { description: 'A group', members: [], ...params });
  }

  async function createOk(email: string, params: Record<string, unknown>): Promise<number> {
    const body = expectSuccess(await create(email, params), 'post', '/user_groups/create');
    return body.group_id as number;
  }

  async function listGroups(email = IAGO, includeDeactivated = false): Promise<Group[]> {
    const res = await api(t, 'get', '/user_groups', email, { include_deactivated_groups: includeDeactivated });
    return expectSuccess(res, 'get', '/user_groups').user_groups as Group[];
  }

  async function group(id: number): Promise<Group> {
    const g = (await listGroups(IAGO, true)).find((x) => x.id === id);
    if (!g) throw new Error(`no group ${id}`);
    return g;
  }

  describe('POST /user_groups/create', () => {
    it('creates a group with Zulip defaults and sends user_group add to everyone', async () => {
      const q = await queue(t, HAMLET, ['user_group']);
      const name = fresh('support');
      const res = await create(IAGO, { name, description: 'Support team', members: [ids[HAMLET], ids[CORDELIA]] });
      const body = expectSuccess(res, 'post', '/user_groups/create');
      const id = body.group_id as number;
      expect(Object.keys(body).sort()).toEqual(['group_id', 'msg', 'result']);

      const g = await group(id);
      expect(g).toMatchObject({
        name,
        description: 'Support team',
        members: [ids[CORDELIA], ids[HAMLET]].sort((a, b) => a - b),
        direct_subgroup_ids: [],
        creator_id: ids[IAGO],
        is_system_group: false,
        deactivated: false,
        can_add_members_group: { direct_members: [ids[IAGO]], direct_subgroups: [] },
        can_manage_group: { direct_members: [ids[IAGO]], direct_subgroups: [] },
        can_join_group: sys.nobody,
        can_leave_group: sys.everyone,
        can_mention_group: sys.everyone,
        can_remove_members_group: sys.nobody,
      });
      expect(typeof g.date_created).toBe('number');

      const evs = await events(t, q);
      expect(evs).toEqual([{ type: 'user_group', op: 'add', group: g }]);
    });

    it('accepts subgroups and every group setting, including anonymous values', async () => {
      const sub = await createOk(IAGO, { name: fresh() });
      const q = await queue(t, OTHELLO, ['user_group']);
      const id = await createOk(IAGO, {
        name: fresh(),
        members: [ids[OTHELLO]],
        subgroups: [sub],
        can_add_members_group: sys.moderators,
        can_join_group: sys.members,
        can_leave_group: { direct_members: [], direct_subgroups: [] },
        can_manage_group: { direct_members: [ids[HAMLET]], direct_subgroups: [sys.administrators] },
        can_mention_group: { direct_members: [], direct_subgroups: [sys.members] },
        can_remove_members_group: sys.administrators,
      });
      const g = await group(id);
      expect(g).toMatchObject({
        direct_subgroup_ids: [sub],
        can_add_members_group: sys.moderators,
        can_join_group: sys.members,
        can_leave_group: sys.nobody,
        can_manage_group: { direct_members: [ids[HAMLET]], direct_subgroups: [sys.administrators] },
        can_mention_group: sys.members,
        can_remove_members_group: sys.administrators,
      });
      const evs = await events(t, q);
      expect(evs.map((e) => e.op)).toEqual(['add', 'add_subgroups']);
      expect(evs[1]).toEqual({ type: 'user_group', op: 'add_subgroups', group_id: id, direct_subgroup_ids: [sub] });
      expect((evs[0].group as Group).direct_subgroup_ids).toEqual([]);
    });

    it('accepts the older name can_mention_group_id', async () => {
      const id = await createOk(IAGO, { name: fresh(), can_mention_group_id: sys.members });
      expect((await group(id)).can_mention_group).toBe(sys.members);
    });

    it.each([
      ['', "User group name can't be empty!"],
      ['   ', "User group name can't be empty!"],
      ['x'.repeat(101), 'User group name cannot exceed 100 characters.'],
      ['@support', "User group name cannot start with '@'."],
      ['role:support', "User group name cannot start with 'role:'."],
      ['user:support', "User group name cannot start with 'user:'."],
      ['stream:support', "User group name cannot start with 'stream:'."],
      ['channel:support', "User group name cannot start with 'channel:'."],
    ])('rejects the name %j', async (name, msg) => {
      expectError(await create(IAGO, { name }), 'post', '/user_groups/create', msg);
    });

    it('rejects a duplicate name (case-sensitive)', async () => {
      const name = fresh('Dup');
      await createOk(IAGO, { name });
      expectError(await create(IAGO, { name }), 'post', '/user_groups/create', `User group '${name}' already exists.`);
      await createOk(IAGO, { name: name.toLowerCase() });
      expectError(
        await create(IAGO, { name: 'hamletcharacters' }),
        'post',
        '/user_groups/create',
        "User group 'hamletcharacters' already exists.",
      );
    });

    it('rejects unknown and deactivated members, before checking the name', async () => {
      expectError(
        await create(IAGO, { name: '', members: [1111] }),
        'post',
        '/user_groups/create',
        'Invalid user ID: 1111',
      );
      await t.dataSource.query(`UPDATE user_profile SET is_active = false WHERE id = $1`, [ids[PROSPERO]]);
      try {
        expectError(
          await create(IAGO, { name: fresh(), members: [ids[PROSPERO]] }),
          'post',
          '/user_groups/create',
          `Invalid user ID: ${ids[PROSPERO]}`,
        );
      } finally {
        await t.dataSource.query(`UPDATE user_profile SET is_active = true WHERE id = $1`, [ids[PROSPERO]]);
      }
    });

    const settings = [
      'can_add_members_group',
      'can_join_group',
      'can_leave_group',
      'can_manage_group',
      'can_mention_group',
      'can_remove_members_group',
    ];

    it.each(settings)('never allows role:internet for %s', async (setting) => {
      expectError(
        await create(IAGO, { name: fresh(), [setting]: sys.internet }),
        'post',
        '/user_groups/create',
        `'${setting}' setting cannot be set to 'role:internet' group.`,
      );
    });

    it.each(['can_add_members_group', 'can_join_group', 'can_manage_group', 'can_remove_members_group'])(
      'does not allow role:everyone for %s',
      async (setting) => {
        expectError(
          await create(IAGO, { name: fresh(), [setting]: sys.everyone }),
          'post',
          '/user_groups/create',
          `'${setting}' setting cannot be set to 'role:everyone' group.`,
        );
      },
    );

    it('does not allow role:owners for can_mention_group (DECISIONS #8)', async () => {
      expectError(
        await create(IAGO, { name: fresh(), can_mention_group: sys.owners }),
        'post',
        '/user_groups/create',
        "'can_mention_group' setting cannot be set to 'role:owners' group.",
      );
      await createOk(IAGO, { name: fresh(), can_manage_group: sys.owners });
    });

    it('rejects bad group-setting values', async () => {
      const path = '/user_groups/create';
      expectError(await create(IAGO, { name: fresh(), can_join_group: 999999 }), 'post', path, 'Invalid user group');
      expectError(await create(IAGO, { name: fresh(), can_join_group: 2 ** 40 }), 'post', path, 'Invalid user group');
      expectError(
        await create(IAGO, { name: fresh(), can_join_group: { direct_members: [9999], direct_subgroups: [] } }),
        'post',
        path,
        'Invalid user ID: 9999',
      );
      expectError(
        await create(IAGO, {
          name: fresh(),
          can_join_group: { direct_members: [ids[HAMLET]], direct_subgroups: [9999] },
        }),
        'post',
        path,
        'Invalid user group ID: 9999',
      );
      expectError(
        await create(IAGO, { name: fresh(), can_join_group: JSON.stringify('x') }),
        'post',
        path,
        'can_join_group is not a dict',
      );
      expectError(
        await create(IAGO, { name: fresh(), can_join_group: { direct_members: [] } }),
        'post',
        path,
        'can_join_group["direct_subgroups"] field is missing: Field required',
      );
      const res = await t
        .http()
        .post('/api/v1/user_groups/create')
        .auth(...(await t.auth(IAGO)))
        .type('form')
        .send({ name: fresh(), description: 'd', members: '[', can_join_group: '{' });
      expectError(res, 'post', path, 'can_join_group is not valid JSON');
    });

    it('refuses subgroups that do not exist or are deactivated', async () => {
      expectError(
        await create(IAGO, { name: fresh(), subgroups: [123456] }),
        'post',
        '/user_groups/create',
        'Invalid user group ID: 123456',
      );
      const gone = await createOk(IAGO, { name: fresh() });
      expectSuccess(
        await api(t, 'post', `/user_groups/${gone}/deactivate`, IAGO),
        'post',
        '/user_groups/{user_group_id}/deactivate',
      );
      expectError(
        await create(IAGO, { name: fresh(), subgroups: [gone] }),
        'post',
        '/user_groups/create',
        'User group is deactivated.',
      );
    });

    it('needs its required parameters', async () => {
      const res = await api(t, 'post', '/user_groups/create', IAGO, { name: fresh(), members: [] });
      // Zulip's OpenAPI error schema for this endpoint omits the var_name field Zulip sends.
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        msg: "Missing 'description' argument",
        code: 'REQUEST_VARIABLE_MISSING',
        var_name: 'description',
      });
    });

    it('is refused to guests and bots before parameters are read', async () => {
      expectError(
        await api(t, 'post', '/user_groups/create', POLONIUS),
        'post',
        '/user_groups/create',
        'Not allowed for guest users',
      );
      expectError(
        await api(t, 'post', '/user_groups/create', DEFAULT_BOT),
        'post',
        '/user_groups/create',
        'This endpoint does not accept bot requests.',
      );
    });

    it('follows can_create_groups (members by default; owners may restrict it)', async () => {
      for (const email of [HAMLET, SHIVA, IAGO, DESDEMONA]) await createOk(email, { name: fresh() });
      expectSuccess(
        await api(t, 'patch', '/realm', DESDEMONA, { can_create_groups: { new: sys.administrators } }),
        'patch',
        '/realm',
      );
      try {
        for (const email of [HAMLET, SHIVA]) {
          expectError(
            await api(t, 'post', '/user_groups/create', email),
            'post',
            '/user_groups/create',
            'Insufficient permission',
          );
        }
        await createOk(IAGO, { name: fresh() });
      } finally {
        await api(t, 'patch', '/realm', DESDEMONA, { can_create_groups: { new: sys.members } });
      }
      await createOk(HAMLET, { name: fresh() });
    });
  });

  describe('GET /user_groups', () => {
    it('lists named groups sorted by id, system groups included, deactivated ones on request', async () => {
      const all = await listGroups();
      expect(all.map((g) => g.id)).toEqual([...all.map((g) => g.id)].sort((a, b) => a - b));
      const names = all.map((g) => g.name);
      expect(names).toEqual(expect.arrayContaining(['role:everyone', 'role:nobody', 'hamletcharacters']));
      const everyone = all.find((g) => g.name === 'role:everyone')!;
      expect(everyone).toMatchObject({ is_system_group: true, creator_id: null, direct_subgroup_ids: [sys.members] });
      const hc = all.find((g) => g.name === 'hamletcharacters')!;
      expect(hc.members).toEqual([ids[CORDELIA], ids[HAMLET]].sort((a, b) => a - b));

      const gone = await createOk(IAGO, { name: fresh() });
      await api(t, 'post', `/user_groups/${gone}/deactivate`, IAGO);
      expect((await listGroups()).some((g) => g.id === gone)).toBe(false);
      expect((await listGroups(IAGO, true)).find((g) => g.id === gone)?.deactivated).toBe(true);
    });

    it('lists only active members: a deactivated user leaves every list at once and comes back when reactivated', async () => {
      const membersOf = async (name: string) => (await listGroups()).find((g) => g.name === name)!.members as number[];
      const registered = async () => {
        const body = expectSuccess(
          await api(t, 'post', '/register', IAGO, { fetch_event_types: ['realm_user_groups'] }),
        );
        return (body.realm_user_groups as Group[]).find((g) => g.name === 'hamletcharacters')!.members as number[];
      };
      expect(await membersOf('hamletcharacters')).toContain(ids[CORDELIA]);
      expect(await membersOf('role:members')).toContain(ids[CORDELIA]);
      expectSuccess(await api(t, 'delete', `/users/${ids[CORDELIA]}`, IAGO));
      try {
        expect(await membersOf('hamletcharacters')).toEqual([ids[HAMLET]]);
        expect(await membersOf('role:members')).not.toContain(ids[CORDELIA]);
        expect(await registered()).toEqual([ids[HAMLET]]);
      } finally {
        expectSuccess(await api(t, 'post', `/users/${ids[CORDELIA]}/reactivate`, IAGO));
      }
      expect(await membersOf('hamletcharacters')).toEqual([ids[CORDELIA], ids[HAMLET]].sort((a, b) => a - b));
      expect(await registered()).toEqual([ids[CORDELIA], ids[HAMLET]].sort((a, b) => a - b));
    });

    it('is available to members and moderators but not to guests or bots', async () => {
      await listGroups(HAMLET);
      await listGroups(SHIVA);
      expectError(await api(t, 'get', '/user_groups', POLONIUS), 'get', '/user_groups', 'Not allowed for guest users');
      expectError(
        await api(t, 'get', '/user_groups', DEFAULT_BOT),
        'get',
        '/user_groups',
        'This endpoint does not accept bot requests.',
      );
    });
  });

  describe('membership reads', () => {
    let inner: number;
    let outer: number;
    beforeAll(async () => {
      inner = await createOk(IAGO, { name: fresh('inner'), members: [ids[HAMLET]] });
      outer = await createOk(IAGO, { name: fresh('outer'), members: [ids[OTHELLO]], subgroups: [inner] });
    });

    it('GET /user_groups/{id}/members: recursive by default, direct on request', async () => {
      const path = `/user_groups/${outer}/members`;
      const all = expectSuccess(await api(t, 'get', path, HAMLET), 'get', path);
      expect(all.members).toEqual([ids[HAMLET], ids[OTHELLO]].sort((a, b) => a - b));
      const direct = expectSuccess(await api(t, 'get', path, HAMLET, { direct_member_only: true }), 'get', path);
      expect(direct.members).toEqual([ids[OTHELLO]]);
      const members = expectSuccess(await api(t, 'get', `/user_groups/${sys.moderators}/members`, HAMLET), 'get', path);
      expect(members.members).toEqual(expect.arrayContaining([ids[SHIVA], ids[IAGO], ids[DESDEMONA]]));
    });

    it('GET /user_groups/{id}/members/{user_id}', async () => {
      const check = async (user: string, direct: boolean) => {
        const path = `/user_groups/${outer}/members/${ids[user]}`;
        const res = await api(t, 'get', path, OTHELLO, { direct_member_only: direct });
        return expectSuccess(res, 'get', path).is_user_group_member;
      };
      expect(await check(HAMLET, false)).toBe(true);
      expect(await check(HAMLET, true)).toBe(false);
      expect(await check(OTHELLO, true)).toBe(true);
      expect(await check(ZOE, false)).toBe(false);
      const path = `/user_groups/${outer}/members/9999`;
      expectError(await api(t, 'get', path, OTHELLO), 'get', path, 'No such user');
      const bot = await userId(t, DEFAULT_BOT);
      expectError(await api(t, 'get', `/user_groups/${outer}/members/${bot}`, OTHELLO), 'get', path, 'No such user');
    });

    it('GET /user_groups/{id}/subgroups', async () => {
      const top = await createOk(IAGO, { name: fresh('top'), subgroups: [outer] });
      const path = `/user_groups/${top}/subgroups`;
      expect(expectSuccess(await api(t, 'get', path, HAMLET), 'get', path).subgroups).toEqual(
        [outer, inner].sort((a, b) => a - b),
      );
      expect(
        expectSuccess(await api(t, 'get', path, HAMLET, { direct_subgroup_only: true }), 'get', path).subgroups,
      ).toEqual([outer]);
    });

    it('refuses unknown, anonymous and deactivated groups', async () => {
      const path = '/user_groups/999999/members';
      expectError(await api(t, 'get', path, HAMLET), 'get', path, 'Invalid user group');
      const anonymous = (await group(outer)).can_manage_group;
      expect(typeof anonymous).toBe('object');
      const [{ id: anonId }] = await t.dataSource.query<Array<{ id: number }>>(
        `SELECT can_manage_group AS id FROM user_group WHERE id = $1`,
        [outer],
      );
      expectError(await api(t, 'get', `/user_groups/${anonId}/members`, HAMLET), 'get', path, 'Invalid user group');
      const gone = await createOk(IAGO, { name: fresh() });
      await api(t, 'post', `/user_groups/${gone}/deactivate`, IAGO);
      expectError(
        await api(t, 'get', `/user_groups/${gone}/members`, HAMLET),
        'get',
        path,
        'User group is deactivated.',
      );
      expectError(
        await api(t, 'get', '/user_groups/abc/members', HAMLET),
        'get',
        path,
        'Not Found',
        'BAD_REQUEST',
        404,
      );
    });
  });

  describe('POST /user_groups/{id}/members', () => {
    const path = '/user_groups/{user_group_id}/members';

    it('adds and removes members, with add_members and remove_members events', async () => {
      const id = await createOk(HAMLET, { name: fresh() });
      const q = await queue(t, ZOE, ['user_group']);
      expectSuccess(
        await api(t, 'post', `/user_groups/${id}/members`, HAMLET, { add: [ids[OTHELLO], ids[ZOE]] }),
        'post',
        path,
      );
      expectSuccess(await api(t, 'post', `/user_groups/${id}/members`, HAMLET, { delete: [ids[ZOE]] }), 'post', path);
      expect((await group(id)).members).toEqual([ids[OTHELLO]]);
      expect(await events(t, q)).toEqual([
        { type: 'user_group', op: 'add_members', group_id: id, user_ids: [ids[OTHELLO], ids[ZOE]] },
        { type: 'user_group', op: 'remove_members', group_id: id, user_ids: [ids[ZOE]] },
      ]);
    });

    it('checks the request', async () => {
      const id = await createOk(HAMLET, { name: fresh(), members: [ids[OTHELLO]] });
      const url = `/user_groups/${id}/members`;
      expectError(
        await api(t, 'post', url, HAMLET, {}),
        'post',
        path,
        'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
      );
      expectError(
        await api(t, 'post', url, HAMLET, { add: [ids[OTHELLO]] }),
        'post',
        path,
        `User ${ids[OTHELLO]} is already a member of this group`,
      );
      expectError(await api(t, 'post', url, HAMLET, { add: [9999] }), 'post', path, 'Invalid user ID: 9999');
      expectError(
        await api(t, 'post', url, HAMLET, { delete: [ids[ZOE]] }),
        'post',
        path,
        `There is no member '${ids[ZOE]}' in this user group`,
      );
      expectError(
        await api(t, 'post', '/user_groups/999999/members', HAMLET, { add: [ids[ZOE]] }),
        'post',
        path,
        'Invalid user group',
      );
      expectError(await api(t, 'post', url, HAMLET, { add: 'x' }), 'post', path, 'add is not valid JSON');
    });

    it('follows the group permissions', async () => {
      // Created by hamlet: hamlet manages it and adds members; others need a permission.
      const id = await createOk(HAMLET, { name: fresh(), members: [ids[OTHELLO]] });
      const url = `/user_groups/${id}/members`;
      expectError(await api(t, 'post', url, OTHELLO, { add: [ids[ZOE]] }), 'post', path, 'Insufficient permission');
      expectError(await api(t, 'post', url, ZOE, { add: [ids[ZOE]] }), 'post', path, 'Insufficient permission');
      // can_leave_group is role:everyone by default.
      expectSuccess(await api(t, 'post', url, OTHELLO, { delete: [ids[OTHELLO]] }), 'post', path);
      expectSuccess(await api(t, 'post', url, HAMLET, { add: [ids[OTHELLO]] }), 'post', path);
      expectError(await api(t, 'post', url, SHIVA, { add: [ids[ZOE]] }), 'post', path, 'Insufficient permission');
      // can_manage_all_groups is role:administrators in the demo realm.
      expectSuccess(await api(t, 'post', url, IAGO, { add: [ids[ZOE]] }), 'post', path);
      expectSuccess(await api(t, 'post', url, DESDEMONA, { delete: [ids[ZOE]] }), 'post', path);
      // can_join_group / can_leave_group let users add or remove only themselves.
      const patch = `/user_groups/${id}`;
      expectSuccess(
        await api(t, 'patch', patch, HAMLET, {
          can_join_group: { new: sys.members },
          can_leave_group: { new: { direct_members: [ids[ZOE]], direct_subgroups: [] } },
        }),
        'patch',
        '/user_groups/{user_group_id}',
      );
      expectSuccess(await api(t, 'post', url, ZOE, { add: [ids[ZOE]] }), 'post', path);
      expectError(await api(t, 'post', url, ZOE, { add: [ids[AARON]] }), 'post', path, 'Insufficient permission');
      expectSuccess(await api(t, 'post', url, ZOE, { delete: [ids[ZOE]] }), 'post', path);
      expectError(
        await api(t, 'post', url, OTHELLO, { delete: [ids[OTHELLO]] }),
        'post',
        path,
        'Insufficient permission',
      );
      // can_add_members_group / can_remove_members_group.
      expectSuccess(
        await api(t, 'patch', patch, HAMLET, {
          can_add_members_group: { new: sys.moderators },
          can_remove_members_group: { new: { direct_members: [ids[OTHELLO]], direct_subgroups: [] } },
        }),
        'patch',
        '/user_groups/{user_group_id}',
      );
      expectSuccess(await api(t, 'post', url, SHIVA, { add: [ids[AARON]] }), 'post', path);
      expectSuccess(await api(t, 'post', url, OTHELLO, { delete: [ids[AARON]] }), 'post', path);
      expectError(await api(t, 'post', url, ZOE, { add: [ids[AARON]] }), 'post', path, 'Insufficient permission');
    });

    it('never edits system groups, and refuses guests', async () => {
      const url = `/user_groups/${sys.members}/members`;
      expectError(
        await api(t, 'post', url, DESDEMONA, { add: [ids[POLONIUS]] }),
        'post',
        path,
        'Insufficient permission',
      );
      expectError(
        await api(t, 'post', `/user_groups/${sys.members}/members`, POLONIUS, { add: [1] }),
        'post',
        path,
        'Not allowed for guest users',
      );
    });
  });

  describe('POST /user_groups/{id}/subgroups', () => {
    const path = '/user_groups/{user_group_id}/subgroups';

    it('adds and removes subgroups with events', async () => {
      const a = await createOk(IAGO, { name: fresh() });
      const b = await createOk(IAGO, { name: fresh() });
      const top = await createOk(IAGO, { name: fresh() });
      const q = await queue(t, HAMLET, ['user_group']);
      const url = `/user_groups/${top}/subgroups`;
      expectSuccess(await api(t, 'post', url, IAGO, { add: [a, b] }), 'post', path);
      expect((await group(top)).direct_subgroup_ids).toEqual([a, b]);
      expectSuccess(await api(t, 'post', url, IAGO, { delete: [a] }), 'post', path);
      expect((await group(top)).direct_subgroup_ids).toEqual([b]);
      expectSuccess(await api(t, 'post', url, IAGO, { add: [a], delete: [b] }), 'post', path);
      expect((await group(top)).direct_subgroup_ids).toEqual([a]);
      expect(await events(t, q)).toEqual([
        { type: 'user_group', op: 'add_subgroups', group_id: top, direct_subgroup_ids: [a, b] },
        { type: 'user_group', op: 'remove_subgroups', group_id: top, direct_subgroup_ids: [a] },
        { type: 'user_group', op: 'add_subgroups', group_id: top, direct_subgroup_ids: [a] },
        { type: 'user_group', op: 'remove_subgroups', group_id: top, direct_subgroup_ids: [b] },
      ]);
      // System groups may be subgroups.
      expectSuccess(await api(t, 'post', url, IAGO, { add: [sys.moderators] }), 'post', path);
    });

    it('refuses no-ops, duplicates, cycles and unknown groups', async () => {
      const a = await createOk(IAGO, { name: fresh() });
      const b = await createOk(IAGO, { name: fresh(), subgroups: [a] });
      const c = await createOk(IAGO, { name: fresh(), subgroups: [b] });
      const q = await queue(t, HAMLET, ['user_group']);
      expectError(
        await api(t, 'post', `/user_groups/${b}/subgroups`, IAGO, {}),
        'post',
        path,
        'Nothing to do. Specify at least one of "add" or "delete".',
      );
      expectError(
        await api(t, 'post', `/user_groups/${b}/subgroups`, IAGO, { add: [a] }),
        'post',
        path,
        `User group ${a} is already a subgroup of this group.`,
      );
      expectError(
        await api(t, 'post', `/user_groups/${a}/subgroups`, IAGO, { add: [c] }),
        'post',
        path,
        `User group ${a} is already a subgroup of one of the passed subgroups.`,
      );
      expectError(
        await api(t, 'post', `/user_groups/${a}/subgroups`, IAGO, { add: [a] }),
        'post',
        path,
        `User group ${a} is already a subgroup of one of the passed subgroups.`,
      );
      expectError(
        await api(t, 'post', `/user_groups/${a}/subgroups`, IAGO, { add: [123456] }),
        'post',
        path,
        'Invalid user group ID: 123456',
      );
      expectError(
        await api(t, 'post', `/user_groups/${a}/subgroups`, IAGO, { delete: [c] }),
        'post',
        path,
        `User group ${c} is not a subgroup of this group.`,
      );
      expectError(
        await api(t, 'post', '/user_groups/999999/subgroups', IAGO, { add: [a] }),
        'post',
        path,
        'Invalid user group',
      );
      expectError(
        await api(t, 'post', `/user_groups/${sys.members}/subgroups`, DESDEMONA, { add: [a] }),
        'post',
        path,
        'Insufficient permission',
      );
      const gone = await createOk(IAGO, { name: fresh() });
      await api(t, 'post', `/user_groups/${gone}/deactivate`, IAGO);
      expectError(
        await api(t, 'post', `/user_groups/${a}/subgroups`, IAGO, { add: [gone] }),
        'post',
        path,
        'User group is deactivated.',
      );
      // A failing delete rolls back the add of the same request.
      expectError(
        await api(t, 'post', `/user_groups/${c}/subgroups`, IAGO, { add: [a], delete: [999999] }),
        'post',
        path,
        'Invalid user group ID: 999999',
      );
      expect((await group(c)).direct_subgroup_ids).toEqual([b]);
      // Only the creation and deactivation of `gone` happened: failed requests send nothing.
      expect((await events(t, q)).map((e) => [e.op, e.group_id ?? (e.group as Group).id])).toEqual([
        ['add', gone],
        ['remove', gone],
      ]);
    });

    it('adding needs can_add_members_group; removing needs can_manage_group', async () => {
      const a = await createOk(IAGO, { name: fresh() });
      const top = await createOk(IAGO, {
        name: fresh(),
        can_add_members_group: { direct_members: [ids[OTHELLO]], direct_subgroups: [] },
      });
      expectError(
        await api(t, 'post', `/user_groups/${top}/subgroups`, HAMLET, { add: [a] }),
        'post',
        path,
        'Insufficient permission',
      );
      expectSuccess(await api(t, 'post', `/user_groups/${top}/subgroups`, OTHELLO, { add: [a] }), 'post', path);
      expectError(
        await api(t, 'post', `/user_groups/${top}/subgroups`, OTHELLO, { delete: [a] }),
        'post',
        path,
        'Insufficient permission',
      );
      expectSuccess(await api(t, 'post', `/user_groups/${top}/subgroups`, IAGO, { delete: [a] }), 'post', path);
      expectError(
        await api(t, 'post', `/user_groups/${top}/subgroups`, POLONIUS, { add: [a] }),
        'post',
        path,
        'Not allowed for guest users',
      );
    });

    it('lets members of a nested group hold a permission', async () => {
      const managers = await createOk(IAGO, { name: fresh('managers'), members: [ids[AARON]] });
      const wrapper = await createOk(IAGO, { name: fresh('wrapper'), subgroups: [managers] });
      const target = await createOk(IAGO, { name: fresh(), can_manage_group: wrapper });
      expectSuccess(
        await api(t, 'patch', `/user_groups/${target}`, AARON, { description: 'by aaron' }),
        'patch',
        '/user_groups/{user_group_id}',
      );
      expectError(
        await api(t, 'patch', `/user_groups/${target}`, ZOE, { description: 'by zoe' }),
        'patch',
        '/user_groups/{user_group_id}',
        'Insufficient permission',
      );
      // A deactivated member holds nothing.
      await t.dataSource.query(`UPDATE user_profile SET is_active = false WHERE id = $1`, [ids[AARON]]);
      const members = expectSuccess(
        await api(t, 'get', `/user_groups/${target}/members`, HAMLET),
        'get',
        '/user_groups/{user_group_id}/members',
      );
      expect(members.members).toEqual([]);
      await t.dataSource.query(`UPDATE user_profile SET is_active = true WHERE id = $1`, [ids[AARON]]);
    });
  });

  describe('PATCH /user_groups/{id}', () => {
    const path = '/user_groups/{user_group_id}';

    it('updates name, description and settings with update events', async () => {
      const id = await createOk(IAGO, { name: fresh() });
      const q = await queue(t, HAMLET, ['user_group']);
      const name = fresh('renamed');
      expectSuccess(
        await api(t, 'patch', `/user_groups/${id}`, IAGO, {
          name,
          description: 'New description',
          can_mention_group: { new: sys.members, old: sys.everyone },
          can_manage_group: {
            new: { direct_members: [ids[HAMLET], ids[OTHELLO]], direct_subgroups: [sys.administrators] },
          },
        }),
        'patch',
        path,
      );
      const g = await group(id);
      expect(g).toMatchObject({
        name,
        description: 'New description',
        can_mention_group: sys.members,
        can_manage_group: {
          direct_members: [ids[HAMLET], ids[OTHELLO]].sort((a, b) => a - b),
          direct_subgroups: [sys.administrators],
        },
      });
      expect(await events(t, q)).toEqual([
        { type: 'user_group', op: 'update', group_id: id, data: { name } },
        { type: 'user_group', op: 'update', group_id: id, data: { description: 'New description' } },
        { type: 'user_group', op: 'update', group_id: id, data: { can_manage_group: g.can_manage_group } },
        { type: 'user_group', op: 'update', group_id: id, data: { can_mention_group: sys.members } },
      ]);
      // Unchanged values send nothing.
      expectSuccess(
        await api(t, 'patch', `/user_groups/${id}`, IAGO, { name, can_mention_group: { new: sys.members } }),
        'patch',
        path,
      );
      expect(await events(t, q)).toEqual([]);
    });

    it('updates an anonymous setting in place and drops it when a named group replaces it', async () => {
      const id = await createOk(IAGO, { name: fresh() });
      const [{ g: before }] = await t.dataSource.query<Array<{ g: number }>>(
        `SELECT can_manage_group AS g FROM user_group WHERE id = $1`,
        [id],
      );
      await api(t, 'patch', `/user_groups/${id}`, IAGO, {
        can_manage_group: { new: { direct_members: [ids[ZOE]], direct_subgroups: [sys.moderators] } },
      });
      const [{ g: after }] = await t.dataSource.query<Array<{ g: number }>>(
        `SELECT can_manage_group AS g FROM user_group WHERE id = $1`,
        [id],
      );
      expect(after).toBe(before);
      await api(t, 'patch', `/user_groups/${id}`, IAGO, { can_manage_group: { new: sys.moderators } });
      const left = await t.dataSource.query(`SELECT 1 FROM user_group WHERE id = $1`, [before]);
      expect(left).toEqual([]);
    });

    it('checks old values and the allowed groups', async () => {
      const id = await createOk(IAGO, { name: fresh() });
      const url = `/user_groups/${id}`;
      const res = await api(t, 'patch', url, IAGO, { can_mention_group: { new: sys.members, old: sys.moderators } });
      expectError(res, 'patch', path, "'old' value does not match the expected value.", 'EXPECTATION_MISMATCH');
      expectError(
        await api(t, 'patch', url, IAGO, {
          can_manage_group: { new: sys.members, old: { direct_members: [ids[HAMLET]], direct_subgroups: [] } },
        }),
        'patch',
        path,
        "'old' value does not match the expected value.",
        'EXPECTATION_MISMATCH',
      );
      expectSuccess(
        await api(t, 'patch', url, IAGO, {
          can_manage_group: { new: sys.members, old: { direct_members: [ids[IAGO]], direct_subgroups: [] } },
        }),
        'patch',
        path,
      );
      expectError(
        await api(t, 'patch', url, IAGO, { can_manage_group: { new: sys.everyone } }),
        'patch',
        path,
        "'can_manage_group' setting cannot be set to 'role:everyone' group.",
      );
      expectError(
        await api(t, 'patch', url, IAGO, { can_mention_group: { new: sys.internet } }),
        'patch',
        path,
        "'can_mention_group' setting cannot be set to 'role:internet' group.",
      );
      expectError(
        await api(t, 'patch', url, IAGO, { can_mention_group: { new: 999999 } }),
        'patch',
        path,
        'Invalid user group',
      );
      expectError(
        await api(t, 'patch', url, IAGO, { can_mention_group: sys.members }),
        'patch',
        path,
        'can_mention_group is not a dict',
      );
      expectError(
        await api(t, 'patch', url, IAGO, { can_mention_group: { old: sys.members } }),
        'patch',
        path,
        'can_mention_group["new"] field is missing: Field required',
      );
      expectError(await api(t, 'patch', url, IAGO, {}), 'patch', path, 'No new data supplied');
      expectError(
        await api(t, 'patch', url, IAGO, { name: 'role:x' }),
        'patch',
        path,
        "User group name cannot start with 'role:'.",
      );
      expectError(
        await api(t, 'patch', url, IAGO, { name: 'hamletcharacters' }),
        'patch',
        path,
        "User group 'hamletcharacters' already exists.",
      );
      expectError(
        await api(t, 'patch', '/user_groups/999999', IAGO, { name: 'x' }),
        'patch',
        path,
        'Invalid user group',
      );
    });

    it('needs can_manage_group (or can_manage_all_groups); system groups are never editable', async () => {
      const id = await createOk(HAMLET, { name: fresh() });
      expectError(
        await api(t, 'patch', `/user_groups/${id}`, OTHELLO, { description: 'x' }),
        'patch',
        path,
        'Insufficient permission',
      );
      expectError(
        await api(t, 'patch', `/user_groups/${id}`, SHIVA, { description: 'x' }),
        'patch',
        path,
        'Insufficient permission',
      );
      expectSuccess(
        await api(t, 'patch', `/user_groups/${id}`, HAMLET, { description: 'by the creator' }),
        'patch',
        path,
      );
      expectSuccess(
        await api(t, 'patch', `/user_groups/${id}`, IAGO, { description: 'by an administrator' }),
        'patch',
        path,
      );
      expectError(
        await api(t, 'patch', `/user_groups/${sys.members}`, DESDEMONA, { description: 'x' }),
        'patch',
        path,
        'Insufficient permission',
      );
      expectError(
        await api(t, 'patch', `/user_groups/${id}`, POLONIUS, { description: 'x' }),
        'patch',
        path,
        'Not allowed for guest users',
      );
    });
  });

  describe('deactivation', () => {
    const path = '/user_groups/{user_group_id}/deactivate';

    async function registerWithCapability(email: string, includeDeactivated: boolean): Promise<Queue> {
      const res = await t
        .http()
        .post('/api/v1/register')
        .auth(...(await t.auth(email)))
        .type('form')
        .send({
          event_types: JSON.stringify(['user_group']),
          fetch_event_types: '[]',
          client_capabilities: JSON.stringify({ include_deactivated_groups: includeDeactivated }),
        });
      return { email, queueId: res.body.queue_id as string, lastEventId: res.body.last_event_id as number };
    }

    it('deactivates and reactivates, with events depending on include_deactivated_groups', async () => {
      const id = await createOk(IAGO, { name: fresh(), members: [ids[HAMLET]] });
      const modern = await registerWithCapability(HAMLET, true);
      const legacy = await registerWithCapability(OTHELLO, false);
      expectSuccess(await api(t, 'post', `/user_groups/${id}/deactivate`, IAGO), 'post', path);
      expect((await group(id)).deactivated).toBe(true);
      expect(await events(t, modern)).toEqual([
        { type: 'user_group', op: 'update', group_id: id, data: { deactivated: true } },
      ]);
      expect(await events(t, legacy)).toEqual([{ type: 'user_group', op: 'remove', group_id: id }]);

      expectError(
        await api(t, 'post', `/user_groups/${id}/deactivate`, IAGO),
        'post',
        path,
        'User group is deactivated.',
      );
      // A deactivated group may still be renamed and is reactivated through PATCH.
      expectSuccess(
        await api(t, 'patch', `/user_groups/${id}`, IAGO, { deactivated: false }),
        'patch',
        '/user_groups/{user_group_id}',
      );
      const g = await group(id);
      expect(g.deactivated).toBe(false);
      expect(await events(t, modern)).toEqual([
        { type: 'user_group', op: 'update', group_id: id, data: { deactivated: false } },
      ]);
      expect(await events(t, legacy)).toEqual([{ type: 'user_group', op: 'add', group: g }]);
    });

    it('refuses a group in use, listing the objections', async () => {
      const used = await createOk(IAGO, { name: fresh('used') });
      const parent = await createOk(IAGO, { name: fresh('parent'), subgroups: [used] });
      const user = await createOk(IAGO, {
        name: fresh('user'),
        can_mention_group: used,
        can_manage_group: { direct_members: [ids[HAMLET]], direct_subgroups: [used] },
      });
      await api(t, 'patch', '/realm', DESDEMONA, { can_create_groups: { new: used } });
      const res = await api(t, 'post', `/user_groups/${used}/deactivate`, IAGO);
      expectError(res, 'post', path, 'Cannot deactivate user group in use.', 'CANNOT_DEACTIVATE_GROUP_IN_USE');
      expect(res.body.objections).toEqual([
        { type: 'subgroup', supergroup_ids: [parent] },
        { type: 'user_group', group_id: user, settings: ['can_manage_group', 'can_mention_group'] },
        { type: 'realm', settings: ['can_create_groups'] },
      ]);
      await api(t, 'patch', '/realm', DESDEMONA, { can_create_groups: { new: sys.members } });
      await api(t, 'patch', `/user_groups/${user}`, IAGO, {
        can_mention_group: { new: sys.everyone },
        can_manage_group: { new: sys.administrators },
      });
      // A deactivated supergroup does not object.
      await api(t, 'post', `/user_groups/${parent}/deactivate`, IAGO);
      expectSuccess(await api(t, 'post', `/user_groups/${used}/deactivate`, IAGO), 'post', path);
    });

    it('needs can_manage_group; system groups cannot be deactivated', async () => {
      const id = await createOk(HAMLET, { name: fresh() });
      expectError(
        await api(t, 'post', `/user_groups/${id}/deactivate`, OTHELLO),
        'post',
        path,
        'Insufficient permission',
      );
      expectError(
        await api(t, 'post', `/user_groups/${id}/deactivate`, POLONIUS),
        'post',
        path,
        'Insufficient permission',
      );
      expectError(
        await api(t, 'post', `/user_groups/${sys.members}/deactivate`, DESDEMONA),
        'post',
        path,
        'Insufficient permission',
      );
      expectError(
        await api(t, 'post', '/user_groups/999999/deactivate', DESDEMONA),
        'post',
        path,
        'Invalid user group',
      );
      expectSuccess(await api(t, 'post', `/user_groups/${id}/deactivate`, HAMLET), 'post', path);
    });
  });
});
