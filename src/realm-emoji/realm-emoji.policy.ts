/**
 * Pure rules of custom emoji (zerver/lib/emoji.py, zerver/views/realm_emoji.py): names, file
 * names, content types and URLs. No database, no Nest.
 */
import { createHash } from 'node:crypto';
import { emojiByName } from '../markdown/emoji/emoji';
import { RealmEmojiErrors } from './realm-emoji.errors';

/** upload_emoji's normalisation of the path's name: trimmed, spaces become underscores. */
export function normalizeEmojiName(raw: string): string {
  return raw.trim().replace(/ /g, '_');
}

const NAME_CHARACTERS = /^[0-9a-z_-]+$/;

/** check_valid_emoji_name: the error for a bad name, or null. */
export function emojiNameError(name: string) {
  if (name === '') return RealmEmojiErrors.nameMissing();
  if (!NAME_CHARACTERS.test(name)) return RealmEmojiErrors.nameBadCharacters();
  if (/[-_]$/.test(name)) return RealmEmojiErrors.nameBadEnd();
  return null;
}

/** Could `name` be an (active) custom emoji's name at all? Filters names before they reach SQL. */
export function isPossibleEmojiName(name: string): boolean {
  return emojiNameError(name) === null;
}

/** Is `name` one of the built-in (Unicode) emoji names, aliases included (name_to_codepoint)? */
export function isBuiltInEmojiName(name: string): boolean {
  return emojiByName(name) !== undefined;
}

/**
 * Image types a custom emoji may have: those Zulip both thumbnails and serves inline
 * (THUMBNAIL_ACCEPT_IMAGE_TYPES ∩ INLINE_MIME_TYPES), with the extension its files get.
 */
export const EMOJI_IMAGE_TYPES: Readonly<Record<string, string>> = Object.freeze({
  'image/avif': '.avif',
  'image/gif': '.gif',
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
});

const TYPE_BY_EXTENSION: Readonly<Record<string, string>> = Object.freeze({
  avif: 'image/avif',
  gif: 'image/gif',
  jpe: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
});

/**
 * The content type of an uploaded emoji file: the part's declared type (`type/subtype`, lower
 * case) when it is an emoji image type; otherwise a guess from the file name, as Zulip guesses
 * when a part declares no type (multipart parsers report a missing type as `text/plain`);
 * otherwise the declared type (refused later as "Invalid image format").
 */
export function emojiContentType(declared: string, fileName: string): string {
  const essence = declared.split(';')[0].trim().toLowerCase();
  if (essence in EMOJI_IMAGE_TYPES) return essence;
  const dot = fileName.lastIndexOf('.');
  const guessed = dot < 0 ? undefined : TYPE_BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()];
  return guessed ?? essence;
}

/**
 * get_emoji_file_name: 8 hex digits of a hash of a server secret and the emoji's id (not
 * enumerable by clients), plus the extension of the content type.
 */
export function emojiFileName(secret: string, emojiId: number, contentType: string): string {
  const ext = EMOJI_IMAGE_TYPES[contentType];
  if (!ext) throw new Error(`not an emoji image type: ${contentType}`);
  const hash = createHash('sha256').update(`${secret}:realm-emoji:${emojiId}`).digest('hex');
  return hash.slice(0, 8) + ext;
}

/** RealmEmoji.PATH_ID_TEMPLATE under the avatars area: `<realm_id>/emoji/images/<file>`. */
export function emojiPath(realmId: number, fileName: string): string {
  return `${realmId}/emoji/images/${fileName}`;
}

/** RealmEmoji.STILL_PATH_ID_TEMPLATE: `<realm_id>/emoji/images/still/<file without extension>.png`. */
export function emojiStillPath(realmId: number, fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return `${realmId}/emoji/images/still/${dot < 0 ? fileName : fileName.slice(0, dot)}.png`;
}

/** LocalUploadBackend.get_emoji_url: served under /user_avatars/. */
export function emojiUrl(realmId: number, fileName: string, still = false): string {
  return `/user_avatars/${still ? emojiStillPath(realmId, fileName) : emojiPath(realmId, fileName)}`;
}

/** A path under /user_avatars/ that names an emoji image (or its still); null for anything else. */
export function parseEmojiImagePath(
  path: string,
): { realmId: number; fileName: string; still: boolean; contentType: string } | null {
  const m = /^([0-9]{1,10})\/emoji\/images\/(still\/)?([0-9a-f]{8})(\.[a-z]{3,4})$/.exec(path);
  if (!m) return null;
  const still = m[2] !== undefined;
  const ext = m[4];
  if (still && ext !== '.png') return null;
  const contentType = Object.keys(EMOJI_IMAGE_TYPES).find((type) => EMOJI_IMAGE_TYPES[type] === ext);
  if (!contentType) return null;
  const realmId = Number(m[1]);
  if (!Number.isSafeInteger(realmId) || realmId > 2147483647) return null;
  return { realmId, fileName: `${m[3]}${ext}`, still, contentType };
}
