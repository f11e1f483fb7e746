import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChannelAccessService } from '../channels/channel-access.service';
import type { AuthContext } from '../common/auth/auth.types';
import { ParamErrors } from '../common/errors/param.errors';
import { runInTransaction } from '../database/transaction';
import type { DraftDict } from '../events/client-events';
import { DomainEventBus } from '../events/domain-event-bus';
import { EventsService } from '../events/events.service';
import { MessageErrors } from '../messaging/message.errors';
import { hasNul, normalizeContent, truncateTopic } from '../messaging/message-text';
import { RealmService } from '../realm/realm.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { UserErrors } from '../users/user.errors';
import { UserSettingsChangedEvent } from '../users/users.domain-events';
import { DraftErrors } from './drafts.errors';
import { DraftData, directDraftTo, draftDict, MAX_DRAFT_TIMESTAMP } from './drafts.policy';
import { DraftsRepository, DraftValues } from './drafts.repository';

/** Zulip's settings.MAX_DRAFTS_IN_REGISTER_RESPONSE. */
const MAX_DRAFTS_IN_REGISTER_RESPONSE = 1000;

/**
 * Synchronized drafts (zerver/lib/drafts.py, zerver/views/drafts.py): a user's compose-box
 * drafts, kept while `enable_drafts_synchronization` is on (turning it off deletes them, without
 * events, as Zulip's do_change_user_setting).
 */
@Injectable()
export class DraftsService implements OnModuleInit {
  constructor(
    private readonly repository: DraftsRepository,
    private readonly channels: ChannelAccessService,
    private readonly directory: UserDirectoryService,
    private readonly realms: RealmService,
    private readonly events: EventsService,
    private readonly bus: DomainEventBus,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.bus.subscribeInTransaction(UserSettingsChangedEvent, async (e) => {
      const change = e.changes.get('enable_drafts_synchronization');
      if (change && change.new === false) await this.repository.deleteAllDrafts(e.userId);
    });
  }

  /** GET /drafts: the oldest first. */
  async draftsOf(userId: number): Promise<DraftDict[]> {
    return (await this.repository.draftsOf(userId)).map(draftDict);
  }

  /** /register's `drafts`: the newest first, at most 1000 (empty while synchronization is off). */
  async draftsForRegister(userId: number): Promise<DraftDict[]> {
    return (await this.repository.newestDraftsOf(userId, MAX_DRAFTS_IN_REGISTER_RESPONSE)).map(draftDict);
  }

  /** POST /drafts (do_create_drafts): every draft checked, then all created; their ids. */
  async create(auth: AuthContext, drafts: DraftData[]): Promise<number[]> {
    const { user, realm } = auth;
    return runInTransaction(this.dataSource, async () => {
      const values: DraftValues[] = [];
      for (const draft of drafts) values.push(await this.validated(auth, draft));
      const ids = await this.repository.insertDrafts(realm.id, user.id, values);
      const dicts = values.map((v, i) => draftDict({ id: ids[i], ...v }));
      this.events.sendOnCommit(realm.id, { type: 'drafts', op: 'add', drafts: dicts }, [user.id]);
      return ids;
    });
  }

  /** PATCH /drafts/{draft_id} (do_edit_draft). */
  async edit(auth: AuthContext, draftId: number, draft: DraftData): Promise<void> {
    const { user, realm } = auth;
    await runInTransaction(this.dataSource, async () => {
      const row = await this.repository.lockDraft(user.id, draftId);
      if (!row) throw DraftErrors.doesNotExist();
      const values = await this.validated(auth, draft);
      await this.repository.updateDraft(row.id, values);
      this.events.sendOnCommit(
        realm.id,
        { type: 'drafts', op: 'update', draft: draftDict({ id: row.id, ...values }) },
        [user.id],
      );
    });
  }

  /** DELETE /drafts/{draft_id} (do_delete_draft). */
  async remove(auth: AuthContext, draftId: number): Promise<void> {
    const { user, realm } = auth;
    await runInTransaction(this.dataSource, async () => {
      const row = await this.repository.lockDraft(user.id, draftId);
      if (!row) throw DraftErrors.doesNotExist();
      await this.repository.deleteDraft(row.id);
      this.events.sendOnCommit(realm.id, { type: 'drafts', op: 'remove', draft_id: row.id }, [user.id]);
    });
  }

  /** Zulip's further_validated_draft_dict, in its order: content, timestamp, recipient. */
  private async validated(auth: AuthContext, draft: DraftData): Promise<DraftValues> {
    const { user, realm } = auth;
    const content = normalizeContent(draft.content);

    const seconds = Math.round((draft.timestamp ?? Date.now() / 1000) * 1e6) / 1e6;
    if (seconds < 0) throw DraftErrors.negativeTimestamp();
    // Zulip's datetime cannot hold later times (it answers a 500); we refuse them.
    if (seconds > MAX_DRAFT_TIMESTAMP) throw ParamErrors.tooLarge('timestamp');
    const lastEditTime = new Date(seconds * 1000);

    const values: DraftValues = { type: '', streamId: null, toUserIds: [], topic: '', content, lastEditTime };
    if (draft.type === 'stream') {
      const topic = truncateTopic(draft.topic);
      if (hasNul(topic)) throw DraftErrors.topicNullBytes();
      if (draft.to.length !== 1) throw DraftErrors.oneChannel();
      const actor = await this.channels.actorFor(user);
      const { stream } = await this.channels.accessById(actor, realm.id, draft.to[0]);
      return { ...values, type: 'stream', streamId: stream.id, topic };
    }
    if (draft.type === 'private' && draft.to.length > 0) {
      const ids = [...new Set(draft.to)];
      const found = new Map((await this.directory.usersByIds(realm.id, ids)).map((u) => [u.id, u]));
      for (const id of ids) if (!found.has(id)) throw UserErrors.invalidRecipientId(id);
      for (const id of ids) {
        const u = found.get(id)!;
        if (!u.isActive) {
          const email =
            u.emailAddressVisibility === 1 ? u.deliveryEmail : `user${u.id}@${this.realms.realmHost(realm)}`;
          throw MessageErrors.recipientDeactivated(email);
        }
      }
      return { ...values, type: 'private', toUserIds: directDraftTo(ids, user.id) };
    }
    // A direct draft without recipients is saved as having none (type "").
    return values;
  }
}
