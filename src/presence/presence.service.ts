import { isAccessibleUserId } from '../users/user-access';
import { UserAccessService } from '../users/user-access.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { onCommit } from '../database/transaction';
import type { PresenceEvent } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { DomainEventBus } from '../events/domain-event-bus';
import { UserSettingsChangedEvent } from '../users/users.domain-events';
import type { AuthContext } from '../common/auth/auth.types';
import { UserErrors } from '../users/user.errors';
import { UsersService } from '../users/users.service';
import { PresenceErrors } from './presence.errors';
import type { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { apiEmail } from '../users/user-format';
import type { UserProfile } from '../users/user.entity';
import {
  becameOnline,
  legacyPresence,
  legacyClientPresence,
  modernPresence,
  presenceChange,
  presenceDicts,
  PresenceRow,
  PresenceTimes,
} from './presence-format';
import { PresenceSettings, PresenceStatus } from './presence.constants';
import { PendingPing, PresenceRepository, PresenceUserRow } from './presence.repository';

/** A ping waiting in this process for the next batch, with what its event would need. */
interface Pending extends PendingPing {
  realmId: number;
  realmHost: string;
  /** The realm's can_access_all_users_group when the ping came (who may hear of it). */
  canAccessAllUsersGroup: number;
  deliveryEmail: string;
  emailVisibility: number;
  dateJoined: number;
}

/** Beyond this many remembered users the memory of stored times starts over (it is only a cache). */
const KNOWN_LIMIT = 200_000;

export interface PresenceQuery {
  slim: boolean;
  lastUpdateId: number | null;
  historyLimitDays: number | null;
  /** The caller: a guest restricted by can_access_all_users_group sees only users they may see. */
  viewer?: { id: number; role: number };
}

export interface PresenceResponse {
  presences: Record<string, unknown>;
  server_timestamp: number;
  presence_last_update_id: number;
}

/**
 * Presence (Zulip's zerver/actions/presence.py + zerver/lib/presence.py), built for many users
 * pinging every minute:
 *
 * - A ping is decided in memory. This process remembers the times it last stored for each user
 *   (`known`); a ping that would change nothing (stored times less than 55 s old, Zulip's
 *   PRESENCE_UPDATE_MIN_FREQ_SECONDS) costs no query at all.
 * - Pings that change something wait in `pending` (one entry per user: the newest time, active
 *   if any ping said so) and are written every PRESENCE_FLUSH_MS by ONE statement per realm
 *   (PresenceRepository.writeBatch), never one transaction per ping.
 * - Reads (POST /users/me/presence, GET /realm/presence, /register) come from the database with
 *   this process's pending pings laid over them, so a client sees its own ping at once.
 * - "Came online" events follow the batch that stored them (within PRESENCE_FLUSH_MS).
 *
 * With several instances each keeps its own memory; a stale memory only costs a redundant
 * write (the statement moves times forward only), never a lost one.
 */
@Injectable()
export class PresenceService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Presence');
  private pending = new Map<number, Pending>();
  /**
   * The batch being written: readers still overlay it until its statement has committed, or a
   * request arriving during the write would see neither the waiting ping nor its row.
   */
  private writing = new Map<number, Pending>();
  private readonly known = new Map<number, PresenceTimes>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repository: PresenceRepository,
    private readonly events: EventsService,
    private readonly realms: RealmService,
    private readonly users: UsersService,
    private readonly bus: DomainEventBus,
    private readonly userAccess: UserAccessService,
    private readonly directory: UserDirectoryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // Invisible mode (PATCH /settings, or `away` in POST /users/me/status).
    this.bus.subscribeInTransaction(UserSettingsChangedEvent, async (e) => {
      const change = e.changes.get('presence_enabled');
      if (change) await this.presenceEnabledChanged(e.realmId, e.userId, change.new === true);
    });
    this.timer = setInterval(() => void this.flush(), this.config.presenceFlushMs);
    this.timer.unref();
  }

  /** Writes what is waiting before the database goes away. */
  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  /**
   * A ping (update_user_presence): nothing for users in invisible mode (presence_enabled off),
   * nothing when it would not change the stored times, else queued for the next batch.
   */
  ping(user: UserProfile, realm: Realm, status: PresenceStatus, now = Date.now()): void {
    if (!user.settings.presence_enabled) return;
    const active = status === 'active';
    const waiting = this.pending.get(user.id);
    if (waiting) {
      if (now > waiting.at.getTime()) waiting.at = new Date(now);
      waiting.active ||= active;
      return;
    }
    const stored = this.known.get(user.id);
    if (stored && presenceChange(stored, active, now / 1000) === null) return;
    this.pending.set(user.id, {
      userId: user.id,
      at: new Date(now),
      active,
      realmId: realm.id,
      realmHost: this.realms.realmHost(realm),
      canAccessAllUsersGroup: realm.can_access_all_users_group,
      deliveryEmail: user.deliveryEmail,
      emailVisibility: user.settings.email_address_visibility,
      dateJoined: user.dateJoined.getTime() / 1000,
    });
  }

  /** Pings waiting to be written (metrics, tests). */
  pendingCount(): number {
    return this.pending.size;
  }

  /** The user's ping not yet committed (waiting, or in the batch being written), if any. */
  private waitingPing(userId: number): Pending | undefined {
    return this.pending.get(userId) ?? this.writing.get(userId);
  }

  /** Writes every waiting ping now: one statement per realm. Resolves when written. */
  flush(): Promise<void> {
    this.flushing = this.flushing
      .then(() => this.writePending())
      .catch((err: unknown) => {
        this.logger.error(`presence batch failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      });
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.writing = batch;
    try {
      await this.writeBatches(batch);
    } finally {
      this.writing = new Map();
    }
  }

  private async writeBatches(batch: Map<number, Pending>): Promise<void> {
    const byRealm = new Map<number, Pending[]>();
    for (const p of batch.values()) {
      const list = byRealm.get(p.realmId);
      if (list) list.push(p);
      else byRealm.set(p.realmId, [p]);
    }
    if (this.known.size > KNOWN_LIMIT) this.known.clear();
    for (const [realmId, pings] of byRealm) {
      const written = await this.repository.writeBatch(realmId, pings, PresenceSettings.UPDATE_MIN_FREQ_SECS);
      const online: Array<{ ping: Pending; times: PresenceTimes }> = [];
      for (const w of written) {
        const times = { lastActive: w.lastActive, lastConnected: w.lastConnected };
        this.known.set(w.userId, times);
        const ping = batch.get(w.userId);
        if (!ping || !w.updated) continue;
        if (w.created || becameOnline(w.previousActive, ping.active, ping.at.getTime() / 1000)) {
          online.push({ ping, times });
        }
      }
      if (online.length === 0) continue;
      const canAccessAllUsersGroup = pings[pings.length - 1].canAccessAllUsersGroup;
      await this.announce({ id: realmId, can_access_all_users_group: canAccessAllUsersGroup }, online, false);
    }
  }

  /**
   * send_presence_changed: the new presence to every active user of the realm, unless the realm
   * is larger than USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS (and the update is not forced).
   */
  private async announce(
    realm: Pick<Realm, 'id' | 'can_access_all_users_group'>,
    users: Array<{ ping: Omit<Pending, 'at' | 'active' | 'canAccessAllUsersGroup'>; times: PresenceTimes }>,
    force: boolean,
  ): Promise<void> {
    const realmId = realm.id;
    const limit = PresenceSettings.USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS;
    // A large realm gets no such events: reading one row past the limit is enough to know.
    const recipients = await this.directory.activeUserIds(realmId, force ? undefined : limit + 1);
    if (recipients.length > limit && !force) return;
    // Zulip sends each presence event only to get_user_ids_who_can_access_user: for the whole
    // batch, one query for the peers of the users reported among the guests receiving it.
    const targets = users.map(({ ping }) => ({ id: ping.userId, isBot: false, isActive: true }));
    const allowed = await this.userAccess.whoCanAccessEach(realm, targets, recipients);
    for (const { ping, times } of users) {
      const row = { ...times, dateJoined: ping.dateJoined };
      const email = emailOf(ping.userId, ping.deliveryEmail, ping.emailVisibility, ping.realmHost);
      const legacy: PresenceEvent = {
        type: 'presence',
        user_id: ping.userId,
        email,
        server_timestamp: Date.now() / 1000,
        presence: { website: legacyClientPresence(row) },
      };
      const modern: PresenceEvent = { type: 'presence', presences: { [String(ping.userId)]: modernPresence(row) } };
      const send = () =>
        this.events.deliver(realmId, legacy, allowed.get(ping.userId) ?? recipients, (queue) =>
          queue.options.clientCapabilities.simplified_presence_events === true ? modern : legacy,
        );
      if (force) onCommit(send);
      else send();
    }
  }

  /**
   * The presence_enabled setting changed (do_change_user_setting), inside that change's
   * transaction: turning it off stores a presence old enough to read as offline (and idle);
   * turning it on stores "active now". Either way everyone is told at once.
   */
  async presenceEnabledChanged(realmId: number, userId: number, enabled: boolean, now = Date.now()): Promise<void> {
    const at = enabled ? now : now - (PresenceSettings.OFFLINE_THRESHOLD_SECS + 120) * 1000;
    await this.repository.overwrite(realmId, userId, new Date(at), enabled);
    this.pending.delete(userId);
    const times = { lastActive: enabled ? at / 1000 : null, lastConnected: at / 1000 };
    this.known.set(userId, times);
    const info = await this.directory.presenceIdentity(userId);
    if (!info) return;
    const realm = await this.realms.getRealm(realmId);
    const ping = { userId, realmId, realmHost: this.realms.realmHost(realm), ...info };
    await this.announce(realm, [{ ping, times }], true);
  }

  /**
   * get_presence_response: the realm's presence in the modern (slim, keyed by user id) or legacy
   * (keyed by email) format, rows changed after `lastUpdateId` when given, and the newest
   * last_update_id seen.
   */
  async presenceResponse(realm: Realm, query: PresenceQuery, now = Date.now()): Promise<PresenceResponse> {
    const serverTimestamp = now / 1000;
    if (query.historyLimitDays === 0) {
      return { presences: {}, server_timestamp: serverTimestamp, presence_last_update_id: query.lastUpdateId ?? -1 };
    }
    const days = query.historyLimitDays ?? PresenceSettings.DEFAULT_HISTORY_DAYS;
    const since = query.lastUpdateId === null || query.lastUpdateId <= 0 ? new Date(now - days * 86_400_000) : null;
    const dbRows = await this.repository.realmRows(realm.id, { since, afterUpdateId: query.lastUpdateId });
    let lastUpdateId = query.lastUpdateId ?? -1;
    if (dbRows.length > 0) lastUpdateId = Math.max(...dbRows.map((r) => r.lastUpdateId));
    else if (query.lastUpdateId !== null) lastUpdateId = query.lastUpdateId;
    const host = this.realms.realmHost(realm);
    const rows = new Map<number, PresenceRow>();
    for (const r of dbRows) rows.set(r.userId, this.toRow(r, host));
    for (const p of [...this.writing.values(), ...this.pending.values()]) {
      if (p.realmId !== realm.id) continue;
      rows.set(p.userId, this.withPending(rows.get(p.userId) ?? this.known.get(p.userId), p));
    }
    if (query.viewer && rows.size > 0) {
      // Zulip's get_presence_dict_by_realm with requesting_user_profile.
      const access = await this.userAccess.forViewer(query.viewer, realm, [...rows.keys()]);
      for (const id of [...rows.keys()]) if (!isAccessibleUserId(access, id)) rows.delete(id);
    }
    return {
      presences: presenceDicts([...rows.values()], query.slim),
      server_timestamp: serverTimestamp,
      presence_last_update_id: lastUpdateId,
    };
  }

  /** One user's presence (get_presence_for_user) with this process's waiting ping, or null. */
  async userPresence(user: UserProfile, realm: Realm): Promise<PresenceRow | null> {
    const stored = await this.repository.userRow(user.id);
    const row = stored ? this.toRow(stored, this.realms.realmHost(realm)) : undefined;
    const waiting = this.waitingPing(user.id);
    if (waiting) return this.withPending(row, waiting);
    return row ?? null;
  }

  /**
   * get_presence_backend (GET /users/{user_id_or_email}/presence): an active human user of the
   * realm, by id or email. Legacy format: `aggregated` reads "offline" past the offline
   * threshold, and the values lose `client` and `pushable`.
   */
  async userPresenceForApi(auth: AuthContext, userIdOrEmail: string, slim: boolean): Promise<Record<string, unknown>> {
    const byId = /^\s*[+-]?\d+\s*$/.test(userIdOrEmail);
    const lookup = { allowDeactivated: true, allowBots: true, forAdmin: false };
    const target = byId
      ? await this.users.accessUserById(auth.user, auth.realm, Number(userIdOrEmail), lookup)
      : await this.users.accessUserByEmail(auth.user, auth.realm, userIdOrEmail, lookup);
    if (!target.isActive) throw UserErrors.noSuchUser();
    if (target.isBot) throw PresenceErrors.botPresence();
    const row = await this.userPresence(target, auth.realm);
    if (!row) throw PresenceErrors.noPresenceData(userIdOrEmail);
    if (slim) return modernPresence(row);
    const legacy = legacyPresence(row);
    const status =
      Date.now() / 1000 - legacy.aggregated.timestamp > PresenceSettings.OFFLINE_THRESHOLD_SECS
        ? 'offline'
        : legacy.aggregated.status;
    return {
      aggregated: { status, timestamp: legacy.aggregated.timestamp },
      website: { status: legacy.website.status, timestamp: legacy.website.timestamp },
    };
  }

  /**
   * filter_presence_idle_user_ids: which of these users reported activity within the last 140 s
   * (the others are idle for notifications). Users in invisible mode store no activity.
   */
  async recentlyActive(userIds: readonly number[], now = Date.now()): Promise<Set<number>> {
    const cutoff = now / 1000 - PresenceSettings.IDLE_FOR_NOTIFICATIONS_SECS;
    const active = new Set<number>();
    const unknown: number[] = [];
    for (const id of userIds) {
      const waiting = this.waitingPing(id);
      if (waiting?.active && waiting.at.getTime() / 1000 >= cutoff) active.add(id);
      else unknown.push(id);
    }
    const times = await this.repository.lastActiveTimes(unknown);
    for (const [id, t] of times) if (t !== null && t >= cutoff) active.add(id);
    return active;
  }

  private toRow(r: PresenceUserRow, host: string): PresenceRow {
    return {
      userId: r.userId,
      lastActive: r.lastActive,
      lastConnected: r.lastConnected,
      email: emailOf(r.userId, r.deliveryEmail, r.emailVisibility, host),
      dateJoined: r.dateJoined,
    };
  }

  /** A stored row (or remembered times) with a waiting ping applied. */
  private withPending(base: (PresenceTimes & Partial<PresenceRow>) | undefined, p: Pending): PresenceRow {
    const at = p.at.getTime() / 1000;
    const lastActive = base?.lastActive ?? null;
    const lastConnected = base?.lastConnected ?? null;
    return {
      userId: p.userId,
      email: emailOf(p.userId, p.deliveryEmail, p.emailVisibility, p.realmHost),
      dateJoined: p.dateJoined,
      lastConnected: lastConnected === null ? at : Math.max(lastConnected, at),
      lastActive: p.active ? (lastActive === null ? at : Math.max(lastActive, at)) : lastActive,
    };
  }
}

function emailOf(userId: number, deliveryEmail: string, visibility: number, host: string): string {
  return apiEmail({ id: userId, deliveryEmail, settings: { email_address_visibility: visibility } }, host);
}
