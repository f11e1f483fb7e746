import { Controller, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, HumanOnly, NoGuests } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import {
  CreateUserGroupArgs,
  DirectMemberOnlyArgs,
  DirectSubgroupOnlyArgs,
  GetUserGroupsArgs,
  UpdateUserGroupArgs,
  UpdateUserGroupMembersArgs,
  UpdateUserGroupSubgroupsArgs,
} from './dto/user-groups.dto';
import { GroupSettingChange } from './group-setting-values';
import { CanCreateGroupsGuard } from './user-guards';
import { USER_GROUP_SETTING_NAMES, UserGroupSettingName } from './user-groups.policy';
import { UserGroupsQueryService } from './user-groups-query.service';
import { UserGroupsService } from './user-groups.service';
import { UsersService } from './users.service';

/** Zulip's zerver/views/user_groups.py. */
@Controller('api/v1/user_groups')
export class UserGroupsController {
  constructor(
    private readonly groups: UserGroupsService,
    private readonly query: UserGroupsQueryService,
    private readonly users: UsersService,
  ) {}

  @Get()
  @NoGuests()
  @HumanOnly()
  async list(@CurrentUser() auth: AuthContext, @Args(GetUserGroupsArgs) args: GetUserGroupsArgs) {
    const userGroups = await this.query.listGroupsForApi(auth.realm.id, {
      includeDeactivated: args.include_deactivated_groups,
    });
    return { user_groups: userGroups };
  }

  @Post('create')
  @HttpCode(200)
  @NoGuests()
  @HumanOnly()
  @UseGuards(CanCreateGroupsGuard)
  async create(@CurrentUser() auth: AuthContext, @Args(CreateUserGroupArgs) args: CreateUserGroupArgs) {
    const settings: Partial<Record<UserGroupSettingName, unknown>> = {};
    for (const name of USER_GROUP_SETTING_NAMES) if (args[name] !== undefined) settings[name] = args[name];
    const groupId = await this.groups.createGroup(auth, {
      name: args.name,
      description: args.description,
      members: args.members,
      subgroups: args.subgroups,
      settings,
    });
    return { group_id: groupId };
  }

  @Patch(':user_group_id')
  @NoGuests()
  @HumanOnly()
  async update(
    @CurrentUser() auth: AuthContext,
    @Param('user_group_id', PathIntPipe) groupId: number,
    @Args(UpdateUserGroupArgs) args: UpdateUserGroupArgs,
  ) {
    const settings: Partial<Record<UserGroupSettingName, GroupSettingChange>> = {};
    for (const name of USER_GROUP_SETTING_NAMES) {
      if (args[name] !== undefined) settings[name] = args[name] as GroupSettingChange;
    }
    await this.groups.updateGroup(auth, groupId, {
      name: args.name,
      description: args.description,
      deactivated: args.deactivated,
      settings,
    });
    return {};
  }

  @Post(':user_group_id/deactivate')
  @HttpCode(200)
  async deactivate(@CurrentUser() auth: AuthContext, @Param('user_group_id', PathIntPipe) groupId: number) {
    await this.groups.deactivateGroup(auth, groupId);
    return {};
  }

  @Get(':user_group_id/members')
  @NoGuests()
  @HumanOnly()
  async members(
    @CurrentUser() auth: AuthContext,
    @Param('user_group_id', PathIntPipe) groupId: number,
    @Args(DirectMemberOnlyArgs) args: DirectMemberOnlyArgs,
  ) {
    return { members: await this.groups.memberIds(auth.realm.id, groupId, args.direct_member_only) };
  }

  @Post(':user_group_id/members')
  @HttpCode(200)
  @NoGuests()
  @HumanOnly()
  async updateMembers(
    @CurrentUser() auth: AuthContext,
    @Param('user_group_id', PathIntPipe) groupId: number,
    @Args(UpdateUserGroupMembersArgs) args: UpdateUserGroupMembersArgs,
  ) {
    await this.groups.updateMembers(auth, groupId, {
      add: args.add,
      delete: args.delete,
      addSubgroups: args.add_subgroups,
      deleteSubgroups: args.delete_subgroups,
    });
    return {};
  }

  @Get(':user_group_id/members/:user_id')
  @NoGuests()
  @HumanOnly()
  async isMember(
    @CurrentUser() auth: AuthContext,
    @Param('user_group_id', PathIntPipe) groupId: number,
    @Param('user_id', PathIntPipe) userId: number,
    @Args(DirectMemberOnlyArgs) args: DirectMemberOnlyArgs,
  ) {
    await this.groups.accessGroupToRead(auth.realm.id, groupId);
    const target = await this.users.accessUserById(auth.user, auth.realm, userId, { forAdmin: false });
    return {
      is_user_group_member: await this.groups.isMember(auth.realm.id, groupId, target.id, args.direct_member_only),
    };
  }

  @Get(':user_group_id/subgroups')
  @NoGuests()
  @HumanOnly()
  async subgroups(
    @CurrentUser() auth: AuthContext,
    @Param('user_group_id', PathIntPipe) groupId: number,
    @Args(DirectSubgroupOnlyArgs) args: DirectSubgroupOnlyArgs,
  ) {
    return { subgroups: await this.groups.subgroupIds(auth.realm.id, groupId, args.direct_subgroup_only) };
  }

  @Post(':user_group_id/subgroups')
  @HttpCode(200)
  @NoGuests()
  @HumanOnly()
  async updateSubgroups(
    @CurrentUser() auth: AuthContext,
    @Param('user_group_id', PathIntPipe) groupId: number,
    @Args(UpdateUserGroupSubgroupsArgs) args: UpdateUserGroupSubgroupsArgs,
  ) {
    await this.groups.updateSubgroups(auth, groupId, { add: args.add, delete: args.delete });
    return {};
  }
}
