/** Limits returned by POST /register and enforced by the endpoints (DECISIONS.md #11). */
export const Limits = {
  MAX_MESSAGE_LENGTH: 10000,
  /** Terms in one narrow (Zulip has no cap; each term may cost a lookup). */
  MAX_NARROW_TERMS: 50,
  MAX_TOPIC_LENGTH: 60,
  MAX_STREAM_NAME_LENGTH: 60,
  MAX_STREAM_DESCRIPTION_LENGTH: 1024,
  MAX_CHANNEL_FOLDER_NAME_LENGTH: 60,
  MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH: 1024,
  MAX_USER_GROUP_NAME_LENGTH: 100,
  MAX_REPORT_DESCRIPTION_LENGTH: 1000,
  MAX_PROFILE_FIELD_NAME_LENGTH: 40,
  MAX_PROFILE_FIELD_HINT_LENGTH: 80,
  MAX_REMINDER_NOTE_LENGTH: 1000,
  MAX_BULK_NEW_SUBSCRIPTION_MESSAGES: 100,
  MAX_FULL_NAME_LENGTH: 100,
  /** POST /submessage: characters of one submessage's JSON content (Zulip has no limit). */
  MAX_SUBMESSAGE_LENGTH: 10000,
  /** Submessages one message may collect (votes, options, tasks…; Zulip has no limit). */
  MAX_SUBMESSAGES_PER_MESSAGE: 10000,
  /** settings.USER_STATE_SIZE_LIMIT: characters (keys and values) one bot may store. */
  BOT_STORAGE_SIZE_LIMIT: 10_000_000,
  EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS: 90,
  /** Realm.WILDCARD_MENTION_THRESHOLD */
  WILDCARD_MENTION_THRESHOLD: 15,
  MAX_MESSAGES_PER_FETCH: 5000,
  /** POST /messages/flags/narrow: num_before + num_after are clamped to this. */
  MAX_MESSAGES_PER_UPDATE: 5000,
  /** Message.EMPTY_TOPIC_FALLBACK_NAME */
  EMPTY_TOPIC_DISPLAY_NAME: 'general chat',
} as const;
