import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { ParamErrors } from '../common/errors/param.errors';
import { runInTransaction } from '../database/transaction';
import type { RealmPlaygroundDict } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { LinkifierErrors } from '../linkifiers/linkifier.errors';
import { addError } from '../linkifiers/linkifier.policy';
import { nulPosition } from '../realm/text-checks';
import { UserDirectoryService } from '../users/user-directory.service';
import { PlaygroundErrors, PlaygroundValidationTexts } from './playground.errors';
import { MAX_PYGMENTS_LANGUAGE_LENGTH, playgroundErrors, LANGUAGE_RE } from './playground.policy';
import { PlaygroundRepository } from './playground.repository';

export interface PlaygroundInput {
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}

/** Code playgrounds (Zulip's views/realm_playgrounds.py, actions/realm_playgrounds.py). */
@Injectable()
export class PlaygroundService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repo: PlaygroundRepository,
    private readonly directory: UserDirectoryService,
    private readonly events: EventsService,
  ) {}

  /** get_realm_playgrounds. */
  list(realmId: number): Promise<RealmPlaygroundDict[]> {
    return this.repo.list(realmId);
  }

  /** The view's check of pygments_language, run while reading the parameters. */
  static checkLanguageParam(language: string): void {
    if ([...language].length > MAX_PYGMENTS_LANGUAGE_LENGTH) {
      throw ParamErrors.tooLong('pygments_language', MAX_PYGMENTS_LANGUAGE_LENGTH);
    }
    if (!LANGUAGE_RE.test(language)) throw PlaygroundErrors.invalidLanguage();
  }

  /** add_realm_playground + do_add_realm_playground. */
  async add(auth: AuthContext, input: PlaygroundInput): Promise<number> {
    for (const [field, value] of [
      ['name', input.name],
      ['url_template', input.urlTemplate],
    ] as const) {
      const nul = nulPosition(value);
      if (nul !== undefined) throw ParamErrors.invalidCharacter(field, nul);
    }
    const name = input.name.trim();
    const language = input.pygmentsLanguage.trim();
    const urlTemplate = input.urlTemplate.trim();
    return runInTransaction(this.dataSource, async () => {
      const realmId = auth.realm.id;
      await this.repo.lockRealm(realmId);
      const errors = playgroundErrors(name, language, urlTemplate);
      if (!errors.name && !errors.pygments_language && (await this.repo.taken(realmId, language, name))) {
        addError(errors, '__all__', PlaygroundValidationTexts.exists);
      }
      if (Object.keys(errors).length > 0) throw LinkifierErrors.validationFailed(errors);
      const id = await this.repo.insert(realmId, name, language, urlTemplate);
      await this.notify(realmId);
      return id;
    });
  }

  /**
   * delete_realm_playground: another realm's id is an unknown id. (Zulip also clears the realm's
   * default_code_block_language when it is this playground's language; this server does not
   * store that setting yet: it is always empty.)
   */
  async remove(auth: AuthContext, id: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const realmId = auth.realm.id;
      await this.repo.lockRealm(realmId);
      if (!(await this.repo.remove(realmId, id))) throw PlaygroundErrors.notFound();
      await this.notify(realmId);
    });
  }

  /** notify_realm_playgrounds: the full list to every active user. */
  private async notify(realmId: number): Promise<void> {
    this.events.sendOnCommit(
      realmId,
      { type: 'realm_playgrounds', realm_playgrounds: await this.repo.list(realmId) },
      await this.directory.activeUserIds(realmId),
    );
  }
}
