import { ParamErrors } from '../common/errors/param.errors';
import { badRequest, ZulipError } from '../common/errors/zulip-error';

/** Errors about channels (streams): lookup, names, settings, archiving. */
export const ChannelErrors = {
  /** access_stream_by_id: unknown and inaccessible channels look alike. */
  invalidId: () => badRequest('Invalid channel ID'),
  cannotRetrieveSubscribers: () => badRequest('Unable to retrieve subscribers for private channel'),
  /** access_stream_by_name. */
  invalidName: (name: string) => badRequest(`Invalid channel name '${name}'`),
  /** Zulip's StreamDoesNotExistError. */
  doesNotExist: (name: string) =>
    new ZulipError(`Channel '${name}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream: name }),
  /** Zulip's StreamWithIDDoesNotExistError. */
  idDoesNotExist: (id: number) =>
    new ZulipError(`Channel with ID '${id}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream_id: id }),
  namesDoNotExist: (names: string[]) => badRequest(`Channel(s) (${names.join(', ')}) do not exist`),
  alreadyExists: (name: string) => new ZulipError(`Channel '${name}' already exists`, 'CHANNEL_ALREADY_EXISTS', 409),
  nameEmpty: () => badRequest("Channel name can't be empty."),
  nameTooLong: (max: number) => badRequest(`Channel name too long (limit: ${max} characters).`),
  invalidNameCharacter: (position: number) => ParamErrors.invalidCharacter('channel name', position),
  alreadyHasName: () => badRequest('Channel already has that name.'),
  cannotAdminister: () => badRequest('You do not have permission to administer this channel.'),
  unableToAccess: (name: string) => badRequest(`Unable to access channel (${name}).`),
  /** include_all_active without administrator rights. */
  notAuthorizedForQuery: () => badRequest('User not authorized for this query'),
  /** A privacy combination update_stream_backend refuses. */
  invalidPermissionCombination: () => badRequest('Invalid parameters'),
  defaultCannotBePrivate: () => badRequest('A default channel cannot be private.'),
  privateCannotBeDefault: () => badRequest('Private channels cannot be made default.'),
  moderationChannelMustBePrivate: () => badRequest('Moderation request channel must be private.'),
  contentAccessRequired: () => badRequest('Channel content access is required.'),
  webPublicNotEnabled: () => badRequest('Web-public channels are not enabled.'),
  invalidTopicsPolicy: () => ParamErrors.invalid('topics_policy'),
  topicsOutsideGeneralChat: () =>
    badRequest(
      'To enable this configuration, all messages in this channel must be in the "general chat" topic. Consider renaming or deleting other topics.',
    ),
  alreadyDeactivated: () => badRequest('Channel is already deactivated'),
  notDeactivated: () => badRequest('Channel is not currently deactivated'),
  privateWithoutSubscribers: () => badRequest('Channel is private and have no subscribers'),
};

/** Errors about channel folders. */
export const ChannelFolderErrors = {
  invalidId: () => badRequest('Invalid channel folder ID'),
  nameEmpty: () => badRequest("Channel folder name can't be empty."),
  invalidNameCharacter: (position: number) => ParamErrors.invalidCharacter('channel folder name', position),
  nameInUse: () => badRequest('Channel folder name already in use'),
  notEmpty: () => badRequest('You need to remove all the channels from this folder to archive it.'),
};

/** Errors about subscriptions and their properties. `at` is the item's path (`add[0]`). */
export const SubscriptionErrors = {
  notSubscribed: (streamId: number) => badRequest(`Not subscribed to channel ID ${streamId}`),
  unknownProperty: (property: string) => badRequest(`Unknown subscription property: ${property}`),
  invalidAddItem: (at: string) => ParamErrors.notADictionaryOf(at, 'AddSubscriptionData'),
  invalidAddColor: (at: string) => ParamErrors.valueError(at, 'add.color is not a valid hex color code'),
  invalidPropertyChange: (at: string) => ParamErrors.notADictionaryOf(at, 'SubscriptionPropertyChangeRequest'),
  invalidColor: (at: string) => ParamErrors.valueError(at, 'color is not a valid hex color code'),
};

/** Errors about topics (names and per-user topic state). */
export const TopicErrors = {
  invalidCharacter: (position: number) => badRequest(`Invalid character in topic, at position ${position}!`),
  noSuchTopic: (topic: string) => badRequest(`No such topic '${topic}'`),
  notMuted: () => badRequest('Topic is not muted'),
};
