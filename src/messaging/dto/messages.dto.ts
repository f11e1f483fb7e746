import { IsArray, IsBoolean, IsIn, IsInt, IsString, MaxLength, Min, ValidateIf } from 'class-validator';
import { Limits } from '../../common/limits';
import { Arg, OptionalArg } from '../../common/http/params';

/** POST /messages, in Zulip's parameter order. */
export class SendMessageArgs {
  @Arg()
  @IsString()
  content: string;

  @OptionalArg()
  @IsString()
  local_id?: string;

  @OptionalArg()
  @IsString()
  queue_id?: string;

  @OptionalArg()
  @IsBoolean()
  read_by_sender?: boolean;

  /** Raw text: a channel name, JSON, or a comma-separated list (parsed by the service). */
  @OptionalArg()
  @IsString()
  to?: string;

  @Arg()
  @IsIn(['direct', 'private', 'stream', 'channel'])
  type: 'direct' | 'private' | 'stream' | 'channel';

  @OptionalArg({ aliases: ['subject'] })
  @IsString()
  topic?: string;
}

/** GET /messages. */
export class GetMessagesArgs {
  @OptionalArg()
  @IsString()
  anchor?: string;

  @OptionalArg()
  @IsBoolean()
  include_anchor?: boolean;

  @OptionalArg()
  @IsInt()
  @Min(0)
  num_before?: number;

  @OptionalArg()
  @IsInt()
  @Min(0)
  num_after?: number;

  @OptionalArg({ default: [] })
  @IsArray()
  narrow: unknown[];

  @OptionalArg()
  @IsBoolean()
  use_first_unread_anchor?: boolean;

  @OptionalArg({ default: true })
  @IsBoolean()
  client_gravatar: boolean;

  @OptionalArg({ default: true })
  @IsBoolean()
  apply_markdown: boolean;

  @OptionalArg()
  @IsArray()
  @IsInt({ each: true })
  @Min(0, { each: true })
  message_ids?: number[];

  @OptionalArg({ default: false })
  @IsBoolean()
  allow_empty_topic_name: boolean;
}

/** GET /messages/{message_id}. */
export class GetMessageArgs {
  @OptionalArg({ default: true })
  @IsBoolean()
  apply_markdown: boolean;

  @OptionalArg({ default: false })
  @IsBoolean()
  allow_empty_topic_name: boolean;
}

export class RenderMessageArgs {
  @Arg()
  @IsString()
  content: string;
}

/** POST /messages/flags: `op` and `flag` are checked by the service, with Zulip's texts. */
export class UpdateFlagsArgs {
  @Arg()
  @IsArray()
  @IsInt({ each: true })
  messages: number[];

  @Arg()
  @IsString()
  op: string;

  @Arg()
  @IsString()
  flag: string;
}

/** POST /messages/flags/narrow, in Zulip's (alphabetical) parameter order. */
export class UpdateFlagsForNarrowArgs {
  @Arg({ json: false })
  @IsString()
  anchor: string;

  @Arg()
  @IsString()
  flag: string;

  @OptionalArg({ default: true })
  @IsBoolean()
  include_anchor: boolean;

  /** Required, but may be null (no narrow). */
  @Arg()
  @ValidateIf((o: UpdateFlagsForNarrowArgs) => o.narrow !== null)
  @IsArray()
  narrow: unknown[] | null;

  @Arg()
  @IsInt()
  @Min(0)
  num_after: number;

  @Arg()
  @IsInt()
  @Min(0)
  num_before: number;

  @Arg()
  @IsString()
  op: string;
}

/** GET /messages/matches_narrow. */
export class MatchesNarrowArgs {
  @Arg()
  @IsArray()
  @IsInt({ each: true })
  msg_ids: number[];

  @Arg()
  @IsArray()
  narrow: unknown[];
}

/** GET /messages/{message_id}/history. */
export class MessageHistoryArgs {
  @OptionalArg({ default: false })
  @IsBoolean()
  allow_empty_topic_name: boolean;
}

export class MarkStreamAsReadArgs {
  @Arg()
  @IsInt()
  stream_id: number;
}

export class MarkTopicAsReadArgs {
  @Arg()
  @IsInt()
  stream_id: number;

  @Arg()
  @IsString()
  topic_name: string;
}

/** POST /streams/{stream_id}/delete_topic */
export class DeleteTopicArgs {
  @Arg({ json: false })
  @IsString()
  topic_name: string;
}

export class GetTopicsArgs {
  @OptionalArg({ default: false })
  @IsBoolean()
  allow_empty_topic_name: boolean;
}

export class AddReactionArgs {
  @Arg()
  @IsString()
  emoji_name: string;

  @OptionalArg()
  @IsString()
  emoji_code?: string;

  @OptionalArg()
  @IsString()
  reaction_type?: string;
}

export class RemoveReactionArgs {
  @OptionalArg()
  @IsString()
  emoji_name?: string;

  @OptionalArg()
  @IsString()
  emoji_code?: string;

  @OptionalArg({ default: 'unicode_emoji' })
  @IsString()
  reaction_type: string;
}

/** POST /typing. */
/** POST /messages/{message_id}/typing: typing while editing a message. */
export class EditTypingArgs {
  @Arg()
  @IsIn(['start', 'stop'])
  op: 'start' | 'stop';
}

export class TypingArgs {
  @OptionalArg({ default: 'direct' })
  @IsIn(['direct', 'stream', 'channel'])
  type: string;

  @Arg()
  @IsIn(['start', 'stop'])
  op: 'start' | 'stop';

  @OptionalArg()
  @IsArray()
  @IsInt({ each: true })
  to?: number[];

  @OptionalArg()
  @IsInt()
  stream_id?: number;

  @OptionalArg()
  @IsString()
  topic?: string;
}

/** POST /submessage, in Zulip's parameter order. */
export class SubmessageArgs {
  @Arg()
  @IsInt()
  message_id: number;

  /** Zulip documents `widget` as the only type; widgets are its only use. */
  @Arg()
  @IsIn(['widget'])
  msg_type: string;

  @Arg()
  @IsString()
  @MaxLength(Limits.MAX_SUBMESSAGE_LENGTH)
  content: string;
}
