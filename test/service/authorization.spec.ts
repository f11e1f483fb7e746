/**
 * The authorization kernel on real SQL (docs/DEVELOPING.md "Authorization: principals and
 * `holds`"): PrincipalService loads principals, with every group reached through nested
 * subgroups, in one query however many users and however deep the nesting; `holds` answers from
 * them without SQL.
 */
import { Role } from '../../src/common/roles';
import { holds } from '../../src/users/principal';
import { PrincipalService } from '../../src/users/principal.service';
import { UserAdminService } from '../../src/users/user-admin.service';
import { assertQueryCount } from '../helpers/query-counter';
import { ServiceHarness, startServiceHarness } from './harness';

describe('PrincipalService and holds (service tier)', () => {
  let h: ServiceHarness;
  let principals: PrincipalService;
  /** outer ⊃ middle ⊃ inner ⊃ {hamlet}; cordelia directly in outer. */
  let inner: number;
  let middle: number;
  let outer: number;

  beforeAll(async () => {
    h = await startServiceHarness();
    principals = h.get(PrincipalService);
    inner = await h.createGroup('iago@zulip.com', 'kernel inner', ['hamlet@zulip.com']);
    middle = await h.createGroup('iago@zulip.com', 'kernel middle', [], [inner]);
    outer = await h.createGroup('iago@zulip.com', 'kernel outer', ['cordelia@zulip.com'], [middle]);
  });
  afterAll(() => h.close());

  it('gives a principal every group reached through nested subgroups', async () => {
    const hamlet = await principals.of(await h.user('hamlet@zulip.com'));
    expect([inner, middle, outer].map((g) => hamlet.groupIds.has(g))).toEqual([true, true, true]);
    const cordelia = await principals.of(await h.user('cordelia@zulip.com'));
    expect([inner, middle, outer].map((g) => cordelia.groupIds.has(g))).toEqual([false, false, true]);
    expect([inner, middle, outer].map((g) => holds(hamlet, g))).toEqual([true, true, true]);
    expect([inner, middle, outer].map((g) => holds(cordelia, g))).toEqual([false, false, true]);
  });

  it('loads any number of principals with one query', async () => {
    const realm = await h.realm();
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push((await h.createUser(realm, { email: `kernel${i}@zulip.com` })).id);
    }
    await principals.ofMany([ids[0]]); // the realm's system groups, cached after the first load
    const hamlet = (await h.user('hamlet@zulip.com')).id;
    const loaded = await assertQueryCount(1, () => principals.ofMany([...ids, hamlet]));
    expect(loaded.size).toBe(13);
  });

  it('answers a system-group setting from the role alone, with no query', async () => {
    const realm = await h.realm();
    const system = await principals.systemGroupIds(realm.id);
    const members = system.get('role:members')!;
    const hamlet = await h.user('hamlet@zulip.com');
    const polonius = await h.user('polonius@zulip.com');
    expect(await assertQueryCount(0, () => principals.userHolds(hamlet, realm.id, members))).toBe(true);
    expect(await assertQueryCount(0, () => principals.userHolds(polonius, realm.id, members))).toBe(false);
    // A user-defined group needs the principal: one query.
    expect(await assertQueryCount(1, () => principals.userHolds(hamlet, realm.id, outer))).toBe(true);
  });

  it('refuses a deactivated member and a guest where the setting may not be role:everyone', async () => {
    const realm = await h.realm();
    const guest = await h.createUser(realm, { email: 'kernel-guest@zulip.com', role: Role.GUEST });
    const group = await h.createGroup('iago@zulip.com', 'kernel guests', [guest], [outer]);
    const principal = await principals.of(guest);
    expect(holds(principal, group, true)).toBe(true);
    expect(holds(principal, group, false)).toBe(false);
    const zoe = await h.user('ZOE@zulip.com');
    const direct = await h.createGroup('iago@zulip.com', 'kernel zoe', [zoe]);
    await h.get(UserAdminService).deactivateUser(await h.auth('iago@zulip.com'), zoe.id);
    expect(holds(await principals.of(zoe), direct)).toBe(false);
  });
});
