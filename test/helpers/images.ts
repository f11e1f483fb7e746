import sharp from 'sharp';
import { crc32 } from 'node:zlib';

/** A still image of `width`×`height` in `format`, a colour gradient so it compresses like a picture. */
export async function stillImage(
  format: 'png' | 'jpeg' | 'gif' | 'webp' | 'avif' | 'tiff',
  width = 100,
  height = 80,
): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      raw[o] = (x * 255) / width;
      raw[o + 1] = (y * 255) / height;
      raw[o + 2] = 128;
      raw[o + 3] = 255;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 4 } })
    .toFormat(format)
    .toBuffer();
}

/** An animation of `frames` frames of `width`×`height` (GIF or WebP). */
export async function animatedImage(format: 'gif' | 'webp', width = 100, height = 50, frames = 3): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * frames * 4);
  for (let f = 0; f < frames; f++) {
    for (let p = 0; p < width * height; p++) {
      const o = (f * width * height + p) * 4;
      raw[o] = (f * 80) % 256;
      raw[o + 1] = 60;
      raw[o + 2] = 200;
      raw[o + 3] = 255;
    }
  }
  return sharp(raw, { raw: { width, height: height * frames, channels: 4, pageHeight: height } })
    .toFormat(format, { loop: 0 })
    .toBuffer();
}

/**
 * A PNG whose header claims `width`×`height` but carries the pixels of a 1×1 image: what a
 * decompression bomb looks like before decoding (IHDR is re-signed with its CRC).
 */
export async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(await stillImage('png', 1, 1));
  // Signature (8) + IHDR length (4) + "IHDR" (4): width and height follow, then the CRC.
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

/** Image dimensions and frame count, as the server stored them. */
export async function imageInfo(
  data: Buffer,
): Promise<{ format?: string; width?: number; height?: number; pages: number }> {
  const meta = await sharp(data, { animated: true }).metadata();
  return { format: meta.format, width: meta.width, height: meta.pageHeight ?? meta.height, pages: meta.pages ?? 1 };
}

/**
 * An animated WebP of `frames` tiny frames whose canvas claims `width`×`height` (VP8X chunk, no
 * checksum): a bomb by its frame count times its frame size.
 */
export async function webpAnimationClaiming(width: number, height: number, frames: number): Promise<Buffer> {
  const webp = Buffer.from(await animatedImage('webp', 4, 4, frames));
  if (webp.subarray(12, 16).toString('latin1') !== 'VP8X') throw new Error('expected an extended WebP');
  webp.writeUIntLE(width - 1, 24, 3);
  webp.writeUIntLE(height - 1, 27, 3);
  return webp;
}
