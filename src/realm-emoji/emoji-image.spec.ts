import sharp from 'sharp';
import { resizeEmoji } from './emoji-image';

const image = (width: number, height: number, format: 'png' | 'jpeg' = 'png') =>
  sharp({ create: { width, height, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } })
    .toFormat(format)
    .toBuffer();

async function animation(width: number, height: number, frames: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * frames * 4);
  for (let i = 0; i < raw.length; i += 4) {
    raw[i] = Math.floor(i / (width * height * 4)) * 60;
    raw[i + 3] = 255;
  }
  return sharp(raw, { raw: { width, height: height * frames, channels: 4, pageHeight: height } })
    .gif({ loop: 0 })
    .toBuffer();
}

const info = async (data: Buffer) => {
  const m = await sharp(data, { animated: true }).metadata();
  return { format: m.format, width: m.width, height: m.pageHeight ?? m.height, pages: m.pages ?? 1 };
};

describe('resizeEmoji (resize_emoji)', () => {
  it('fills 64×64 from a still image, enlarging small ones, in the declared format', async () => {
    for (const [w, h] of [
      [300, 100],
      [10, 10],
      [1, 1000],
    ]) {
      const out = await resizeEmoji(await image(w, h), 'image/png');
      expect(out.still).toBeNull();
      expect(await info(out.image)).toEqual({ format: 'png', width: 64, height: 64, pages: 1 });
    }
    const jpeg = await resizeEmoji(await image(100, 100), 'image/jpeg');
    expect((await info(jpeg.image)).format).toBe('jpeg');
  });

  it('converts to the declared type whatever the bytes are (as Zulip writes with its extension)', async () => {
    const out = await resizeEmoji(await image(50, 50, 'jpeg'), 'image/webp');
    expect((await info(out.image)).format).toBe('webp');
  });

  it('keeps every frame of an animation, padded to a square, with a PNG still of the first', async () => {
    const out = await resizeEmoji(await animation(100, 50, 4), 'image/gif');
    expect(await info(out.image)).toEqual({ format: 'gif', width: 64, height: 64, pages: 4 });
    expect(out.still).not.toBeNull();
    expect(await info(out.still!)).toEqual({ format: 'png', width: 64, height: 64, pages: 1 });
    // Padding is transparent.
    const { data } = await sharp(out.image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(data[3]).toBe(0);
  });

  it('an animation uploaded as a still type becomes a still (its first frame)', async () => {
    const out = await resizeEmoji(await animation(20, 20, 3), 'image/png');
    expect(out.still).toBeNull();
    expect(await info(out.image)).toEqual({ format: 'png', width: 64, height: 64, pages: 1 });
  });

  it.each([
    ['garbage', Buffer.from('not an image at all'), 'Could not decode image; did you upload an image file?'],
    ['nothing', Buffer.alloc(0), 'Could not decode image; did you upload an image file?'],
  ])('refuses %s', async (_what, data, msg) => {
    await expect(resizeEmoji(data, 'image/png')).rejects.toMatchObject({ message: msg, code: 'BAD_IMAGE' });
  });

  it('refuses a truncated image', async () => {
    const full = await image(200, 200);
    await expect(resizeEmoji(full.subarray(0, full.length - 20), 'image/png')).rejects.toMatchObject({
      message: 'Image is corrupted or truncated',
    });
  });

  it('refuses formats outside the emoji types, by bytes and by declared type', async () => {
    const tiff = await sharp({ create: { width: 4, height: 4, channels: 3, background: 'blue' } })
      .tiff()
      .toBuffer();
    await expect(resizeEmoji(tiff, 'image/png')).rejects.toMatchObject({
      message: 'Could not decode image; did you upload an image file?',
    });
    await expect(resizeEmoji(await image(4, 4), 'image/tiff')).rejects.toMatchObject({
      message: 'Invalid image format',
    });
  });
});
