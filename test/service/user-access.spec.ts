/**
 * can_access_all_users_group on real SQL (UserAccessService): in a realm that restricts it, a
 * guest may see only the users they share a channel or a direct conversation with. Nothing is
 * loaded while the realm does not restrict access.
 */
import { Role } from '../../src/common/roles';
import { RealmService } from '../../src/realm/realm.service';
import type { Realm } from '../../src/realm/realm.entity';
import type { UserProfile } from '../../src/users/user.entity';
import { UserAccessService } from '../../src/users/user-access.service';
import { PrincipalService } from '../../src/users/principal.service';
import { assertQueryCount } from '../helpers/query-counter';
import { ServiceHarness, startServiceHarness } from './harness';

describe('UserAccessService.whoCannotAccess (service tier)', () => {
  let h: ServiceHarness;
  let access: UserAccessService;
  let realm: Realm;
  let guest: UserProfile;
  let lonelyGuest: UserProfile;
  let target: UserProfile;
  let member: UserProfile;

  const target_ = () => ({ id: target.id, isBot: false, isActive: true });
  const restrict = async (on: boolean) => {
    const system = await h.get(PrincipalService).systemGroupIds(realm.id);
    await h.get(RealmService).updateRealm(realm.id, {
      can_access_all_users_group: system.get(on ? 'role:members' : 'role:everyone')!,
    });
    realm = await h.realm();
  };

  beforeAll(async () => {
    h = await startServiceHarness();
    access = h.get(UserAccessService);
    realm = await h.realm();
    guest = await h.createUser(realm, { email: 'access-guest@zulip.com', role: Role.GUEST });
    lonelyGuest = await h.createUser(realm, { email: 'access-lonely@zulip.com', role: Role.GUEST });
    target = await h.createUser(realm, { email: 'access-target@zulip.com' });
    member = await h.createUser(realm, { email: 'access-member@zulip.com' });
    await h.createChannel('iago@zulip.com', 'access shared', { inviteOnly: true, subscribers: [guest, target] });
  });
  afterAll(() => h.close());

  it('is empty, with no query, while the realm lets everyone see everyone', async () => {
    await restrict(false);
    await h.get(PrincipalService).systemGroupIds(realm.id);
    const none = await assertQueryCount(0, () => access.whoCannotAccess(realm, target_(), [guest.id, lonelyGuest.id]));
    expect([...none]).toEqual([]);
  });

  it('names the guests who share nothing with the user, in two statements', async () => {
    await restrict(true);
    const refused = await assertQueryCount(2, () =>
      access.whoCannotAccess(realm, target_(), [guest.id, lonelyGuest.id, member.id]),
    );
    expect([...refused]).toEqual([lonelyGuest.id]);
  });

  it('never refuses a bot, and lets a guest see a new channel peer', async () => {
    expect([...(await access.whoCannotAccess(realm, { ...target_(), isBot: true }, [lonelyGuest.id]))]).toEqual([]);
    await h.createChannel('iago@zulip.com', 'access later', { subscribers: [lonelyGuest, target] });
    expect([...(await access.whoCannotAccess(realm, target_(), [guest.id, lonelyGuest.id]))]).toEqual([]);
  });
});
