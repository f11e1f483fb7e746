/**
 * Resizing custom emoji (zerver/lib/thumbnail.py resize_emoji) with sharp (libvips, the library
 * Zulip uses through pyvips). Pure: bytes in, bytes out; no database, no Nest.
 */
import sharp from 'sharp';
import { RealmEmojiErrors } from './realm-emoji.errors';

// One-off operations on untrusted input: libvips' operation cache would only hold memory.
sharp.cache(false);

/** Zulip's DEFAULT_EMOJI_SIZE. */
export const EMOJI_SIZE = 64;
/** IMAGE_BOMB_TOTAL_PIXELS: the most pixels, over all frames, we decode. */
export const MAX_TOTAL_PIXELS = 90_000_000;
/** MAX_EMOJI_GIF_FILE_SIZE_BYTES: the largest resized image (or still) we keep. */
export const MAX_RESIZED_BYTES = 128 * 1024;
/** Longest time one image may take to process. */
const PROCESS_TIMEOUT_SECONDS = 20;

/**
 * Formats we let libvips decode, as Zulip blocks every other loader: the emoji image types
 * (AVIF arrives as `heif`). SVG, TIFF, PDF, … bytes are refused whatever type the client declared.
 */
const DECODABLE = new Set(['gif', 'jpeg', 'png', 'webp', 'heif']);

/** Output formats by content type; only GIF and WebP keep an animation. */
const OUTPUT: Record<string, { format: 'avif' | 'gif' | 'jpeg' | 'png' | 'webp'; animated: boolean }> = {
  'image/avif': { format: 'avif', animated: false },
  'image/gif': { format: 'gif', animated: true },
  'image/jpeg': { format: 'jpeg', animated: false },
  'image/png': { format: 'png', animated: false },
  'image/webp': { format: 'webp', animated: true },
};

export interface ResizedEmoji {
  /** The emoji at 64×64 in the upload's format (every frame, for an animation). */
  image: Buffer;
  /** For an animated emoji, its first frame as a 64×64 PNG; null for a still image. */
  still: Buffer | null;
}

const options = (pages: number) => ({
  animated: pages > 1,
  limitInputPixels: MAX_TOTAL_PIXELS,
  failOn: 'error' as const,
});

/**
 * libvips_check_image + resize_emoji: decodes only the headers first (undecodable →
 * "Could not decode image…"; more than 90 million pixels over all frames → "Image size exceeds
 * limit."), then scales a still image to fill 64×64 (cropping the centre, enlarging small ones);
 * an animation is scaled to fit 64×64 frame by frame, padded with transparency to a square, and
 * gets a still of its first frame. Failures while decoding the pixels → "Image is corrupted or
 * truncated". Results over 128 KiB → "Image size exceeds limit".
 */
export async function resizeEmoji(data: Buffer, contentType: string): Promise<ResizedEmoji> {
  const output = OUTPUT[contentType];
  if (!output) throw RealmEmojiErrors.invalidImageFormat();
  let meta: sharp.Metadata;
  try {
    meta = await sharp(data, { limitInputPixels: false }).metadata();
  } catch {
    throw RealmEmojiErrors.couldNotDecode();
  }
  if (!meta.format || !DECODABLE.has(meta.format) || !meta.width || !meta.height) {
    throw RealmEmojiErrors.couldNotDecode();
  }
  const pages = Math.max(1, meta.pages ?? 1);
  const frameHeight = meta.pageHeight ?? meta.height;
  if (meta.width * frameHeight * pages > MAX_TOTAL_PIXELS) throw RealmEmojiErrors.imageTooBig();

  const square = { width: EMOJI_SIZE, height: EMOJI_SIZE };
  const still = () =>
    sharp(data, options(1))
      .rotate()
      .resize({ ...square, fit: 'cover', position: 'centre' })
      .timeout({ seconds: PROCESS_TIMEOUT_SECONDS });
  let result: ResizedEmoji;
  try {
    if (pages === 1 || !output.animated) {
      result = { image: await still().toFormat(output.format).toBuffer(), still: null };
    } else {
      const first = await still().png().toBuffer();
      const animation = await sharp(data, options(pages))
        .resize({ ...square, fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
        .timeout({ seconds: PROCESS_TIMEOUT_SECONDS })
        .toFormat(output.format)
        .toBuffer();
      result = { image: animation, still: first };
    }
  } catch (err) {
    if (err instanceof Error && /timeout/i.test(err.message)) throw RealmEmojiErrors.imageTooBig();
    throw RealmEmojiErrors.corrupted();
  }
  if ((result.still ?? result.image).length > MAX_RESIZED_BYTES) throw RealmEmojiErrors.resizedTooBig();
  return result;
}
