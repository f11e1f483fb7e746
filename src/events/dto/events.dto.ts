import { IsBoolean, IsInt, IsString } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

export class GetEventsArgs {
  @OptionalArg({ default: false })
  @IsBoolean()
  dont_block: boolean;

  @OptionalArg()
  @IsInt()
  last_event_id?: number;

  @OptionalArg()
  @IsString()
  queue_id?: string;
}

export class DeleteQueueArgs {
  @Arg()
  @IsString()
  queue_id: string;
}
