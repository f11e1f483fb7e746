import { Injectable, OnModuleInit } from '@nestjs/common';
import { RealmUsers } from '../realm/realm-users';
import { GroupMembershipRepository } from './group-membership.repository';
import { ProfileValuesRepository } from './profile-values.repository';
import { UserDirectoryService } from './user-directory.service';

/** Fills realm's `RealmUsers` slot at start-up: realm reaches users' tables only through it. */
@Injectable()
export class RealmUserLinksProvider implements OnModuleInit {
  constructor(
    private readonly slot: RealmUsers,
    private readonly directory: UserDirectoryService,
    private readonly groups: GroupMembershipRepository,
    private readonly profileValues: ProfileValuesRepository,
  ) {}

  onModuleInit(): void {
    this.slot.provide({
      activeUserIds: (realmId) => this.directory.activeUserIds(realmId),
      createSystemGroups: (realmId) => this.groups.createSystemGroups(realmId),
      systemGroupIds: (realmId) => this.groups.systemGroupIds(realmId),
      deleteProfileValuesIn: (fieldId, values) => this.profileValues.deleteValuesIn(fieldId, values),
    });
  }
}
