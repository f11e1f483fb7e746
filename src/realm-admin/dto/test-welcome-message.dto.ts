import { IsString, MaxLength } from 'class-validator';
import { Arg } from '../../common/http/params';

/** POST /realm/test_welcome_bot_custom_message. */
export class TestWelcomeMessageArgs {
  @Arg({ json: false }) @IsString() @MaxLength(8000) welcome_message_custom_text: string;
}
