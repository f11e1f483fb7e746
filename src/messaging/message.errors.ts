import { Errors, badRequest, ZulipError } from '../common/errors/zulip-error';
import { ParamErrors } from '../common/errors/param.errors';

/** Errors about messages: sending, fetching, editing, moving, deleting, flags, reports. */
export const MessageErrors = {
  invalidMessages: () => badRequest('Invalid message(s)'),

  // Sending
  missingChannel: () => badRequest('Missing channel'),
  missingTopic: () => badRequest('Missing topic'),
  noRecipients: () => badRequest('Message must have recipients'),
  empty: () => badRequest('Message must not be empty'),
  nullBytes: () => badRequest('Message must not contain null bytes'),
  expectedOneChannel: () => badRequest('Expected exactly one channel'),
  invalidChannelDataType: () => badRequest('Invalid data type for channel'),
  invalidRecipientsDataType: () => badRequest('Invalid data type for recipients'),
  mixedRecipients: () => badRequest('Recipient lists may contain emails or user IDs, but not both.'),
  invalidEmail: (email: string) => badRequest(`Invalid email '${email}'`),
  recipientDeactivated: (email: string) => badRequest(`'${email}' is no longer using Zulip.`),
  cannotPostInChannel: () => badRequest('You do not have permission to post in this channel.'),
  notAuthorizedForChannel: (name: string) => badRequest(`Not authorized to send to channel '${name}'`),
  cannotCreateTopics: () => badRequest('You do not have permission to create new topics in this channel.'),
  /** The channel's topics policy refuses the empty topic (`display` is its display name). */
  emptyTopicNotAllowed: (display: string) =>
    badRequest(`Sending messages to the ${display} is not allowed in this channel.`),
  onlyEmptyTopicAllowed: (display: string) => badRequest(`Only the ${display} topic is allowed in this channel.`),
  channelWildcardNotAllowed: () =>
    new ZulipError(
      'You do not have permission to use channel wildcard mentions in this channel.',
      'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
    ),
  topicWildcardNotAllowed: () =>
    new ZulipError(
      'You do not have permission to use topic wildcard mentions in this topic.',
      'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
    ),
  cannotMentionGroup: (name: string) => badRequest(`You are not allowed to mention user group '${name}'.`),
  cannotAccessSomeRecipients: () => badRequest('You do not have permission to access some of the recipients.'),
  directMessagesDisabled: () => badRequest('Direct messages are disabled in this organization.'),
  noAuthorizingRecipient: () => badRequest('This conversation does not include any users who can authorize it.'),
  cannotInitiateDirectMessages: () =>
    badRequest('You do not have permission to initiate direct message conversations.'),

  // Fetching
  missingAnchor: () => badRequest("Missing 'anchor' argument."),
  invalidAnchor: () => ParamErrors.invalid('anchor'),
  tooManyRequested: (max: number) => badRequest(`Too many messages requested (maximum ${max}).`),
  anchorExcludedInside: () => badRequest('The anchor can only be excluded at an end of the range'),

  // Editing and moving
  editingDisabled: () => badRequest('Your organization has turned off message editing'),
  cannotEdit: () => badRequest("You don't have permission to edit this message"),
  editTimeLimitPassed: () => badRequest('The time limit for editing this message has passed'),
  nothingToChange: () => badRequest('Nothing to change'),
  directMessageToChannel: () => badRequest('Direct messages cannot be moved to channels.'),
  directMessageTopic: () => badRequest('Direct messages cannot have topics.'),
  propagateModeWithoutTopicEdit: () => badRequest('Invalid propagate_mode without topic edit'),
  generalChatCannotBeResolved: () => badRequest('General chat cannot be marked as resolved'),
  contentChangeWhileMoving: () => badRequest('Cannot change message content while changing channel'),
  prevContentMismatch: () => Errors.expectationMismatch('prev_content_sha256'),
  cannotResolveTopics: () => badRequest("You don't have permission to resolve topics in this channel."),
  topicEditTimeLimitPassed: () => badRequest("The time limit for editing this message's topic has passed."),
  cannotMove: () => badRequest("You don't have permission to move this message"),
  channelEditTimeLimitPassed: () => badRequest("The time limit for editing this message's channel has passed"),
  /** Zulip's MessageMoveError: `allowed` are the movable messages, oldest first. */
  moveTimeLimitExceeded: (allowed: Array<{ id: number }>, total: number) =>
    new ZulipError(
      `You only have permission to move the ${allowed.length}/${total} most recent messages in this topic.`,
      'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      400,
      {
        first_message_id_allowed_to_move: allowed.length > 0 ? allowed[0].id : null,
        total_messages_in_topic: total,
        total_messages_allowed_to_move: allowed.length,
      },
    ),

  // Deleting
  alreadyDeleted: () => badRequest('Message already deleted'),
  cannotDelete: () => badRequest("You don't have permission to delete this message"),
  deleteTimeLimitPassed: () => badRequest('The time limit for deleting this message has passed'),

  // Flags
  invalidFlag: (flag: string) => badRequest(`Invalid flag: '${flag}'`),
  flagNotEditable: (flag: string) => badRequest(`Flag not editable: '${flag}'`),
  invalidFlagOperation: (op: string) => badRequest(`Invalid message flag operation: '${op}'`),

  // Read receipts and edit history
  readReceiptsDisabled: () => badRequest('Read receipts are disabled in this organization.'),
  editHistoryDisabled: () => badRequest('Message edit history is disabled in this organization'),

  // Reports
  invalidReportType: () => ParamErrors.notInList('report_type'),
  explanationRequired: () => badRequest('An explanation is required.'),
  reportingDisabled: () => badRequest('Message reporting is not enabled in this organization.'),
};

