import { badRequest, ZulipError } from '../common/errors/zulip-error';

/** Errors about event queues (GET/DELETE /events). */
export const EventQueueErrors = {
  /** Zulip's BadEventQueueIdError. */
  badQueueId: (queueId: string) =>
    new ZulipError(`Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: queueId }),
  notYourQueue: () => badRequest('You are not authorized to get events from this queue'),
  alreadyPruned: (lastEventId: number) => badRequest(`An event newer than ${lastEventId} has already been pruned!`),
  notInQueue: (lastEventId: number) => badRequest(`Event ${lastEventId} was not in this queue`),
};
