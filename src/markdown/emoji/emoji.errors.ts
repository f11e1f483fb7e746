import { badRequest } from '../../common/errors/zulip-error';

/** Errors about emoji names and codes (check_emoji_request and emoji lookups). */
export const EmojiErrors = {
  doesNotExist: (name: string) => badRequest(`Emoji '${name}' does not exist`),
  invalidCode: () => badRequest('Invalid emoji code.'),
  invalidName: () => badRequest('Invalid emoji name.'),
  invalidType: () => badRequest('Invalid emoji type.'),
  invalidCustomEmoji: () => badRequest('Invalid custom emoji.'),
  invalidCustomEmojiName: () => badRequest('Invalid custom emoji name.'),
  customEmojiDeactivated: () => badRequest('This custom emoji has been deactivated.'),
};
