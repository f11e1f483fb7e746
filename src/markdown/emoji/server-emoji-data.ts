/**
 * The file `server_emoji_data_url` names (Zulip's `static/generated/emoji/emoji_api.json`): every
 * Unicode emoji code with its names, the canonical name first. The mobile app's emoji picker and
 * autocomplete read it. Pure data; served by `src/static`.
 */
import { createHash } from 'node:crypto';
import { allUnicodeEmoji, ZULIP_EXTRA_EMOJI } from './emoji';

export interface ServerEmojiDataFile {
  /** The JSON text served. */
  readonly body: string;
  /** Content hash (hex, 8 characters as Zulip's hashed static names), baked into the file name. */
  readonly hash: string;
  /** The content-hashed file name, e.g. `emoji_api.1a2b3c4d.json`. */
  readonly fileName: string;
}

/** Where the emoji data is served, relative to the server's root. */
export const SERVER_EMOJI_DATA_DIR = '/static/generated/emoji';
/** The unhashed name (what Zulip's development server serves; kept for old links). */
export const SERVER_EMOJI_DATA_PLAIN_NAME = 'emoji_api.json';

let file: ServerEmojiDataFile | undefined;

/** The emoji data file, built once. `:zulip:` is not in it: Zulip's clients add it themselves. */
export function serverEmojiDataFile(): ServerEmojiDataFile {
  if (file) return file;
  const codeToNames: Record<string, string[]> = {};
  for (const emoji of allUnicodeEmoji()) {
    if (emoji.code === ZULIP_EXTRA_EMOJI.code) continue;
    codeToNames[emoji.code] = [emoji.name, ...emoji.aliases];
  }
  const body = JSON.stringify({ code_to_names: codeToNames });
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 8);
  file = Object.freeze({ body, hash, fileName: `emoji_api.${hash}.json` });
  return file;
}

/** The path `/register` advertises (made absolute with the realm's URL there). */
export function serverEmojiDataPath(): string {
  return `${SERVER_EMOJI_DATA_DIR}/${serverEmojiDataFile().fileName}`;
}
