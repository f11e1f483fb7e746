import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import { usersView } from '../users/users.sql';

/** A ping waiting to be written: the newest time heard, and whether any ping said "active". */
export interface PendingPing {
  userId: number;
  at: Date;
  active: boolean;
}

/** What one batch did to one user's row (times in seconds since the epoch). */
export interface WrittenPresence {
  userId: number;
  lastActive: number | null;
  lastConnected: number | null;
  /** last_active_time before this batch (for "came online"). */
  previousActive: number | null;
  created: boolean;
  updated: boolean;
}

/** A presence row with what the API needs of its user. */
export interface PresenceUserRow {
  userId: number;
  lastActive: number | null;
  lastConnected: number | null;
  lastUpdateId: number;
  deliveryEmail: string;
  emailVisibility: number;
  dateJoined: number;
}

const seconds = (d: Date | null): number | null => (d === null ? null : d.getTime() / 1000);

/**
 * SQL of the presence tables (user_presence, presence_sequence). Joins users through
 * `usersView` (users/users.sql.ts), the owner's exported fragment.
 */
@Injectable()
export class PresenceRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /**
   * Writes a batch of pings of one realm in ONE statement (no transaction around it): takes the
   * realm's next last_update_id (locking its sequence row until the statement commits, so ids
   * become visible in order), inserts missing rows, and moves stored times forward only where a
   * time is more than `minFreqSecs` older (Zulip's PRESENCE_UPDATE_MIN_FREQ_SECONDS). Returns,
   * for every user of the batch, the times now stored and whether the row was created/updated.
   * Always on its own connection: never inside a request's transaction.
   */
  async writeBatch(realmId: number, pings: readonly PendingPing[], minFreqSecs: number): Promise<WrittenPresence[]> {
    const rows = await this.dataSource.query<
      Array<{
        user_id: number;
        last_active_time: Date | null;
        last_connected_time: Date | null;
        previous_active: Date | null;
        created: boolean;
        updated: boolean;
      }>
    >(
      `WITH input AS (
         SELECT * FROM unnest($2::int[], $3::timestamptz[], $4::boolean[]) AS i(user_id, at, active)
       ),
       previous AS (
         SELECT p.user_profile_id, p.last_active_time, p.last_connected_time
         FROM user_presence p JOIN input i ON i.user_id = p.user_profile_id
       ),
       seq AS (
         INSERT INTO presence_sequence AS s (realm_id, last_update_id) VALUES ($1, 1)
         ON CONFLICT (realm_id) DO UPDATE SET last_update_id = s.last_update_id + 1
         RETURNING last_update_id
       ),
       written AS (
         INSERT INTO user_presence AS p (user_profile_id, realm_id, last_connected_time, last_active_time, last_update_id)
         SELECT i.user_id, $1, i.at, CASE WHEN i.active THEN i.at END, (SELECT last_update_id FROM seq)
         FROM input i JOIN ${usersView} u ON u.id = i.user_id AND u.realm_id = $1
         ON CONFLICT (user_profile_id) DO UPDATE SET
           last_connected_time = GREATEST(p.last_connected_time, EXCLUDED.last_connected_time),
           last_active_time = GREATEST(p.last_active_time, EXCLUDED.last_active_time),
           last_update_id = EXCLUDED.last_update_id
         WHERE p.last_connected_time IS NULL
            OR EXCLUDED.last_connected_time - p.last_connected_time > make_interval(secs => $5)
            OR (EXCLUDED.last_active_time IS NOT NULL AND (p.last_active_time IS NULL
                OR EXCLUDED.last_active_time - p.last_active_time > make_interval(secs => $5)))
         RETURNING p.user_profile_id, p.last_active_time, p.last_connected_time
       )
       SELECT i.user_id,
              COALESCE(w.last_active_time, pr.last_active_time) AS last_active_time,
              COALESCE(w.last_connected_time, pr.last_connected_time) AS last_connected_time,
              pr.last_active_time AS previous_active,
              (pr.user_profile_id IS NULL AND w.user_profile_id IS NOT NULL) AS created,
              (w.user_profile_id IS NOT NULL) AS updated
       FROM input i
       LEFT JOIN written w ON w.user_profile_id = i.user_id
       LEFT JOIN previous pr ON pr.user_profile_id = i.user_id`,
      [
        realmId,
        pings.map((p) => p.userId),
        pings.map((p) => p.at.toISOString()),
        pings.map((p) => p.active),
        minFreqSecs,
      ],
    );
    return rows.map((r) => ({
      userId: r.user_id,
      lastActive: seconds(r.last_active_time),
      lastConnected: seconds(r.last_connected_time),
      previousActive: seconds(r.previous_active),
      created: r.created,
      updated: r.updated,
    }));
  }

  /**
   * Sets a user's times outright with a new last_update_id (turning invisible mode on or off),
   * in the current transaction.
   */
  async overwrite(realmId: number, userId: number, at: Date, active: boolean): Promise<void> {
    await this.em.query(
      `WITH seq AS (
         INSERT INTO presence_sequence AS s (realm_id, last_update_id) VALUES ($1, 1)
         ON CONFLICT (realm_id) DO UPDATE SET last_update_id = s.last_update_id + 1
         RETURNING last_update_id
       )
       INSERT INTO user_presence AS p (user_profile_id, realm_id, last_connected_time, last_active_time, last_update_id)
       VALUES ($2, $1, $3, CASE WHEN $4::boolean THEN $3::timestamptz END, (SELECT last_update_id FROM seq))
       ON CONFLICT (user_profile_id) DO UPDATE SET
         last_connected_time = EXCLUDED.last_connected_time,
         last_active_time = EXCLUDED.last_active_time,
         last_update_id = EXCLUDED.last_update_id`,
      [realmId, userId, at.toISOString(), active],
    );
  }

  /**
   * get_presence_dict_by_realm: the rows of active human users, connected since `since` (unless
   * the client already has data) and changed after `afterUpdateId` (when given).
   */
  async realmRows(
    realmId: number,
    opts: { since: Date | null; afterUpdateId: number | null },
  ): Promise<PresenceUserRow[]> {
    const params: unknown[] = [realmId];
    let where = '';
    if (opts.since) {
      params.push(opts.since.toISOString());
      where += ` AND p.last_connected_time >= $${params.length}`;
    }
    if (opts.afterUpdateId !== null) {
      params.push(String(opts.afterUpdateId));
      where += ` AND p.last_update_id > $${params.length}`;
    }
    const rows = await this.em.query<RawUserRow[]>(
      `SELECT ${USER_ROW_COLUMNS}
       FROM user_presence p JOIN ${usersView} u ON u.id = p.user_profile_id
       WHERE p.realm_id = $1 AND u.is_active AND NOT u.is_bot${where}`,
      params,
    );
    return rows.map(toUserRow);
  }

  /** One user's row (get_presence_for_user), or null. */
  async userRow(userId: number): Promise<PresenceUserRow | null> {
    const rows = await this.em.query<RawUserRow[]>(
      `SELECT ${USER_ROW_COLUMNS}
       FROM user_presence p JOIN ${usersView} u ON u.id = p.user_profile_id
       WHERE p.user_profile_id = $1`,
      [userId],
    );
    return rows.length > 0 ? toUserRow(rows[0]) : null;
  }

  /** The given users' last active times (seconds), for those who have a row. */
  async lastActiveTimes(userIds: readonly number[]): Promise<Map<number, number | null>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.em.query<Array<{ user_profile_id: number; last_active_time: Date | null }>>(
      `SELECT user_profile_id, last_active_time FROM user_presence WHERE user_profile_id = ANY($1::int[])`,
      [userIds],
    );
    return new Map(rows.map((r) => [r.user_profile_id, seconds(r.last_active_time)]));
  }
}

type RawUserRow = {
  user_profile_id: number;
  last_active_time: Date | null;
  last_connected_time: Date | null;
  last_update_id: string;
  delivery_email: string;
  email_address_visibility: number;
  date_joined: Date;
};

const USER_ROW_COLUMNS = `p.user_profile_id, p.last_active_time, p.last_connected_time, p.last_update_id,
  u.delivery_email, u.email_address_visibility, u.date_joined`;

function toUserRow(r: RawUserRow): PresenceUserRow {
  return {
    userId: r.user_profile_id,
    lastActive: seconds(r.last_active_time),
    lastConnected: seconds(r.last_connected_time),
    lastUpdateId: Number(r.last_update_id),
    deliveryEmail: r.delivery_email,
    emailVisibility: r.email_address_visibility,
    dateJoined: r.date_joined.getTime() / 1000,
  };
}
