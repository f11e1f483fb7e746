import { MessageAttachments } from '../messaging/message-attachments';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Role } from '../common/roles';
import { runInTransaction } from '../database/transaction';
import { DomainEventBus } from '../events/domain-event-bus';
import { EventsService } from '../events/events.service';
import { MessageAccessService } from '../messaging/message-access.service';
import { MessagesDeletedEvent, MessageSentEvent } from '../messaging/messaging.domain-events';
import { ChannelPermissionChangedEvent } from '../channels/channels.domain-events';
import { RealmService } from '../realm/realm.service';
import { AttachmentRow, AttachmentsRepository } from './attachments.repository';
import type { ReceivedFile } from './upload-body';
import { uploadContentType } from './upload-names';
import { UploadStore } from './upload-store';
import { UploadErrors } from './upload.errors';

/**
 * What a multipart upload body may hold besides the file's bytes (boundaries, part headers, the
 * file name, small fields), for the check by Content-Length: a body this much larger than the
 * room left in the quota is refused before it is read.
 */
export const UPLOAD_FRAMING_ALLOWANCE = 64 * 1024;

/** Temporary (unauthenticated) file URLs live this long, as Zulip's. */
const TEMPORARY_URL_SECONDS = 60;

/**
 * Uploaded files (Zulip's zerver/views/upload.py, zerver/lib/upload, zerver/lib/attachments.py):
 * storing, the access check, temporary URLs, listing and deleting.
 */
