import { IsArray, IsBoolean, IsInt, IsString } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

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
