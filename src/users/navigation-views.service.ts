import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { runInTransaction } from '../database/transaction';
import { onUniqueViolation } from '../common/errors/unique-violation';
import type { NavigationViewUpdateEvent } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { NavigationView } from './navigation-view.entity';
import { NavigationViewsRepository } from './navigation-views.repository';
import { nulPosition } from '../realm/text-checks';
import { isBuiltInView, navigationViewDict } from './navigation-views.policy';
import { ParamErrors } from '../common/errors/param.errors';
import { NavigationViewErrors } from './user.errors';

/** Fragments and names are stored as text, which cannot hold NUL. */
function checkStorable(what: string, text: string): void {
  const nul = nulPosition(text);
  if (nul !== undefined) throw ParamErrors.invalidCharacter(what, nul);
}

/**
 * A user's left-sidebar navigation views (zerver/views/navigation_views.py and
 * zerver/actions/navigation_views.py). Events go to the user's own queues only.
 */
/** Unique indexes on (user, fragment) and (user, name): the arbiters of concurrent requests. */
const VIEW_KEYS = ['navigation_view_user_fragment_key', 'navigation_view_user_name_key'];

@Injectable()
export class NavigationViewsService {
  constructor(
    private readonly views: NavigationViewsRepository,
    private readonly events: EventsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async list(userId: number): Promise<Array<ReturnType<typeof navigationViewDict>>> {
    return (await this.views.listForUser(userId)).map(navigationViewDict);
  }

  private async viewOrNotFound(userId: number, fragment: string): Promise<NavigationView> {
    const view = fragment.includes('\0') ? null : await this.views.findByFragment(userId, fragment);
    // DECISIONS #1: HTTP 404 with code NOT_FOUND (Zulip says BAD_REQUEST).
    if (!view) throw NavigationViewErrors.doesNotExist();
    return view;
  }

  async add(auth: AuthContext, fragment: string, isPinned: boolean, name: string | undefined): Promise<void> {
    const userId = auth.user.id;
    checkStorable('fragment', fragment);
    if (name !== undefined) checkStorable('name', name);
    if (isBuiltInView(fragment)) {
      if (name !== undefined) throw NavigationViewErrors.builtInWithName();
    } else if (!name) {
      throw NavigationViewErrors.customWithoutName();
    }
    await runInTransaction(this.dataSource, async () => {
      if (await this.views.findByFragment(userId, fragment)) throw NavigationViewErrors.alreadyExists();
      if (name !== undefined && (await this.views.findByName(userId, name))) {
        throw NavigationViewErrors.alreadyExists();
      }
      const view = await onUniqueViolation(
        () => this.views.insert({ userId, fragment, isPinned, name: name ?? null }),
        VIEW_KEYS,
        () => NavigationViewErrors.alreadyExists(),
      );
      this.events.sendOnCommit(
        auth.realm.id,
        { type: 'navigation_view', op: 'add', navigation_view: navigationViewDict(view) },
        [userId],
      );
    });
  }

  async update(
    auth: AuthContext,
    fragment: string,
    isPinned: boolean | undefined,
    name: string | undefined,
  ): Promise<void> {
    const userId = auth.user.id;
    if (name !== undefined) checkStorable('name', name);
    if (isBuiltInView(fragment) && name !== undefined) {
      throw NavigationViewErrors.builtInWithName();
    }
    await runInTransaction(this.dataSource, async () => {
      if (name !== undefined && (await this.views.findByName(userId, name))) {
        throw NavigationViewErrors.alreadyExists();
      }
      const view = await this.viewOrNotFound(userId, fragment);
      const data: NavigationViewUpdateEvent['data'] = {};
      const values: Partial<NavigationView> = {};
      if (name !== undefined) {
        values.name = name;
        data.name = name;
      }
      if (isPinned !== undefined) {
        values.isPinned = isPinned;
        data.is_pinned = isPinned;
      }
      if (Object.keys(values).length > 0) {
        await onUniqueViolation(
          () => this.views.update(view.id, values),
          VIEW_KEYS,
          () => NavigationViewErrors.alreadyExists(),
        );
      }
      this.events.sendOnCommit(auth.realm.id, { type: 'navigation_view', op: 'update', fragment, data }, [userId]);
    });
  }

  async remove(auth: AuthContext, fragment: string): Promise<void> {
    const userId = auth.user.id;
    await runInTransaction(this.dataSource, async () => {
      const view = await this.viewOrNotFound(userId, fragment);
      await this.views.delete(view.id);
      this.events.sendOnCommit(auth.realm.id, { type: 'navigation_view', op: 'remove', fragment }, [userId]);
    });
  }
}
