import { badRequest, ZulipError } from '../../common/errors/zulip-error';

/** Zulip answers an unknown emoji name with this text as a 400 (reactions) and a 404 (DELETE /realm/emoji). */
const doesNotExistText = (name: string) => `Emoji '${name}' does not exist`;

/** Errors about emoji names and codes (check_emoji_request and emoji lookups). */
export const EmojiErrors = {
  doesNotExist: (name: string) => badRequest(doesNotExistText(name)),
  /** DELETE /realm/emoji/{name} of a name with no active custom emoji (Zulip's ResourceNotFoundError). */
  customEmojiNotFound: (name: string) => new ZulipError(doesNotExistText(name), 'BAD_REQUEST', 404),
  invalidCode: () => badRequest('Invalid emoji code.'),
  invalidName: () => badRequest('Invalid emoji name.'),
  invalidType: () => badRequest('Invalid emoji type.'),
  invalidCustomEmoji: () => badRequest('Invalid custom emoji.'),
  invalidCustomEmojiName: () => badRequest('Invalid custom emoji name.'),
  customEmojiDeactivated: () => badRequest('This custom emoji has been deactivated.'),
};
