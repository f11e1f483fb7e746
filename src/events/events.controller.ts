import { Controller, Delete, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { Errors } from '../common/errors/zulip-error';
import { countUnparkedPoll } from '../common/rate-limit/rate-limit.guard';
import { Args, readArgs } from '../common/http/params';
import { DeleteQueueArgs, GetEventsArgs } from './dto/events.dto';
import { EventsService } from './events.service';

@Controller('api/v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  async get(@CurrentUser() auth: AuthContext, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    // Only a poll that parks is free of the rate limit; one answered at once (events pending, or
    // an error, its own parameters' refusal included) counts like any request, so re-reading
    // unacknowledged events and hammering with bad arguments are limited too. The parameters are
    // therefore read here, inside the try, not by @Args before the handler runs.
    let parked = false;
    let events;
    try {
      const args = readArgs(req, GetEventsArgs);
      if (args.queue_id === undefined) throw Errors.missingArgumentPlain('queue_id');
      if (args.last_event_id === undefined) throw Errors.missingArgumentPlain('last_event_id');
      events = await this.events.getEvents(auth.user.id, args.queue_id, args.last_event_id, args.dont_block, (cb) => {
        // Called only when the poll parks; 'close' fires when the client goes away first.
        parked = true;
        res.on('close', cb);
      });
    } finally {
      if (!parked) await countUnparkedPoll(req);
    }
    return { events };
  }

  @Delete()
  async delete(@CurrentUser() auth: AuthContext, @Args(DeleteQueueArgs) args: DeleteQueueArgs) {
    await this.events.deleteQueue(auth.user.id, args.queue_id);
    return {};
  }
}
