import { countQueries } from '../../helpers/query-counter';
import { startTestApp, TestApp } from '../../helpers/test-app';
import { call, expectSuccess, HAMLET, IAGO, sendChannel, setRealm, subscribe, systemGroupId, userId } from './helpers';

/**
 * The authorization kernel (users/principal.ts): permission checks load the principals they need in
 * one query — the sender's and every recipient's role and recursive groups — and answer every
 * group-setting question from them, so sends, edits and moves make a constant number of permission
 * queries whatever the number of recipients or the depth of nested groups.
 */
describe('permission queries of sends, edits and moves', () => {
  let t: TestApp;
  /** Extra users: recipients outside every group but the innermost one's member. */
  let extra: number[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const realm = await t.dataSource.query<Array<{ id: number }>>(`SELECT id FROM realm WHERE string_id = 'zulip'`);
    const rows = await t.dataSource.query<Array<{ id: number }>>(
      `INSERT INTO user_profile (realm_id, delivery_email, full_name, api_key_digest, api_key_ciphertext)
       SELECT $1, 'permq' || g || '@zulip.com', 'Recipient ' || g, md5('permq-a' || g) || md5('permq-b' || g), 'x'
         FROM generate_series(1, 13) AS g RETURNING id`,
      [realm[0].id],
    );
    extra = rows.map((r) => r.id);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Named groups nested `depth` deep (outer ⊃ … ⊃ inner), `members` in the innermost; returns the outer id. */
  async function nestedGroups(prefix: string, depth: number, members: number[]): Promise<number> {
    let inner: number | null = null;
    for (let level = depth; level >= 1; level--) {
      const res = await call(t, 'post', '/user_groups/create', IAGO, {
        name: `${prefix} ${level}`,
        description: 'nested',
        members: inner === null ? members : [],
        ...(inner === null ? {} : { subgroups: [inner] }),
      });
      expectSuccess(res);
      inner = (res.body as { group_id: number }).group_id;
    }
    return inner!;
  }

  const isPermissionQuery = (sql: string) => /group_group_membership|user_group_membership/.test(sql);

  async function measuredDirect(to: number[]): Promise<{ count: number; permission: number }> {
    const { result, count, queries } = await countQueries(() =>
      call(t, 'post', '/messages', HAMLET, { type: 'direct', to, content: 'permissions' }),
    );
    expect(result.status).toBe(200);
    return { count, permission: queries.filter(isPermissionQuery).length };
  }

  it('a direct message to 10 users allowed by a group 10 levels deep costs what one to 2 users and one group costs', async () => {
    // Only the last recipient is in the setting's group: every participant has to be asked.
    const [a, b, c, ...rest] = extra;
    const warm = await nestedGroups('Warm', 1, [b]);
    await setRealm(t, { direct_message_permission_group: warm });
    await measuredDirect([a, b]); // caches: auth, realm, system groups

    const shallow = await nestedGroups('Shallow', 1, [c]);
    await setRealm(t, { direct_message_permission_group: shallow });
    const small = await measuredDirect([a, c]);

    const ten = rest.slice(0, 9);
    const last = rest[9];
    const deep = await nestedGroups('Deep', 10, [last]);
    await setRealm(t, { direct_message_permission_group: deep });
    const large = await measuredDirect([...ten, last]);

    expect(small.permission).toBe(1);
    expect(large.permission).toBe(1);
    expect(large.count).toBe(small.count);
  });

  it('a direct message no participant is allowed to send is still refused', async () => {
    const nobodyHere = await nestedGroups('Nobody here', 3, [await userId(t, IAGO)]);
    await setRealm(t, { direct_message_permission_group: nobodyHere });
    const res = await call(t, 'post', '/messages', HAMLET, { type: 'direct', to: extra.slice(0, 5), content: 'x' });
    expect(res.status).toBe(400);
    await setRealm(t, { direct_message_permission_group: await systemGroupId(t, 'role:everyone') });
  });

  it('moving a topic checks several group settings with one permission query', async () => {
    await subscribe(t, HAMLET, 'Denmark');
    const hamlet = await userId(t, HAMLET);
    const mover = await nestedGroups('Movers', 10, [hamlet]);
    await setRealm(t, {
      can_move_messages_between_topics_group: mover,
      can_resolve_topics_group: mover,
      move_messages_within_stream_limit_seconds: null,
    });
    const id = await sendChannel(t, HAMLET, 'Denmark', 'old topic', 'to be moved');
    await call(t, 'get', '/users/me', HAMLET); // auth cache
    const { result, queries } = await countQueries(() =>
      call(t, 'patch', `/messages/${id}`, HAMLET, { topic: 'new topic', propagate_mode: 'change_all' }),
    );
    expectSuccess(result);
    expect(queries.filter(isPermissionQuery)).toHaveLength(1);
  });
});
