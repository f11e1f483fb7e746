import { IsBoolean, IsInt, IsString } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

/** POST /users/me/presence (update_active_status_backend), in Zulip's (alphabetical) order. */
export class UpdatePresenceArgs {
  @OptionalArg() @IsInt() history_limit_days?: number;
  @OptionalArg() @IsInt() last_update_id?: number;
  @OptionalArg({ default: false }) @IsBoolean() new_user_input: boolean;
  @OptionalArg({ default: false }) @IsBoolean() ping_only: boolean;
  @OptionalArg({ default: false }) @IsBoolean() slim_presence: boolean;
  @Arg({ json: false }) @IsString() status: string;
}

/** GET /users/{user_id_or_email}/presence. */
export class GetUserPresenceArgs {
  @OptionalArg({ default: false }) @IsBoolean() slim_presence: boolean;
}

/** POST /users/me/status (update_user_status_backend). */
export class UpdateStatusArgs {
  @OptionalArg() @IsBoolean() away?: boolean;
  @OptionalArg({ json: false }) @IsString() emoji_code?: string;
  @OptionalArg({ json: false }) @IsString() emoji_name?: string;
  @OptionalArg({ json: false }) @IsString() reaction_type?: string;
  @OptionalArg({ json: false }) @IsString() status_text?: string;
}

/** POST /users/{user_id}/status (update_user_status_admin): no `away`. */
export class UpdateStatusForUserArgs {
  @OptionalArg({ json: false }) @IsString() emoji_code?: string;
  @OptionalArg({ json: false }) @IsString() emoji_name?: string;
  @OptionalArg({ json: false }) @IsString() reaction_type?: string;
  @OptionalArg({ json: false }) @IsString() status_text?: string;
}
