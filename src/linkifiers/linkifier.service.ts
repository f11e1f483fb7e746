import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { ParamErrors } from '../common/errors/param.errors';
import { CacheInvalidation } from '../database/cache-invalidation';
import { runInTransaction } from '../database/transaction';
import type { LinkifierDict } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { compileLinkifiers, topicLinks, type CompiledLinkifier, type TopicLink } from '../markdown';
import { nulPosition } from '../realm/text-checks';
import { UserDirectoryService } from '../users/user-directory.service';
import { LinkifierErrors, ModelValidationTexts } from './linkifier.errors';
import { addError, linkifierErrors, reorderProblem } from './linkifier.policy';
import { LinkifierRepository } from './linkifier.repository';

/** How long a process keeps a realm's compiled linkifiers (a backstop: changes reach every process at once). */
const CACHE_MS = 10_000;

/** A realm's linkifiers, compiled for rendering messages and topics. */
export interface RealmLinkifiers {
  readonly compiled: readonly CompiledLinkifier[];
  /** Zulip's topic_links for a topic name. */
  topicLinks(topic: string): TopicLink[];
}

const EMPTY: RealmLinkifiers = { compiled: [], topicLinks: () => [] };

/**
 * Realm linkifiers (Zulip's views/realm_linkifiers.py, actions/realm_linkifiers.py,
 * models/linkifiers.py): listing, adding, changing, removing and reordering them, and the compiled
 * set the renderer uses (cached per realm, dropped when this process changes them).
 */
@Injectable()
export class LinkifierService {
  private readonly cache = new Map<number, { at: number; value: RealmLinkifiers }>();
  private generation = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repo: LinkifierRepository,
    private readonly directory: UserDirectoryService,
    private readonly events: EventsService,
    private readonly invalidation: CacheInvalidation,
  ) {
    invalidation.on('linkifiers', (realmIds) => {
      this.generation++;
      if (realmIds === null) this.cache.clear();
      else for (const id of realmIds) this.cache.delete(id);
    });
  }

  /** linkifiers_for_realm. */
  list(realmId: number): Promise<LinkifierDict[]> {
    return this.repo.list(realmId);
  }

  /** The realm's linkifiers ready for the renderer and topic_links (no query while cached). */
  async forRendering(realmId: number): Promise<RealmLinkifiers> {
    const hit = this.cache.get(realmId);
    const now = Date.now();
    if (hit && now - hit.at < CACHE_MS) return hit.value;
    const generation = this.generation;
    const defs = await this.repo.list(realmId);
    const compiled = compileLinkifiers(defs);
    const value: RealmLinkifiers =
      compiled.length === 0 ? EMPTY : { compiled, topicLinks: (topic) => topicLinks(compiled, topic) };
    if (generation === this.generation && this.invalidation.canCache) this.cache.set(realmId, { at: now, value });
    return value;
  }

  /** do_add_linkifier. */
  async add(auth: AuthContext, rawPattern: string, rawTemplate: string): Promise<number> {
    const { pattern, urlTemplate } = this.inputs(rawPattern, rawTemplate);
    return runInTransaction(this.dataSource, async () => {
      const realmId = auth.realm.id;
      await this.repo.lockRealm(realmId);
      await this.validate(realmId, pattern, urlTemplate, null);
      const id = await this.repo.insert(realmId, pattern, urlTemplate);
      await this.changed(realmId);
      return id;
    });
  }

  /** do_update_linkifier: an unknown id first, then the checks of adding one. */
  async update(auth: AuthContext, id: number, rawPattern: string, rawTemplate: string): Promise<void> {
    const { pattern, urlTemplate } = this.inputs(rawPattern, rawTemplate);
    await runInTransaction(this.dataSource, async () => {
      const realmId = auth.realm.id;
      await this.repo.lockRealm(realmId);
      if (!(await this.repo.exists(realmId, id))) throw LinkifierErrors.notFound();
      await this.validate(realmId, pattern, urlTemplate, id);
      await this.repo.update(realmId, id, pattern, urlTemplate);
      await this.changed(realmId);
    });
  }

  /** do_remove_linkifier. */
  async remove(auth: AuthContext, id: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const realmId = auth.realm.id;
      await this.repo.lockRealm(realmId);
      if (!(await this.repo.exists(realmId, id))) throw LinkifierErrors.notFound();
      await this.repo.remove(realmId, id);
      await this.changed(realmId);
    });
  }

  /** check_reorder_linkifiers: every linkifier exactly once; an empty realm changes nothing. */
  async reorder(auth: AuthContext, ordered: number[]): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const realmId = auth.realm.id;
      await this.repo.lockRealm(realmId);
      const existing = (await this.repo.list(realmId)).map((l) => l.id);
      const problem = reorderProblem(ordered, existing);
      if (problem === 'duplicates') throw LinkifierErrors.duplicatedInOrder();
      if (problem === 'incomplete') throw LinkifierErrors.incompleteOrder();
      if (existing.length === 0) return;
      await this.repo.setOrder(realmId, ordered);
      await this.changed(realmId);
    });
  }

  /** Stripped values; NUL cannot be stored (nor compiled into a pattern), so it is refused first. */
  private inputs(pattern: string, urlTemplate: string): { pattern: string; urlTemplate: string } {
    const patternNul = nulPosition(pattern);
    if (patternNul !== undefined) throw ParamErrors.invalidCharacter('pattern', patternNul);
    const templateNul = nulPosition(urlTemplate);
    if (templateNul !== undefined) throw ParamErrors.invalidCharacter('url_template', templateNul);
    return { pattern: pattern.trim(), urlTemplate: urlTemplate.trim() };
  }

  /** full_clean: the field and pattern checks, then uniqueness of the pattern in the realm. */
  private async validate(realmId: number, pattern: string, urlTemplate: string, exceptId: number | null) {
    const errors = linkifierErrors(pattern, urlTemplate);
    if (!errors.pattern && (await this.repo.patternTaken(realmId, pattern, exceptId))) {
      addError(errors, '__all__', ModelValidationTexts.linkifierExists);
    }
    if (Object.keys(errors).length > 0) throw LinkifierErrors.validationFailed(errors);
  }

  /** notify_linkifiers (the full list), and this process's cache dropped once the change commits. */
  private async changed(realmId: number): Promise<void> {
    const linkifiers = await this.repo.list(realmId);
    this.events.sendOnCommit(
      realmId,
      { type: 'realm_linkifiers', realm_linkifiers: linkifiers },
      await this.directory.activeUserIds(realmId),
      (queue) =>
        queue.options.clientCapabilities.linkifier_url_template === true
          ? { type: 'realm_linkifiers', realm_linkifiers: linkifiers }
          : { type: 'realm_linkifiers', realm_linkifiers: [] },
    );
    await this.invalidation.publishOnCommit('linkifiers', [realmId]);
  }
}
