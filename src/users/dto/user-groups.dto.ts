import { IsArray, IsBoolean, IsInt, IsString } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';
import { IsGroupSettingChange, IsGroupSettingValue } from './group-setting.validators';

/** POST /user_groups/create; parameters in Zulip's (alphabetical) order. */
export class CreateUserGroupArgs {
  @OptionalArg({ json: true }) @IsGroupSettingValue() can_add_members_group?: unknown;
  @OptionalArg({ json: true }) @IsGroupSettingValue() can_join_group?: unknown;
  @OptionalArg({ json: true }) @IsGroupSettingValue() can_leave_group?: unknown;
  @OptionalArg({ json: true }) @IsGroupSettingValue() can_manage_group?: unknown;
  @OptionalArg({ json: true, aliases: ['can_mention_group_id'] }) @IsGroupSettingValue() can_mention_group?: unknown;
  @OptionalArg({ json: true }) @IsGroupSettingValue() can_remove_members_group?: unknown;
  @Arg() @IsString() description: string;
  @Arg() @IsArray() @IsInt({ each: true }) members: number[];
  @Arg() @IsString() name: string;
  @OptionalArg() @IsArray() @IsInt({ each: true }) subgroups?: number[];
}

export class GetUserGroupsArgs {
  @OptionalArg({ default: false }) @IsBoolean() include_deactivated_groups: boolean;
}

/** PATCH /user_groups/{id}. */
export class UpdateUserGroupArgs {
  @OptionalArg({ json: true }) @IsGroupSettingChange() can_add_members_group?: unknown;
  @OptionalArg({ json: true }) @IsGroupSettingChange() can_join_group?: unknown;
  @OptionalArg({ json: true }) @IsGroupSettingChange() can_leave_group?: unknown;
  @OptionalArg({ json: true }) @IsGroupSettingChange() can_manage_group?: unknown;
  @OptionalArg({ json: true }) @IsGroupSettingChange() can_mention_group?: unknown;
  @OptionalArg({ json: true }) @IsGroupSettingChange() can_remove_members_group?: unknown;
  @OptionalArg() @IsBoolean() deactivated?: boolean;
  @OptionalArg() @IsString() description?: string;
  @OptionalArg() @IsString() name?: string;
}

/** POST /user_groups/{id}/members. */
export class UpdateUserGroupMembersArgs {
  @OptionalArg() @IsArray() @IsInt({ each: true }) add?: number[];
  @OptionalArg() @IsArray() @IsInt({ each: true }) add_subgroups?: number[];
  @OptionalArg() @IsArray() @IsInt({ each: true }) delete?: number[];
  @OptionalArg() @IsArray() @IsInt({ each: true }) delete_subgroups?: number[];
}

/** POST /user_groups/{id}/subgroups. */
export class UpdateUserGroupSubgroupsArgs {
  @OptionalArg() @IsArray() @IsInt({ each: true }) add?: number[];
  @OptionalArg() @IsArray() @IsInt({ each: true }) delete?: number[];
}

export class DirectMemberOnlyArgs {
  @OptionalArg({ default: false }) @IsBoolean() direct_member_only: boolean;
}

export class DirectSubgroupOnlyArgs {
  @OptionalArg({ default: false }) @IsBoolean() direct_subgroup_only: boolean;
}
