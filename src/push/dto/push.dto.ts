import { IsString, Matches, MaxLength } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

export class AddApnsTokenArgs {
  @Arg()
  @IsString()
  token: string;

  @Arg()
  @IsString()
  @Matches(/^[.a-zA-Z0-9-]+$/)
  @MaxLength(255) // the ios_app_id column's length
  appid: string;
}

export class TokenArgs {
  @Arg()
  @IsString()
  token: string;
}

export class TestNotificationArgs {
  /** Only the devices registered with this token (Zulip: the app passes its own). */
  @OptionalArg()
  @IsString()
  token?: string;
}
