import { UserDirectoryService } from '../users/user-directory.service';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Errors } from '../common/errors/zulip-error';
import { Role } from '../common/roles';
import { CacheInvalidation } from '../database/cache-invalidation';
import { runInTransaction } from '../database/transaction';
import type { RealmEmojiDict } from '../events/client-events';
import { EventsService } from '../events/events.service';
import type { RealmEmojiInfo } from '../markdown/emoji/emoji';
import { EmojiErrors } from '../markdown/emoji/emoji.errors';
import { REALM_GROUP_SETTINGS } from '../realm/system-groups';
import { GroupSettingsService } from '../users/group-settings.service';
import type { ReceivedEmojiBody } from './emoji-body';
import { resizeEmoji } from './emoji-image';
import { EmojiStore } from './emoji-store';
import type { RealmEmoji } from './realm-emoji.entity';
import { RealmEmojiErrors } from './realm-emoji.errors';
import {
  EMOJI_IMAGE_TYPES,
  emojiContentType,
  emojiFileName,
  emojiNameError,
  emojiPath,
  emojiStillPath,
  emojiUrl,
  isBuiltInEmojiName,
  isPossibleEmojiName,
  normalizeEmojiName,
} from './realm-emoji.policy';
import { RealmEmojiRepository } from './realm-emoji.repository';

/** How long a process keeps a realm's active emoji (a backstop: changes reach every process at once). */
const ACTIVE_EMOJI_CACHE_MS = 60_000;

interface ActiveEmoji {
  id: number;
  fileName: string;
}

/** emoji_as_emojiinfo: one emoji as GET /realm/emoji, /register and events show it. */
export function emojiDict(row: RealmEmoji): RealmEmojiDict {
  const fileName = row.fileName ?? '';
  return {
    id: String(row.id),
    name: row.name,
    source_url: emojiUrl(row.realmId, fileName),
    deactivated: row.deactivated,
    author_id: row.authorId,
    still_url: row.isAnimated ? emojiUrl(row.realmId, fileName, true) : null,
  };
}

/**
 * Custom emoji (Zulip's views/realm_emoji.py, actions/realm_emoji.py, lib/emoji.py): listing,
 * uploading (resized to 64×64 with a still for animations), deactivating, and the lookups that
 * Markdown rendering and reactions need.
 */
