import { Controller, Delete, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { Errors } from '../common/errors/zulip-error';
import { countUnparkedPoll } from '../common/rate-limit/rate-limit.guard';
import { sendEnvelopeJson } from '../common/http/envelope.interceptor';
import { Args, readArgs } from '../common/http/params';
import { DeleteQueueArgs, GetEventsArgs } from './dto/events.dto';
import type { QueuedEvent } from './event-queue';
import { eventsJson } from './event-json';
import { EventsService } from './events.service';

/**
 * The answer to a poll: the envelope with the events, whose parts shared by many queues (a
 * message's dict) are serialised once for all of them (event-json.ts).
 */
function answer(res: Response, events: QueuedEvent[]): void {
  sendEnvelopeJson(res, { events }, `"events":${eventsJson(events)}`);
}

@Controller('api/v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  /**
   * Answers through `res` itself (not Nest's reply): a poll that parks is answered when woken by
   * a direct write of the envelope (sendEnvelopeJson, the same response as a returned value gets),
   * without a promise chain per poll; thousands are woken by one message.
   */
  @Get()
  async get(@CurrentUser() auth: AuthContext, @Req() req: Request, @Res() res: Response): Promise<void> {
    // Only a poll that parks is free of the rate limit; one answered at once (events pending, or
    // an error, its own parameters' refusal included) counts like any request, so re-reading
    // unacknowledged events and hammering with bad arguments are limited too. The parameters are
    // therefore read here, inside the try, not by @Args before the handler runs.
    let parked = false;
    let events: QueuedEvent[] | null;
    try {
      const args = readArgs(req, GetEventsArgs);
      if (args.queue_id === undefined) throw Errors.missingArgumentPlain('queue_id');
      if (args.last_event_id === undefined) throw Errors.missingArgumentPlain('last_event_id');
      events = await this.events.getEvents(
        auth.user.id,
        args.queue_id,
        args.last_event_id,
        args.dont_block,
        (cb) => {
          // Called only when the poll parks; 'close' fires when the client goes away first.
          parked = true;
          res.on('close', cb);
          // The request is read to its end now (its parameters are parsed; a GET has no body left):
          // Node would otherwise drain it when the answer is written, a few stream ticks per
          // answer in the middle of a delivery to thousands of polls.
          req.resume();
        },
        (woken) => answer(res, woken),
      );
    } finally {
      if (!parked) await countUnparkedPoll(req);
    }
    // null: parked, answered later through the callback above.
    if (events !== null) answer(res, events);
  }

  @Delete()
  async delete(@CurrentUser() auth: AuthContext, @Args(DeleteQueueArgs) args: DeleteQueueArgs) {
    await this.events.deleteQueue(auth.user.id, args.queue_id);
    return {};
  }
}
