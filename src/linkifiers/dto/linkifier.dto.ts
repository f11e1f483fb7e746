import { IsArray, IsInt, IsString } from 'class-validator';
import { Arg } from '../../common/http/params';

/** POST /realm/filters and PATCH /realm/filters/{filter_id}. */
export class LinkifierArgs {
  @Arg() @IsString() pattern: string;
  @Arg() @IsString() url_template: string;
}

/** PATCH /realm/linkifiers. */
export class ReorderLinkifiersArgs {
  @Arg() @IsArray() @IsInt({ each: true }) ordered_linkifier_ids: number[];
}