/** Errors about typing notifications. */
export const TypingErrors = {
  emptyTo: () => badRequest("Empty 'to' list"),
  disabledForChannels: () => badRequest('User has disabled typing notifications for channel messages'),
  disabledForDirectMessages: () => badRequest('User has disabled typing notifications for direct messages'),
};

/** Errors about reactions. */
export const ReactionErrors = {
  alreadyExists: () => new ZulipError('Reaction already exists.', 'REACTION_ALREADY_EXISTS'),
  doesNotExist: () => new ZulipError("Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST'),
  nameOrCodeRequired: () =>
    badRequest('At least one of the following arguments must be present: emoji_name, emoji_code'),
};

/** Errors of POST /submessage (Zulip's process_submessage and validate_poll_data / validate_todo_data). */
export const SubmessageErrors = {
  invalidJson: () => badRequest('Invalid json for submessage'),
  cannotAttach: () => badRequest('You cannot attach a submessage to this message.'),
  /** Our limit (Limits.MAX_SUBMESSAGES_PER_MESSAGE); Zulip has none. */
  tooMany: (limit: number) => badRequest(`This message cannot take more than ${limit} submessages.`),
  pollQuestionNotAuthor: () => badRequest("You can't edit a question unless you are the author."),
  todoTitleNotAuthor: () => badRequest("You can't edit the task list title unless you are the author."),
  /** `widget` is `poll` or `todo`; `type` the data's unknown `type` value. */
  unknownDataType: (widget: string, type: string) => badRequest(`Unknown type for ${widget} data: ${type}`),
};

/** Errors about narrows (GET /messages, POST /register). `i` is the term's index. */
export const NarrowErrors = {
  tooManyTerms: (max: number) => badNarrow(`a narrow may have at most ${max} terms`),
  // Zulip's BadNarrowOperatorError (code BAD_NARROW, the description in `desc`)
  channelAndDirectMessage: () => badNarrow('No message can be both a channel message and direct message'),
  unknownChannel: (operand: string) => badNarrow(`unknown channel ${operand}`),
  unknownChannelsOperand: (operand: string) => badNarrow(`unknown channels operand ${operand}`),
  unknownUser: (operand: string) => badNarrow(`unknown user ${operand}`),
  unknownUserIn: (operand: string) => badNarrow(`unknown user in ${operand}`),
  invalidMessageId: () => badNarrow('Invalid message ID'),
  unknownIsOperand: (operand: string) => badNarrow(`unknown 'is' operand ${operand}`),
  unknownInOperand: (operand: string) => badNarrow(`unknown 'in' operand ${operand}`),
  unknownHasOperand: (operand: string) => badNarrow(`unknown 'has' operand ${operand}`),
  unknownOperator: (operator: string) => badNarrow(`unknown operator ${operator}`),
  notAStringPair: (i: number) => ParamErrors.valueError(`narrow[${i}]`, 'element is not a string pair'),
  operandMissing: (i: number) => ParamErrors.valueError(`narrow[${i}]`, 'operand is missing'),
  operatorMissing: (i: number) => ParamErrors.valueError(`narrow[${i}]`, 'operator is missing'),
  dictOrListRequired: (i: number) => ParamErrors.valueError(`narrow[${i}]`, 'dict or list required'),
  operandNotStringOrInteger: () => badRequest('operand is not a string or an integer'),
  operandNotStringOrIntegerList: () => badRequest('operand is not a string or integer list'),
  /** POST /register's event narrow. */
  invalidEventNarrowElement: (i: number) => badRequest(`narrow[${i}] is not a valid narrow element`),
  operatorNotSupported: (operator: string) => badRequest(`Operator ${operator} not supported.`),
};

/** Zulip's BadNarrowOperatorError; outside this file only through the NarrowErrors entries (lint). */
export function badNarrow(desc: string): ZulipError {
  return new ZulipError(`Invalid narrow operator: ${desc}`, 'BAD_NARROW', 400, { desc });
}
