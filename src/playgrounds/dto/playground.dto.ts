import { IsString } from 'class-validator';
import { Arg } from '../../common/http/params';

/** POST /realm/playgrounds, in the order of Zulip's view. */
export class AddPlaygroundArgs {
  @Arg() @IsString() name: string;
  @Arg() @IsString() pygments_language: string;
  @Arg() @IsString() url_template: string;
}
