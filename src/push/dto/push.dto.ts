import { IsString, Matches } from 'class-validator';
import { Arg } from '../../common/http/params';

export class AddApnsTokenArgs {
  @Arg()
  @IsString()
  token: string;

  @Arg()
  @IsString()
  @Matches(/^[.a-zA-Z0-9-]+$/)
  appid: string;
}

export class TokenArgs {
  @Arg()
  @IsString()
  token: string;
}
