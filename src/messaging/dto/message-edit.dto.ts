import { IsBoolean, IsIn, IsInt, IsString, MaxLength, Min } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';
import { Limits } from '../../common/limits';

export const PROPAGATE_MODES = ['change_one', 'change_later', 'change_all'] as const;
export type PropagateMode = (typeof PROPAGATE_MODES)[number];

/** PATCH /messages/{message_id}, in Zulip's parameter order (update_message_backend). */
export class UpdateMessageArgs {
  @OptionalArg()
  @IsString()
  content?: string;

  @OptionalArg()
  @IsString()
  prev_content_sha256?: string;

  @OptionalArg({ default: 'change_one', json: false })
  @IsIn(PROPAGATE_MODES)
  propagate_mode: PropagateMode;

  @OptionalArg({ default: true })
  @IsBoolean()
  send_notification_to_new_thread: boolean;

  @OptionalArg({ default: false })
  @IsBoolean()
  send_notification_to_old_thread: boolean;

  @OptionalArg()
  @IsInt()
  @Min(0)
  stream_id?: number;

  @OptionalArg({ aliases: ['subject'] })
  @IsString()
  topic?: string;
}

export const REPORT_TYPES = ['spam', 'harassment', 'inappropriate', 'norms', 'other'] as const;

/** POST /messages/{message_id}/report. */
export class ReportMessageArgs {
  @OptionalArg({ default: '' })
  @IsString()
  @MaxLength(Limits.MAX_REPORT_DESCRIPTION_LENGTH)
  description: string;

  /** Checked by the service with Zulip's pydantic wording. */
  @Arg()
  @IsString()
  report_type: string;
}
