import { Transform } from 'class-transformer';
import { IsBoolean, IsString, MinLength } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

const strip = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** POST /navigation_views: strings are stripped and must not be blank. */
export class AddNavigationViewArgs {
  @Arg({ json: false }) @IsString() @Transform(strip) @MinLength(1) fragment: string;
  @Arg() @IsBoolean() is_pinned: boolean;
  @OptionalArg({ json: false }) @IsString() @Transform(strip) @MinLength(1) name?: string;
}

/** PATCH /navigation_views/{fragment}. */
export class UpdateNavigationViewArgs {
  @OptionalArg() @IsBoolean() is_pinned?: boolean;
  @OptionalArg({ json: false }) @IsString() @Transform(strip) @MinLength(1) name?: string;
}
