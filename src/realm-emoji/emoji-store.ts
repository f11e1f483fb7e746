import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createReadStream, ReadStream } from 'node:fs';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { APP_CONFIG, AppConfig } from '../common/config/config';

/**
 * Local storage of custom emoji images, beside the uploaded files: Zulip's LocalUploadBackend
 * keeps them in its "avatars" area, `<UPLOADS_DIR>/avatars/<realm_id>/emoji/images/…`, served
 * publicly under /user_avatars/. (Message uploads live at `<UPLOADS_DIR>/<realm_id>/…`, whose
 * first segment is always a number, so the two never meet.) Files are written to a temporary
 * name and renamed into place, so a stored image is always complete.
 */
@Injectable()
export class EmojiStore {
  readonly root: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.root = join(resolve(config.uploadsDir), 'avatars');
  }

  /** The absolute file of a relative path, or null if it could leave the avatars area. */
  private fileOf(path: string): string | null {
    const segments = path.split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0'))) return null;
    const full = resolve(this.root, ...segments);
    return full.startsWith(this.root + sep) ? full : null;
  }

  async write(path: string, data: Buffer): Promise<void> {
    const target = this.fileOf(path);
    if (!target) throw new Error(`unsafe emoji path ${JSON.stringify(path)}`);
    await mkdir(dirname(target), { recursive: true, mode: 0o750 });
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, data, { mode: 0o640 });
    await rename(temp, target);
  }

  /** Removes files (missing ones are fine); used when the emoji's transaction fails. */
  async remove(paths: string[]): Promise<void> {
    for (const path of paths) {
      const target = this.fileOf(path);
      if (target) await unlink(target).catch(() => undefined);
    }
  }

  /** Opens a stored image; null when it is missing or not a regular file. */
  async open(path: string): Promise<{ stream: ReadStream; size: number } | null> {
    const target = this.fileOf(path);
    if (!target) return null;
    try {
      const info = await stat(target);
      if (!info.isFile()) return null;
      return { stream: createReadStream(target), size: info.size };
    } catch {
      return null;
    }
  }
}
