import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsString } from 'class-validator';
import { OptionalArg } from '../../common/http/params';

export class RegisterArgs {
  @OptionalArg({ default: false })
  @IsBoolean()
  all_public_streams: boolean;

  @OptionalArg({ default: false })
  @IsBoolean()
  apply_markdown: boolean;

  @OptionalArg({ default: {} })
  @IsObject()
  client_capabilities: Record<string, unknown>;

  @OptionalArg({ default: true })
  @IsBoolean()
  client_gravatar: boolean;

  @OptionalArg()
  @IsArray()
  @IsString({ each: true })
  event_types?: string[];

  @OptionalArg()
  @IsArray()
  @IsString({ each: true })
  fetch_event_types?: string[];

  @OptionalArg({ default: 'false', json: false })
  @IsIn(['true', 'false', 'partial'])
  include_subscribers: string;

  @OptionalArg({ default: [] })
  @IsArray()
  narrow: unknown[];

  @OptionalArg()
  @IsInt()
  presence_history_limit_days?: number;

  @OptionalArg({ default: false })
  @IsBoolean()
  slim_presence: boolean;
}
