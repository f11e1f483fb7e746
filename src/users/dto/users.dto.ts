import { IsArray, IsBoolean, IsInt, IsString, MaxLength, ValidateBy } from 'class-validator';
import { ZulipError } from '../../common/errors/zulip-error';
import { Arg, OptionalArg } from '../../common/http/params';
import { ROLE_CODES } from '../../realm/system-groups';
import { parseProfileData } from '../profile-values.policy';
import { ParamErrors } from '../../common/errors/param.errors';

/** `profile_data`: a list of `{id, value}` (parseProfileData gives Zulip's messages). */
function IsProfileData(): PropertyDecorator {
  const check = (value: unknown): string | undefined => {
    try {
      parseProfileData(value);
      return undefined;
    } catch (err) {
      if (err instanceof ZulipError) return err.message;
      throw err;
    }
  };
  return ValidateBy({
    name: 'isProfileData',
    validator: {
      validate: (value: unknown) => check(value) === undefined,
      defaultMessage: (args) => check(args?.value) ?? ParamErrors.invalid('profile_data').message,
    },
  });
}

export class GetUsersArgs {
  @OptionalArg({ default: true })
  @IsBoolean()
  client_gravatar: boolean;

  @OptionalArg({ default: false })
  @IsBoolean()
  include_custom_profile_fields: boolean;

  @OptionalArg()
  @IsArray()
  @IsInt({ each: true })
  user_ids?: number[];
}

export class GetUserArgs {
  @OptionalArg({ default: true })
  @IsBoolean()
  client_gravatar: boolean;

  @OptionalArg({ default: false })
  @IsBoolean()
  include_custom_profile_fields: boolean;
}

export class DevFetchApiKeyArgs {
  @Arg()
  @IsString()
  username: string;
}

export class FetchApiKeyArgs {
  @Arg()
  @IsString()
  password: string;

  @Arg()
  @IsString()
  username: string;
}

const ROLE_MESSAGE = ParamErrors.notInList('role').message;

function IsRole(): PropertyDecorator {
  return ValidateBy({
    name: 'isRole',
    validator: {
      validate: (value: unknown) => ROLE_CODES.includes(value as number),
      defaultMessage: () => ROLE_MESSAGE,
    },
  });
}

/** PATCH /users/{user_id} and /users/{email}, parameters in Zulip's order. */
export class UpdateUserArgs {
  @OptionalArg({ json: false }) @IsString() full_name?: string;
  @OptionalArg({ json: false }) @IsString() new_email?: string;
  @OptionalArg({ json: true }) @IsProfileData() profile_data?: unknown;
  @OptionalArg({ json: true }) @IsInt() @IsRole() role?: number;
}

/** DELETE /users/{user_id}. */
export class DeactivateUserArgs {
  @OptionalArg({ json: false }) @IsString() @MaxLength(2000) deactivation_notification_comment?: string;
}

/** POST /users. */
export class CreateUserArgs {
  @Arg() @IsString() email: string;
  @Arg() @IsString() full_name: string;
  @Arg() @IsString() password: string;
}
