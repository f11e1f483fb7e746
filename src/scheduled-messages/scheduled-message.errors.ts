import { badRequest, ZulipError } from '../common/errors/zulip-error';

/** Errors of scheduled messages and reminders (Zulip's texts). */
export const ScheduledMessageErrors = {
  /** Zulip's DeliveryTimeNotInFutureError. */
  notInFuture: () => badRequest('Scheduled delivery time must be in the future.'),
  /** Zulip's ResourceNotFoundError: 404 with code BAD_REQUEST. */
  doesNotExist: () => new ZulipError('Scheduled message does not exist', 'BAD_REQUEST', 404),
  reminderDoesNotExist: () => new ZulipError('Reminder does not exist', 'BAD_REQUEST', 404),
  alreadySent: () => badRequest('Scheduled message was already sent'),
  recipientRequired: () => badRequest('Recipient required when updating type of scheduled message.'),
  topicRequired: () => badRequest('Topic required when updating scheduled message type to channel.'),
  invalidChannelId: () => badRequest('Invalid data type for channel ID'),
  onlyUserIds: () => badRequest('Recipient list may only contain user IDs'),
  noteTooLong: (max: number) => badRequest(`Maximum reminder note length: ${max} characters`),
  /** Stored as the failure of a message delivered more than 10 minutes late. */
  reminderNotSent: () => badRequest('Reminder could not be sent.'),
  tooLate: () => badRequest('Message could not be sent at the scheduled time.'),
};
