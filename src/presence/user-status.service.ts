import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { runInTransaction } from '../database/transaction';
import type { UserStatusEvent } from '../events/client-events';
import { EventsService } from '../events/events.service';
import type { Realm } from '../realm/realm.entity';
import { isAccessibleUserId } from '../users/user-access';
import { UserAccessService } from '../users/user-access.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { UserSettingsService } from '../users/user-settings.service';
import type { UserProfile } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { checkStatusRequest, formatUserStatus, StatusRequest } from './user-status.policy';
import { UserStatusRepository } from './user-status.repository';

/** User status (zerver/actions/user_status.py, zerver/lib/user_status.py). */
@Injectable()
export class UserStatusService {
  constructor(
    private readonly statuses: UserStatusRepository,
    private readonly users: UsersService,
    private readonly userSettings: UserSettingsService,
    private readonly events: EventsService,
    private readonly userAccess: UserAccessService,
    private readonly directory: UserDirectoryService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** POST /users/me/status (update_user_status_backend). */
  async updateOwnStatus(auth: AuthContext, req: StatusRequest): Promise<void> {
    const change = checkStatusRequest(req, { allowAway: true });
    await this.doUpdate(auth, auth.user, { ...change, away: req.away });
  }

  /** POST /users/{user_id}/status (update_user_status_admin): administrators, never `away`. */
  async updateStatusOf(auth: AuthContext, userId: number, req: StatusRequest): Promise<void> {
    const target = await this.users.accessUserById(auth.user, auth.realm, userId, { allowBots: false, forAdmin: true });
    const change = checkStatusRequest(req, { allowAway: false });
    await this.doUpdate(auth, target, change);
  }

  /** GET /users/{user_id}/status (get_status_backend). */
  async statusOf(auth: AuthContext, userId: number): Promise<Record<string, unknown>> {
    const target = await this.users.accessUserById(auth.user, auth.realm, userId, {
      allowBots: false,
      forAdmin: false,
    });
    const row = await this.statuses.find(target.id);
    return row ? formatUserStatus(row) : {};
  }

  /**
   * /register's user_status (get_all_users_status_dict): by user id, the realm's active users with
   * something to show; a guest restricted by can_access_all_users_group gets only those they may see.
   */
  async realmStatuses(
    realm: Pick<Realm, 'id' | 'can_access_all_users_group'>,
    viewer: { id: number; role: number },
  ): Promise<Record<string, Record<string, unknown>>> {
    const out: Record<string, Record<string, unknown>> = {};
    const rows = await this.statuses.realmRows(realm.id);
    const access =
      rows.length === 0
        ? null
        : await this.userAccess.forViewer(
            viewer,
            realm,
            rows.map((r) => r.userId),
          );
    for (const row of rows) {
      if (access && !isAccessibleUserId(access, row.userId)) continue;
      out[String(row.userId)] = formatUserStatus(row);
    }
    return out;
  }

  /**
   * do_update_user_status: `away` sets presence_enabled (with its own events), then the status
   * fields given, and a `user_status` event with just those fields to everyone in the realm.
   */
  private async doUpdate(
    auth: AuthContext,
    target: UserProfile,
    change: ReturnType<typeof checkStatusRequest> & { away?: boolean },
  ): Promise<void> {
    const { realm } = auth;
    await runInTransaction(this.dataSource, async () => {
      if (change.away !== undefined) await this.userSettings.setPresenceEnabled(target, !change.away);
      await this.statuses.upsert(target.id, change, new Date());
      const event: UserStatusEvent = { type: 'user_status', user_id: target.id };
      if (change.away !== undefined) event.away = change.away;
      if (change.statusText !== undefined) event.status_text = change.statusText;
      if (change.emojiName !== undefined) {
        event.emoji_name = change.emojiName;
        event.emoji_code = change.emojiCode;
        event.reaction_type = change.reactionType;
      }
      // Only to those who may see the user (get_user_ids_who_can_access_user).
      const recipients = await this.directory.activeUserIds(realm.id);
      const about = { id: target.id, isBot: target.isBot, isActive: target.isActive };
      const allowed = await this.userAccess.whoCanAccessEach(realm, [about], recipients);
      this.events.sendOnCommit(realm.id, event, allowed.get(target.id) ?? recipients);
    });
  }
}
