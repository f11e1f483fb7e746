/**
 * Zulip's presence settings (zproject/default_settings.py). Clients learn the first two from
 * /register (`server_presence_ping_interval_seconds`, `server_presence_offline_threshold_seconds`).
 */
export const PresenceSettings = {
  /** How often clients ping. */
  PING_INTERVAL_SECS: 60,
  /** A user not heard from for this long is offline (3 pings + 20 s of slack). */
  OFFLINE_THRESHOLD_SECS: 200,
  /** A ping changes the stored times only when they are at least this much older. */
  UPDATE_MIN_FREQ_SECS: 55,
  /** Legacy events call a user active when last active within this of last connected. */
  LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECS: 70,
  /** Realms with more active users than this get no immediate "came online" events. */
  USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS: 100,
  /** Without history_limit_days, presence older than this is left out. */
  DEFAULT_HISTORY_DAYS: 14,
  /**
   * filter_presence_idle_user_ids (push and email notifications): a user active within this is
   * not idle. Zulip keeps its own 140 s here ("matches presence.js").
   */
  IDLE_FOR_NOTIFICATIONS_SECS: 140,
} as const;

/** Zulip's LEGACY_STATUS_* values. */
export type PresenceStatus = 'active' | 'idle';