@Injectable()
export class UploadsService implements OnModuleInit {
  private readonly logger = new Logger('Uploads');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: AttachmentsRepository,
    private readonly messageAttachments: MessageAttachments,
    private readonly store: UploadStore,
    private readonly events: EventsService,
    private readonly bus: DomainEventBus,
    private readonly access: MessageAccessService,
    private readonly realms: RealmService,
  ) {}

  /**
   * Keep the publicity caches (attachment.is_realm_public / is_web_public) current: a new message
   * sending can only make files more public (after commit is soon enough); deleting messages and
   * a channel going private make them less public, so those recompute inside their transaction.
   * Sending a message trusts the realm-public cache to let users share others' files.
   */
  onModuleInit(): void {
    // Messaging's send, edit, move and delete paths reach attachment links through this slot.
    const repo = this.repo;
    this.messageAttachments.provide({
      claimable: (realmId, senderId, pathIds) => repo.claimableIds(realmId, senderId, pathIds),
      claim: (realmId, senderId, messageId, pathIds) => repo.claim(realmId, senderId, messageId, pathIds),
      linkedTo: (messageId) => repo.linkedTo(messageId),
      unlink: (messageId, ids) => repo.unlink(messageId, ids),
      resetPublicity: (messageIds, realmPublic, webPublic) => repo.resetPublicity(messageIds, realmPublic, webPublic),
      dicts: (ids) => repo.dictRows(ids),
      unlinkMessagesSql: (messageIdsParam) =>
        `DELETE FROM attachment_message WHERE message_id = ANY(${messageIdsParam}::int[]) RETURNING attachment_id`,
    });
    this.bus.subscribe(MessageSentEvent, async (event) => {
      // Only messages that link uploads can change a file's visibility.
      if (event.hasAttachment) await this.repo.refreshPublicityForMessage(event.message.id);
    });
    this.bus.subscribeInTransaction(MessagesDeletedEvent, async (event) => {
      await this.repo.refreshPublicityOf(event.attachmentIds);
    });
    this.bus.subscribeInTransaction(ChannelPermissionChangedEvent, async (event) => {
      await this.repo.refreshCachedPublic(event.realmId);
    });
  }

  /** upload_file_backend: one file, within the size limit; returns {uri, url, filename}. */
  async upload(auth: AuthContext, files: ReceivedFile[]) {
    const present = files.filter((f) => f.originalname !== '');
    if (present.length === 0) throw UploadErrors.noFile();
    if (present.length !== 1) throw UploadErrors.oneFileOnly();
    const file = present[0];
    const mib = this.config.maxFileUploadSizeMib;
    if (file.size > mib * 1024 * 1024) throw UploadErrors.fileTooLarge(mib);
    const fileName = file.originalname;
    const pathId = this.store.newPathId(auth.realm.id, fileName);
    const contentType = uploadContentType(file.mimetype, fileName);
    let placed = false;
    try {
      const row = await runInTransaction(this.dataSource, async () => {
        await this.checkWithinQuota(auth.realm, file.size);
        const inserted = await this.repo.insert({
          fileName,
          pathId,
          ownerId: auth.user.id,
          realmId: auth.realm.id,
          size: file.size,
          contentType,
        });
        // The file goes into place last: a failure before COMMIT leaves neither row nor file.
        await this.store.place(file.path, pathId);
        placed = true;
        const dict = (await this.repo.dictOf(inserted.id))!;
        const used = await this.repo.realmUsage(auth.realm.id);
        this.events.sendOnCommit(
          auth.realm.id,
          { type: 'attachment', op: 'add', attachment: dict, upload_space_used: used },
          [auth.user.id],
        );
        return inserted;
      });
      const url = `/user_uploads/${row.pathId}`;
      return { uri: url, url, filename: fileName };
    } catch (err) {
      if (placed) await this.store.remove(pathId).catch(() => undefined);
      throw err;
    }
  }

  /**
   * check_upload_within_quota before the body is read (as Zulip's tusd pre-create hook does with
   * the announced Upload-Length): when the request's Content-Length, less room for the multipart
   * framing, would already take the realm past its quota, the upload is refused at once. Chunked
   * bodies (no Content-Length) and bodies near the limit are checked again once received.
   */
  async checkDeclaredWithinQuota(auth: AuthContext, declaredBytes: number | undefined): Promise<void> {
    if (declaredBytes === undefined) return;
    const quotaMib = this.realms.uploadQuotaMib(auth.realm);
    if (quotaMib === null) return;
    const fileAtLeast = declaredBytes - UPLOAD_FRAMING_ALLOWANCE;
    if (fileAtLeast <= 0) return;
    const used = await this.repo.realmUsage(auth.realm.id);
    if (used + fileAtLeast > quotaMib * 1024 * 1024) throw UploadErrors.realmQuotaExceeded();
  }

  /**
   * check_upload_within_quota: the realm's attachments plus this file must fit the quota. Runs in
   * the upload's transaction under a per-realm lock, so parallel uploads cannot overshoot together.
   */
  private async checkWithinQuota(realm: AuthContext['realm'], size: number): Promise<void> {
    const realmId = realm.id;
    const quotaMib = this.realms.uploadQuotaMib(realm);
    if (quotaMib === null) return;
    await this.repo.lockRealmUploads(realmId);
    const used = await this.repo.realmUsage(realmId);
    if (used + size > quotaMib * 1024 * 1024) throw UploadErrors.realmQuotaExceeded();
  }

  /**
   * validate_attachment_request: the owner; any non-guest of the realm when a public-channel
   * message links it; whoever may access a linking message (the message endpoints' rule, so
   * leaving a private channel takes its files away with its messages). Null for anything else
   * (callers answer 404, so a file's existence is never revealed).
   */
  async accessible(auth: AuthContext, pathId: string): Promise<AttachmentRow | null> {
    const attachment = await this.repo.byPathId(pathId);
    if (!attachment || attachment.realmId !== auth.realm.id) return null;
    const { realmPublic } = await this.repo.refreshPublicity(attachment.id);
    if (attachment.ownerId === auth.user.id) return attachment;
    if (realmPublic && auth.user.role !== Role.GUEST) return attachment;
    const linked = await this.repo.linkedMessageIds(attachment.id);
    const reachable = await this.access.accessibleMessages(auth, linked, { withBodies: false });
    return reachable.length > 0 ? attachment : null;
  }

  /** serve_file_url_backend: a short-lived URL that needs no credentials. */
  async temporaryUrl(auth: AuthContext, pathId: string): Promise<string | null> {
    const attachment = await this.accessible(auth, pathId);
    if (!attachment) return null;
    const payload = `${attachment.pathId}\n${Math.floor(Date.now() / 1000) + TEMPORARY_URL_SECONDS}`;
    const token = `${Buffer.from(payload).toString('base64url')}.${this.sign(payload)}`;
    const name = attachment.pathId.split('/').pop()!;
    return `/user_uploads/temporary/${token}/${encodeURIComponent(name)}`;
  }

  /** The attachment a temporary token names, or Zulip's `Invalid token` / `Invalid filename`. */
  async fromTemporaryToken(token: string, fileName: string): Promise<AttachmentRow | null> {
    const [body, mac] = token.split('.', 2);
    if (!body || !mac || !/^[A-Za-z0-9_-]+$/.test(body)) throw UploadErrors.invalidToken();
    const payload = Buffer.from(body, 'base64url').toString('utf8');
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw UploadErrors.invalidToken();
    const [pathId, expires] = payload.split('\n');
    if (!pathId || !/^\d+$/.test(expires ?? '') || Number(expires) < Date.now() / 1000) {
      throw UploadErrors.invalidToken();
    }
    if (pathId.split('/').pop() !== fileName) throw UploadErrors.invalidFilename();
    return this.repo.byPathId(pathId);
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.config.secretKey).update(`user_uploads:${payload}`).digest('base64url');
  }

  /** GET /attachments. */
  async list(auth: AuthContext) {
    return {
      attachments: await this.repo.dictsOfOwner(auth.user.id),
      upload_space_used: await this.repo.realmUsage(auth.realm.id),
    };
  }

  /** DELETE /attachments/{id}: the owner only; the file goes with the row. */
  async remove(auth: AuthContext, id: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const attachment = id <= 2147483647 ? await this.repo.ownedForUpdate(auth.user.id, id) : null;
      if (!attachment) throw UploadErrors.invalidAttachment();
      await this.repo.delete(attachment.id);
      try {
        await this.store.remove(attachment.pathId);
      } catch (err) {
        this.logger.error(`deleting ${attachment.pathId}: ${err instanceof Error ? err.message : String(err)}`);
        throw UploadErrors.deleteFailed();
      }
      const used = await this.repo.realmUsage(auth.realm.id);
      this.events.sendOnCommit(
        auth.realm.id,
        { type: 'attachment', op: 'remove', attachment: { id: attachment.id }, upload_space_used: used },
        [auth.user.id],
      );
    });
  }

  /** The stored file, for serving. */
  open(pathId: string) {
    return this.store.open(pathId);
  }
}
