import { Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsInt, IsObject, IsString } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

const strip = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** POST /realm/profile_fields, parameters in Zulip's order. */
export class CreateProfileFieldArgs {
  @OptionalArg({ default: false }) @IsBoolean() display_in_profile_summary: boolean;
  @OptionalArg({ default: true }) @IsBoolean() editable_by_user: boolean;
  @OptionalArg({ json: true }) @IsObject() field_data?: Record<string, unknown>;
  @Arg({ json: true }) @IsInt() field_type: number;
  @OptionalArg({ default: '', json: false }) @IsString() hint: string;
  @OptionalArg({ default: '', json: false }) @IsString() @Transform(strip) name: string;
  @OptionalArg({ default: false }) @IsBoolean() required: boolean;
}

/** PATCH /realm/profile_fields/{field_id}. */
export class UpdateProfileFieldArgs {
  @OptionalArg() @IsBoolean() display_in_profile_summary?: boolean;
  @OptionalArg() @IsBoolean() editable_by_user?: boolean;
  @OptionalArg({ json: true }) @IsObject() field_data?: Record<string, unknown>;
  @OptionalArg({ json: false }) @IsString() hint?: string;
  @OptionalArg({ json: false }) @IsString() @Transform(strip) name?: string;
  @OptionalArg() @IsBoolean() required?: boolean;
}

/** PATCH /realm/profile_fields (reorder). */
export class ReorderProfileFieldsArgs {
  @Arg() @IsArray() @IsInt({ each: true }) order: number[];
}
