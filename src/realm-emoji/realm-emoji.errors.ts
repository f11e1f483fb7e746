import { badRequest, ZulipError } from '../common/errors/zulip-error';

/** Zulip's BadImageError: code BAD_IMAGE, HTTP 400. */
const badImage = (text: string) => new ZulipError(text, 'BAD_IMAGE', 400);

/** Errors of custom emoji (zerver/views/realm_emoji.py, zerver/lib/emoji.py, zerver/lib/thumbnail.py). */
export const RealmEmojiErrors = {
  nameMissing: () => badRequest('Emoji name is missing'),
  nameBadEnd: () => badRequest('Emoji names must end with either a letter or digit.'),
  nameBadCharacters: () =>
    badRequest('Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'),
  alreadyExists: () => badRequest('A custom emoji with this name already exists.'),
  exactlyOneFile: () => badRequest('You must upload exactly one file.'),
  onlyAdminsOverrideDefault: () => badRequest('Only administrators can override default emoji.'),
  fileTooLarge: (mib: number) => badRequest(`Uploaded file is larger than the allowed limit of ${mib} MiB`),
  notAdminOrAuthor: () => badRequest('Must be an organization administrator or emoji author'),
  invalidImageFormat: () => badImage('Invalid image format'),
  couldNotDecode: () => badImage('Could not decode image; did you upload an image file?'),
  /** The decoded image (all frames) has too many pixels. */
  imageTooBig: () => badImage('Image size exceeds limit.'),
  /** The resized image (or an animation's still) is over 128 KiB. */
  resizedTooBig: () => badImage('Image size exceeds limit'),
  corrupted: () => badImage('Image is corrupted or truncated'),
};
