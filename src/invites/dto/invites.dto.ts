import { IsArray, IsBoolean, IsIn, IsInt, IsString, ValidateIf } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';
import { ROLE_CODES } from '../../realm/system-groups';

/** Zulip's INVITATION_LINK_VALIDITY_DAYS (10) in minutes: the default validity. */
export const DEFAULT_INVITE_VALIDITY_MINUTES = 10 * 24 * 60;

/** POST /invites, in the (alphabetical) order of Zulip's typed_endpoint. */
export class InviteUsersArgs {
  @OptionalArg({ default: null })
  @ValidateIf((o: InviteUsersArgs) => o.group_ids !== null)
  @IsArray()
  @IsInt({ each: true })
  group_ids: number[] | null;

  @OptionalArg({ default: false }) @IsBoolean() include_realm_default_subscriptions: boolean;

  @OptionalArg({ default: 400 }) @IsInt() @IsIn([...ROLE_CODES]) invite_as: number;

  @OptionalArg({ default: DEFAULT_INVITE_VALIDITY_MINUTES })
  @ValidateIf((o: InviteUsersArgs) => o.invite_expires_in_minutes !== null)
  @IsInt()
  invite_expires_in_minutes: number | null;

  @Arg() @IsString() invitee_emails: string;

  @OptionalArg({ default: true }) @IsBoolean() notify_referrer_on_join: boolean;

  @Arg() @IsArray() @IsInt({ each: true }) stream_ids: number[];
}

/** POST /invites/multiuse. */
export class MultiuseInviteArgs {
  @OptionalArg({ default: null })
  @ValidateIf((o: MultiuseInviteArgs) => o.group_ids !== null)
  @IsArray()
  @IsInt({ each: true })
  group_ids: number[] | null;

  @OptionalArg({ default: false }) @IsBoolean() include_realm_default_subscriptions: boolean;

  @OptionalArg({ default: 400 }) @IsInt() @IsIn([...ROLE_CODES]) invite_as: number;

  @OptionalArg({ default: DEFAULT_INVITE_VALIDITY_MINUTES })
  @ValidateIf((o: MultiuseInviteArgs) => o.invite_expires_in_minutes !== null)
  @IsInt()
  invite_expires_in_minutes: number | null;

  @OptionalArg({ default: null })
  @ValidateIf((o: MultiuseInviteArgs) => o.stream_ids !== null)
  @IsArray()
  @IsInt({ each: true })
  stream_ids: number[] | null;
}