@Injectable()
export class RealmEmojiService {
  private readonly logger = new Logger('RealmEmoji');
  /** Each realm's active emoji by name, for rendering (Zulip's realm emoji cache). */
  private readonly active = new Map<number, { at: number; byName: Promise<ReadonlyMap<string, ActiveEmoji>> }>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repo: RealmEmojiRepository,
    private readonly store: EmojiStore,
    private readonly groupSettings: GroupSettingsService,
    private readonly directory: UserDirectoryService,
    private readonly events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly invalidation: CacheInvalidation,
  ) {
    invalidation.on('realm-emoji', (realmIds) => {
      if (realmIds === null) this.active.clear();
      else for (const id of realmIds) this.active.delete(id);
    });
  }

  /** get_all_custom_emoji_for_realm: every emoji of the realm by id, deactivated ones included. */
  async list(realmId: number): Promise<Record<string, RealmEmojiDict>> {
    const rows = await this.repo.listInRealm(realmId);
    return Object.fromEntries(rows.map((row) => [String(row.id), emojiDict(row)]));
  }

  /**
   * upload_emoji + check_add_realm_emoji, in Zulip's order of checks: the name, the permission,
   * an active emoji of that name, exactly one file, built-in names (administrators only), the
   * file size, the image type, then the image itself.
   */
  async upload(auth: AuthContext, rawName: string, body: ReceivedEmojiBody): Promise<void> {
    const { user, realm } = auth;
    const name = normalizeEmojiName(rawName);
    const nameError = emojiNameError(name);
    if (nameError) throw nameError;
    const allowed = await this.groupSettings.hasPermission(
      realm.id,
      user,
      realm.can_add_custom_emoji_group,
      REALM_GROUP_SETTINGS.can_add_custom_emoji_group.allowEveryone,
    );
    if (!allowed) throw Errors.insufficientPermission();
    if (await this.repo.findActive(realm.id, name)) throw RealmEmojiErrors.alreadyExists();
    const fileCount = body.tooMany ? 2 : body.files.length + (body.tooLarge ? 1 : 0);
    if (fileCount !== 1) throw RealmEmojiErrors.exactlyOneFile();
    if (isBuiltInEmojiName(name) && user.role > Role.ADMINISTRATOR) throw RealmEmojiErrors.onlyAdminsOverrideDefault();
    const mib = this.config.maxEmojiFileSizeMib;
    if (body.tooLarge || body.files[0].buffer.length > mib * 1024 * 1024) throw RealmEmojiErrors.fileTooLarge(mib);
    const file = body.files[0];
    const contentType = emojiContentType(file.mimetype, file.originalname);
    if (!(contentType in EMOJI_IMAGE_TYPES)) throw RealmEmojiErrors.invalidImageFormat();
    const resized = await resizeEmoji(file.buffer, contentType);

    const written: string[] = [];
    try {
      await runInTransaction(this.dataSource, async () => {
        const id = await this.repo.insertIfNameFree(realm.id, name, user.id);
        if (id === null) throw RealmEmojiErrors.alreadyExists();
        const fileName = emojiFileName(this.config.secretKey, id, contentType);
        const path = emojiPath(realm.id, fileName);
        const files: Array<[string, Buffer]> = [
          [`${path}.original`, file.buffer],
          [path, resized.image],
        ];
        if (resized.still) files.push([emojiStillPath(realm.id, fileName), resized.still]);
        for (const [p, data] of files) {
          written.push(p);
          await this.store.write(p, data);
        }
        await this.repo.setFile(id, fileName, resized.still !== null);
        await this.notify(realm.id);
      });
    } catch (err) {
      // Nothing stays behind of an emoji whose row did not commit.
      await this.store
        .remove(written)
        .catch((e: unknown) => this.logger.warn(`emoji file cleanup failed: ${String(e)}`));
      throw err;
    }
  }

  /** delete_emoji + do_remove_realm_emoji: administrators, or the emoji's author, deactivate it. */
  async remove(auth: AuthContext, name: string): Promise<void> {
    const { user, realm } = auth;
    // No stored emoji has any other name (nor may one with a NUL reach SQL).
    if (!isPossibleEmojiName(name)) throw EmojiErrors.customEmojiNotFound(name);
    await runInTransaction(this.dataSource, async () => {
      const emoji = await this.repo.lockActive(realm.id, name);
      if (!emoji) throw EmojiErrors.customEmojiNotFound(name);
      const isAdmin = user.role <= Role.ADMINISTRATOR;
      if (!isAdmin && emoji.authorId !== user.id) throw RealmEmojiErrors.notAdminOrAuthor();
      await this.repo.deactivate(emoji.id);
      await this.notify(realm.id);
    });
  }

  /** The realm's active emoji among these names, for the Markdown renderer (one query, none without names). */
  async forRendering(
    realmId: number,
    names: readonly string[],
  ): Promise<Array<{ id: string; name: string; sourceUrl: string }>> {
    const candidates = [...new Set(names)].filter(isPossibleEmojiName);
    if (candidates.length === 0) return [];
    const byName = await this.activeByName(realmId);
    return candidates.flatMap((name) => {
      const e = byName.get(name);
      return e ? [{ id: String(e.id), name, sourceUrl: emojiUrl(realmId, e.fileName) }] : [];
    });
  }

  /**
   * The realm's active emoji, cached per process: a send that names `:smile:` reads nothing.
   * Changes drop the entry in every process (CacheInvalidation); the age is a backstop. The load
   * is shared by the requests that arrive while it runs; one that an invalidation overtook is
   * used once and not kept.
   */
  private activeByName(realmId: number): Promise<ReadonlyMap<string, ActiveEmoji>> {
    const hit = this.active.get(realmId);
    if (hit && Date.now() - hit.at < ACTIVE_EMOJI_CACHE_MS) return hit.byName;
    const entry = {
      at: Date.now(),
      byName: this.repo.activeInRealm(realmId).then((rows) => new Map(rows.map((r) => [r.name, r]))),
    };
    if (this.invalidation.canCache) this.active.set(realmId, entry);
    entry.byName.catch(() => {
      if (this.active.get(realmId) === entry) this.active.delete(realmId);
    });
    return entry.byName;
  }

  /**
   * What a reaction request may refer to: the active emoji named `name`, and the emoji (active or
   * not) whose id is `code`, in the shape the emoji checks take (check_emoji_request).
   */
  async forReaction(realmId: number, name: string | undefined, code: string | undefined): Promise<RealmEmojiInfo[]> {
    const id = code !== undefined && /^[0-9]{1,9}$/.test(code) ? Number(code) : null;
    const byName = name !== undefined && isPossibleEmojiName(name) ? name : null;
    if (id === null && byName === null) return [];
    const rows = await this.repo.reactionCandidates(realmId, byName, id);
    return rows.map((r) => ({
      id: String(r.id),
      name: r.name,
      sourceUrl: emojiUrl(realmId, r.fileName),
      deactivated: r.deactivated,
    }));
  }

  private async notify(realmId: number): Promise<void> {
    await this.invalidation.publishOnCommit('realm-emoji', [realmId]);
    this.events.sendOnCommit(
      realmId,
      { type: 'realm_emoji', op: 'update', realm_emoji: await this.list(realmId) },
      await this.directory.activeUserIds(realmId),
    );
  }
}
