import { MessageErrors } from './message.errors';
/**
 * UserMessage flag bits, in Zulip's order (AbstractUserMessage.ALL_FLAGS): bit i is flag i.
 * Pure data and conversions; no database.
 */
export const ALL_FLAGS = [
  'read',
  'starred',
  'collapsed',
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'group_mentioned',
  'force_expand',
  'force_collapse',
  'has_alert_word',
  'historical',
  'is_private',
  'active_mobile_push_notification',
] as const;
export type FlagName = (typeof ALL_FLAGS)[number];

export const Flag: Readonly<Record<FlagName, number>> = Object.freeze(
  Object.fromEntries(ALL_FLAGS.map((name, bit) => [name, 1 << bit])) as Record<FlagName, number>,
);

/**
 * Internal bookkeeping never shown to clients. Zulip hides is_private and
 * active_mobile_push_notification; we also hide group_mentioned, which the API's flag table
 * does not list (group mentions show as `mentioned`).
 */
const NON_API_FLAGS: ReadonlySet<FlagName> = new Set([
  'is_private',
  'active_mobile_push_notification',
  'group_mentioned',
]);

/** Flags a client may not change (Zulip's NON_EDITABLE_FLAGS). */
const NON_EDITABLE_FLAGS: ReadonlySet<FlagName> = new Set([
  'has_alert_word',
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'group_mentioned',
  'historical',
  'force_expand',
  'force_collapse',
]);

/** The flags a message has for a user who can see it but has no UserMessage row. */
export const DEFAULT_HISTORICAL_FLAGS = Flag.historical | Flag.read;

/** Any kind of mention that makes a message show under is:mentioned. */
export const ANY_MENTION_MASK =
  Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned | Flag.group_mentioned;

/**
 * Zulip's validation of POST /messages/flags `flag`, in its order: unknown (or internal) flags
 * first, then flags clients may not edit. Returns the error text, or null for an editable flag.
 */
export function flagEditError(flag: string): string | null {
  const known = (ALL_FLAGS as readonly string[]).includes(flag) && !NON_API_FLAGS.has(flag as FlagName);
  // group_mentioned is a real Zulip flag that clients may not edit: keep Zulip's wording for it.
  if (!known && flag !== 'group_mentioned') return MessageErrors.invalidFlag(flag).message;
  if (NON_EDITABLE_FLAGS.has(flag as FlagName)) return MessageErrors.flagNotEditable(flag).message;
  return null;
}

/** The API list of a flags bitmask (bit order, internal flags dropped, legacy wildcard_mentioned last). */
export function flagsToApi(flags: number): string[] {
  const out: string[] = [];
  for (let bit = 0; bit < ALL_FLAGS.length; bit++) {
    const name = ALL_FLAGS[bit];
    if ((flags & (1 << bit)) !== 0 && !NON_API_FLAGS.has(name)) out.push(name);
  }
  if ((flags & (Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned)) !== 0) out.push('wildcard_mentioned');
  return out;
}
