import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { runInTransaction } from '../database/transaction';
import { GroupMembershipRepository } from './group-membership.repository';
import { GroupSettingsService } from './group-settings.service';

export interface NewGroup {
  name: string;
  description: string;
  creatorId: number;
  members: number[];
}

/** Writes to user groups. (The full API of user groups builds on this.) */
@Injectable()
export class UserGroupsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly membership: GroupMembershipRepository,
    private readonly groupSettings: GroupSettingsService,
  ) {}

  /**
   * Creates a named group with Zulip's default settings: can_add_members_group and
   * can_manage_group are the creator (an anonymous group), can_join_group and
   * can_remove_members_group role:nobody, can_leave_group and can_mention_group role:everyone.
   */
  async createSeedGroup(realmId: number, group: NewGroup): Promise<number> {
    return runInTransaction(this.dataSource, async () => {
      const system = await this.groupSettings.systemGroupIds(realmId);
      const creatorGroup = await this.membership.insertAnonymousGroup(realmId, [group.creatorId], []);
      return this.membership.insertNamedGroup(realmId, {
        name: group.name,
        description: group.description,
        creatorId: group.creatorId,
        members: group.members,
        subgroups: [],
        settings: {
          canAddMembersGroup: creatorGroup,
          canManageGroup: creatorGroup,
          canJoinGroup: system.get('role:nobody')!,
          canRemoveMembersGroup: system.get('role:nobody')!,
          canLeaveGroup: system.get('role:everyone')!,
          canMentionGroup: system.get('role:everyone')!,
        },
      });
    });
  }
}
