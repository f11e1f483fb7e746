import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { runInTransaction } from '../database/transaction';
import type { SavedSnippetDict } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { SavedSnippetErrors } from './drafts.errors';
import { savedSnippetDict } from './drafts.policy';
import { DraftsRepository } from './drafts.repository';

/** Saved snippets (zerver/actions/saved_snippets.py): titled texts for the compose box. */
@Injectable()
export class SavedSnippetsService {
  constructor(
    private readonly repository: DraftsRepository,
    private readonly events: EventsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async snippetsOf(userId: number): Promise<SavedSnippetDict[]> {
    return (await this.repository.snippetsOf(userId)).map(savedSnippetDict);
  }

  /** do_create_saved_snippet: title and content already stripped and checked. */
  async create(auth: AuthContext, title: string, content: string): Promise<number> {
    const { user, realm } = auth;
    return runInTransaction(this.dataSource, async () => {
      const row = await this.repository.insertSnippet(realm.id, user.id, title, content);
      this.events.sendOnCommit(realm.id, { type: 'saved_snippets', op: 'add', saved_snippet: savedSnippetDict(row) }, [
        user.id,
      ]);
      return row.id;
    });
  }

  /** do_edit_saved_snippet: the fields given replace the stored ones. */
  async edit(auth: AuthContext, id: number, title: string | undefined, content: string | undefined): Promise<void> {
    const { user, realm } = auth;
    await runInTransaction(this.dataSource, async () => {
      const row = await this.repository.lockSnippet(user.id, id);
      if (!row) throw SavedSnippetErrors.doesNotExist();
      const next = { ...row, title: title ?? row.title, content: content ?? row.content };
      await this.repository.updateSnippet(row.id, next.title, next.content);
      this.events.sendOnCommit(
        realm.id,
        { type: 'saved_snippets', op: 'update', saved_snippet: savedSnippetDict(next) },
        [user.id],
      );
    });
  }

  /** do_delete_saved_snippet. */
  async remove(auth: AuthContext, id: number): Promise<void> {
    const { user, realm } = auth;
    await runInTransaction(this.dataSource, async () => {
      const row = await this.repository.lockSnippet(user.id, id);
      if (!row) throw SavedSnippetErrors.doesNotExist();
      await this.repository.deleteSnippet(row.id);
      this.events.sendOnCommit(realm.id, { type: 'saved_snippets', op: 'remove', saved_snippet_id: row.id }, [user.id]);
    });
  }
}
