import { Injectable } from '@nestjs/common';

/** An attachment as `detached_uploads` shows it (Attachment.to_dict), before formatting. */
export interface AttachmentDictRow {
  id: number;
  file_name: string;
  path_id: string;
  size: string;
  create_time: Date;
  messages: Array<{ id: number; date_sent: string }>;
}

/**
 * What messaging's send, edit, move and delete paths need from the links between messages and uploads.
 * uploads owns attachment and attachment_message and sits above messaging (which may not import
 * it), so uploads implements this and fills the `MessageAttachments` slot at start-up
 * (docs/DEVELOPING.md, "Tables and their owners").
 */
export interface MessageAttachmentLinks {
  /**
   * Uploads a new message may claim: files of the realm with these path ids that the sender
   * uploaded, or that are already public to the realm (linked from a channel message).
   */
  claimable(realmId: number, senderId: number, pathIds: string[]): Promise<number[]>;
  /** Links the claimable uploads to the new message (Zulip's do_claim_attachments). */
  claim(realmId: number, senderId: number, messageId: number, pathIds: string[]): Promise<void>;
  /** Attachments currently linked to a message, with path ids and owners. */
  linkedTo(messageId: number): Promise<Array<{ id: number; pathId: string; ownerId: number }>>;
  /** Drops the links of a message to these attachments. */
  unlink(messageId: number, attachmentIds: number[]): Promise<void>;
  /** Resets the public caches of the attachments of moved messages (they depend on the channel). */
  resetPublicity(messageIds: number[], realmPublic: boolean, webPublic: boolean): Promise<void>;
  /** Attachments (with their remaining messages) as detached_uploads shows them, by id. */
  dicts(ids: number[]): Promise<AttachmentDictRow[]>;
  /**
   * A data-modifying CTE body that deletes the links of the messages in `messageIdsParam` (an
   * `int[]` parameter) and returns `attachment_id`: messaging deletes messages and their links in
   * one statement (the link's foreign key on message forbids deleting the message first).
   */
  unlinkMessagesSql(messageIdsParam: string): string;
}

/** The slot uploads fills at start-up; messaging's code calls it. */
@Injectable()
export class MessageAttachments implements MessageAttachmentLinks {
  private links: MessageAttachmentLinks | null = null;

  /** Called once by uploads at start-up. */
  provide(links: MessageAttachmentLinks): void {
    this.links = links;
  }

  private get impl(): MessageAttachmentLinks {
    if (!this.links) throw new Error('no uploads module: message attachment links unavailable');
    return this.links;
  }

  claimable(realmId: number, senderId: number, pathIds: string[]) {
    return pathIds.length === 0 ? Promise.resolve([]) : this.impl.claimable(realmId, senderId, pathIds);
  }
  claim(realmId: number, senderId: number, messageId: number, pathIds: string[]) {
    return this.impl.claim(realmId, senderId, messageId, pathIds);
  }
  linkedTo(messageId: number) {
    return this.impl.linkedTo(messageId);
  }
  unlink(messageId: number, attachmentIds: number[]) {
    return attachmentIds.length === 0 ? Promise.resolve() : this.impl.unlink(messageId, attachmentIds);
  }
  resetPublicity(messageIds: number[], realmPublic: boolean, webPublic: boolean) {
    if (messageIds.length === 0 || (!realmPublic && !webPublic)) return Promise.resolve();
    return this.impl.resetPublicity(messageIds, realmPublic, webPublic);
  }
  dicts(ids: number[]) {
    return ids.length === 0 ? Promise.resolve([]) : this.impl.dicts(ids);
  }
  unlinkMessagesSql(messageIdsParam: string) {
    return this.impl.unlinkMessagesSql(messageIdsParam);
  }
}
