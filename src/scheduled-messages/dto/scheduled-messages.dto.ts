import { IsBoolean, IsIn, IsInt, IsString } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

const RECIPIENT_TYPES = ['direct', 'private', 'stream', 'channel'];

/** POST /scheduled_messages, in the order of Zulip's view. */
export class CreateScheduledMessageArgs {
  @Arg() @IsIn(RECIPIENT_TYPES) type: 'direct' | 'private' | 'stream' | 'channel';
  /** Raw text: a channel id, or a JSON list of user ids (parsed by the service). */
  @Arg() @IsString() to: string;
  @OptionalArg({ aliases: ['subject'] }) @IsString() topic?: string;
  @Arg() @IsString() content: string;
  @Arg() @IsInt() scheduled_delivery_timestamp: number;
  @OptionalArg() @IsBoolean() read_by_sender?: boolean;
}

/** PATCH /scheduled_messages/{id}. */
export class UpdateScheduledMessageArgs {
  @OptionalArg() @IsIn(RECIPIENT_TYPES) type?: 'direct' | 'private' | 'stream' | 'channel';
  @OptionalArg() @IsString() to?: string;
  @OptionalArg({ aliases: ['subject'] }) @IsString() topic?: string;
  @OptionalArg() @IsString() content?: string;
  @OptionalArg() @IsInt() scheduled_delivery_timestamp?: number;
}

/** POST /reminders. */
export class CreateReminderArgs {
  @Arg() @IsInt() message_id: number;
  @Arg() @IsInt() scheduled_delivery_timestamp: number;
  @OptionalArg() @IsString() note?: string;
}
