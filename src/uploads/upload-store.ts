import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createReadStream, ReadStream } from 'node:fs';
import { mkdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { sanitizeName } from './upload-names';

/** A path id we generated: `<realm_id>/<random>/<sanitized name>`; nothing else maps to disk. */
const PATH_ID = /^[0-9]{1,10}\/[A-Za-z0-9_-]{1,64}\/[^/\\\0]{1,255}$/;

/**
 * Local-disk upload storage (Zulip's LocalUploadBackend): files live at
 * `<UPLOADS_DIR>/<path_id>`. Files arrive in a temporary directory on the same file system and
 * are moved into place with one rename, so a stored file is always complete.
 */
@Injectable()
export class UploadStore {
  readonly root: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.root = resolve(config.uploadsDir);
  }

  /** Where multipart bodies are received before they become uploads (same file system). */
  get tempRoot(): string {
    return join(this.root, '.incoming');
  }

  /** A fresh path id: realm, 24 random URL-safe characters (token_urlsafe(18)), sanitized name. */
  newPathId(realmId: number, fileName: string): string {
    return `${realmId}/${randomBytes(18).toString('base64url')}/${sanitizeName(fileName)}`;
  }

  /** The absolute file of a path id, or null when the id could escape the upload directory. */
  pathOf(pathId: string): string | null {
    if (!PATH_ID.test(pathId)) return null;
    const segments = pathId.split('/');
    if (segments.some((s) => s === '.' || s === '..' || s === '')) return null;
    const full = resolve(this.root, ...segments);
    return full.startsWith(this.root + sep) ? full : null;
  }

  /** Moves a received temporary file to its final place (atomic on one file system). */
  async place(tempFile: string, pathId: string): Promise<void> {
    const target = this.pathOf(pathId);
    if (!target) throw new Error(`unsafe path id ${JSON.stringify(pathId)}`);
    await mkdir(dirname(target), { recursive: true, mode: 0o750 });
    await rename(tempFile, target);
  }

  /** Removes a stored file and its (then empty) random directory. Missing files are fine. */
  async remove(pathId: string): Promise<void> {
    const target = this.pathOf(pathId);
    if (!target) return;
    try {
      await unlink(target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await rmdir(dirname(target)).catch(() => undefined);
  }

  /** Opens a stored file for reading; null when it is missing or not a regular file. */
  async open(pathId: string): Promise<{ stream: ReadStream; size: number } | null> {
    const target = this.pathOf(pathId);
    if (!target) return null;
    try {
      const info = await stat(target);
      if (!info.isFile()) return null;
      return { stream: createReadStream(target), size: info.size };
    } catch {
      return null;
    }
  }

  /** Removes a request's temporary directory and whatever is left in it. */
  async discardTemp(dir: string): Promise<void> {
    if (!resolve(dir).startsWith(this.tempRoot + sep)) return;
    await rm(dir, { recursive: true, force: true });
  }
}
