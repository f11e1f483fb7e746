import { PresenceSettings } from './presence.constants';

/**
 * A user's presence as stored: seconds since the epoch (null = never), and the date the user
 * joined, which stands in for a missing time in the API (user_presence_datetime_with_date_joined_default).
 */
export interface PresenceTimes {
  lastActive: number | null;
  lastConnected: number | null;
}

export interface PresenceRow extends PresenceTimes {
  userId: number;
  /** The API email (legacy format keys). */
  email: string;
  dateJoined: number;
}

export type ModernPresence = { active_timestamp: number; idle_timestamp: number };
export type LegacyClientPresence = { client: string; status: 'active' | 'idle'; timestamp: number; pushable: boolean };
export type LegacyPresence = {
  aggregated: { client: string; status: 'active' | 'idle'; timestamp: number };
  website: LegacyClientPresence;
};

/** datetime_to_timestamp of the time, or of date_joined when there is none: whole seconds. */
function withDefault(t: number | null, dateJoined: number): number {
  return Math.floor(t ?? dateJoined);
}

/** get_modern_user_presence_info. */
export function modernPresence(row: PresenceTimes & { dateJoined: number }): ModernPresence {
  return {
    active_timestamp: withDefault(row.lastActive, row.dateJoined),
    idle_timestamp: withDefault(row.lastConnected, row.dateJoined),
  };
}

/**
 * format_legacy_presence_dict: one "website" client, active when last active within 70 s of
 * last connected.
 */
export function legacyClientPresence(row: PresenceTimes & { dateJoined: number }): LegacyClientPresence {
  const active = withDefault(row.lastActive, row.dateJoined);
  const connected = withDefault(row.lastConnected, row.dateJoined);
  if (active + PresenceSettings.LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECS >= connected) {
    return { client: 'website', status: 'active', timestamp: active, pushable: false };
  }
  return { client: 'website', status: 'idle', timestamp: connected, pushable: false };
}

/** get_legacy_user_presence_info: the "website" entry plus `aggregated` (the same, without pushable). */
export function legacyPresence(row: PresenceTimes & { dateJoined: number }): LegacyPresence {
  const website = legacyClientPresence(row);
  return {
    aggregated: { client: website.client, status: website.status, timestamp: website.timestamp },
    website,
  };
}

/** get_presence_dicts_for_rows: keyed by user id (slim) or by email (legacy). */
export function presenceDicts(
  rows: readonly PresenceRow[],
  slim: boolean,
): Record<string, ModernPresence> | Record<string, LegacyPresence> {
  if (slim) {
    const out: Record<string, ModernPresence> = {};
    for (const row of rows) out[String(row.userId)] = modernPresence(row);
    return out;
  }
  const out: Record<string, LegacyPresence> = {};
  for (const row of rows) out[row.email] = legacyPresence(row);
  return out;
}

/**
 * What a ping changes (do_update_user_presence): `null` when nothing (the stored times are less
 * than UPDATE_MIN_FREQ_SECS old), else the new times. `now` and the times are in seconds.
 */
export function presenceChange(stored: PresenceTimes | undefined, active: boolean, now: number): PresenceTimes | null {
  if (!stored) return { lastConnected: now, lastActive: active ? now : null };
  const min = PresenceSettings.UPDATE_MIN_FREQ_SECS;
  let { lastActive, lastConnected } = stored;
  let changed = false;
  if (lastConnected === null || now - lastConnected > min) {
    lastConnected = now;
    changed = true;
  }
  if (active && (lastActive === null || now - lastActive > min)) {
    lastActive = now;
    if (lastConnected === null || now > lastConnected) lastConnected = now;
    changed = true;
  }
  return changed ? { lastActive, lastConnected } : null;
}

/**
 * Did the user just come online (do_update_user_presence's became_online): an active ping after
 * at least OFFLINE_THRESHOLD − PING_INTERVAL − 10 s without activity.
 */
export function becameOnline(previousActive: number | null, active: boolean, now: number): boolean {
  if (!active) return false;
  const gap = PresenceSettings.OFFLINE_THRESHOLD_SECS - PresenceSettings.PING_INTERVAL_SECS - 10;
  return previousActive === null || now - previousActive > gap;
}
