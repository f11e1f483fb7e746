import { Controller, Delete, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { Errors } from '../common/errors/zulip-error';
import { Args } from '../common/http/params';
import { DeleteQueueArgs, GetEventsArgs } from './dto/events.dto';
import { EventsService } from './events.service';

@Controller('api/v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  async get(
    @CurrentUser() auth: AuthContext,
    @Args(GetEventsArgs) args: GetEventsArgs,
    @Res({ passthrough: true }) res: Response,
  ) {
    if (args.queue_id === undefined) throw Errors.missingArgumentPlain('queue_id');
    if (args.last_event_id === undefined) throw Errors.missingArgumentPlain('last_event_id');
    const events = await this.events.getEvents(auth.user.id, args.queue_id, args.last_event_id, args.dont_block, (cb) =>
      // 'close' on the response fires when the client goes away before we answer.
      res.on('close', cb),
    );
    return { events };
  }

  @Delete()
  async delete(@CurrentUser() auth: AuthContext, @Args(DeleteQueueArgs) args: DeleteQueueArgs) {
    await this.events.deleteQueue(auth.user.id, args.queue_id);
    return {};
  }
}
