import { IsArray } from 'class-validator';
import { Arg } from '../../common/http/params';

/** POST and DELETE /users/me/alert_words: `alert_words`, a JSON list of strings. */
export class AlertWordsArgs {
  @Arg({ json: true }) @IsArray() alert_words: unknown[];
}
