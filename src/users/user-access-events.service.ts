import { Injectable } from '@nestjs/common';
import { EventsService } from '../events/events.service';
import type { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { Role } from '../realm/system-groups';
import { ProfileDataService } from './profile-data.service';
import { AccessChange, INACCESSIBLE_USER_NAME } from './user-access';
import { userDict } from './user-format';
import { UsersRepository } from './users.repository';

/**
 * The `realm_user` events of a restricted guest whose set of visible users changed (subscriptions
 * joined or left, pairs from accessChangesOnSubscriptions): Zulip's notify_created_user for each
 * user they gained (`add` with the user as a guest sees them) and a `realm_user` `remove` with the
 * "Unknown user" name for each they lost. Inside the caller's transaction: the events commit with
 * it. Two queries for the users gained (rows and profile data), whatever their number; none for
 * losses.
 */
@Injectable()
export class UserAccessEventsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly profileData: ProfileDataService,
    private readonly realms: RealmService,
    private readonly events: EventsService,
  ) {}

  async announce(realm: Realm, gained: readonly AccessChange[], lost: readonly AccessChange[]): Promise<void> {
    if (gained.length > 0) {
      const viewersOf = groupByUser(gained);
      const ids = [...viewersOf.keys()];
      const rows = await this.users.listInRealm(realm.id, ids);
      const profiles = await this.profileData.profileDataByUser(realm.id, ids);
      const host = this.realms.realmHost(realm);
      for (const user of rows) {
        // Every viewer is a guest (only guests are restricted): one dict serves them all.
        const person = userDict(user, {
          viewer: { id: 0, role: Role.GUEST },
          realmHost: host,
          clientGravatar: false,
          profileData: profiles.get(user.id) ?? {},
        });
        this.events.sendOnCommit(realm.id, { type: 'realm_user', op: 'add', person }, viewersOf.get(user.id)!);
      }
    }
    for (const [userId, viewers] of groupByUser(lost)) {
      this.events.sendOnCommit(
        realm.id,
        { type: 'realm_user', op: 'remove', person: { user_id: userId, full_name: INACCESSIBLE_USER_NAME } },
        viewers,
      );
    }
  }
}

function groupByUser(changes: readonly AccessChange[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const c of changes) {
    const list = out.get(c.userId);
    if (list) list.push(c.viewerId);
    else out.set(c.userId, [c.viewerId]);
  }
  return out;
}
