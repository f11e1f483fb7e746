import { createHash } from 'node:crypto';
import { Limits } from '../common/limits';
import { truncateTopic } from './message-text';

/**
 * Pure rules of editing and moving messages (zerver/actions/message_edit.py,
 * zerver/lib/topic.py, zerver/lib/message.py).
 */

export const RESOLVED_TOPIC_PREFIX = '✔ ';

/** Zulip's edit_limit_buffer / message_move_limit_buffer. */
export const EDIT_LIMIT_BUFFER_SECONDS = 20;

/** Lowercase hex SHA-256 of the UTF-8 text (zerver/lib/utils.py sha256_hash). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Python's str.lstrip(chars): strips any of the characters, not the prefix. */
function lstripChars(text: string, chars: string): string {
  const set = new Set(Array.from(chars));
  const arr = Array.from(text);
  let i = 0;
  while (i < arr.length && set.has(arr[i])) i++;
  return arr.slice(i).join('');
}

/** Topics that would resolve the empty topic (`✔` alone or `✔ general chat`). */
export function isResolvingGeneralChat(topic: string): boolean {
  return (
    topic === RESOLVED_TOPIC_PREFIX.trim() || topic === `${RESOLVED_TOPIC_PREFIX}${Limits.EMPTY_TOPIC_DISPLAY_NAME}`
  );
}

export interface TopicChange {
  target: string;
  resolved: boolean;
  unresolved: boolean;
}

/** build_message_edit_request's topic part: truncation and the resolve / unresolve toggles. */
export function topicChange(oldTopic: string, requested: string): TopicChange {
  const target = truncateTopic(requested);
  const prefixLen = Array.from(RESOLVED_TOPIC_PREFIX).length;
  const resolved =
    target.startsWith(RESOLVED_TOPIC_PREFIX) &&
    !oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) &&
    Array.from(requested).slice(prefixLen).join('') === oldTopic;
  const unresolved =
    oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) &&
    !target.startsWith(RESOLVED_TOPIC_PREFIX) &&
    lstripChars(oldTopic, RESOLVED_TOPIC_PREFIX) === target;
  return { target, resolved, unresolved };
}

/** Has more than `limitSeconds` (+ buffer) passed since `sent`? A null limit never expires. */
export function pastDeadline(sent: Date, now: Date, limitSeconds: number | null, bufferSeconds: number): boolean {
  if (limitSeconds === null) return false;
  return now.getTime() - sent.getTime() > (limitSeconds + bufferSeconds) * 1000;
}

/**
 * check_time_limit_for_change_all_propagate_mode's deadline: the stricter of the applicable
 * topic and channel move limits (plus the buffer), or null when none applies.
 */
export function moveDeadlineSeconds(
  topicEdited: boolean,
  streamEdited: boolean,
  withinLimit: number | null,
  betweenLimit: number | null,
): number | null {
  const topic = topicEdited && withinLimit !== null ? withinLimit + EDIT_LIMIT_BUFFER_SECONDS : null;
  const stream = streamEdited && betweenLimit !== null ? betweenLimit + EDIT_LIMIT_BUFFER_SECONDS : null;
  if (topic !== null && stream !== null) return Math.min(topic, stream);
  return topic ?? stream;
}

/** Zulip's silent_mention_syntax_for_user. */
export function silentMention(user: { fullName: string; id: number }): string {
  return `@_**${user.fullName}|${user.id}**`;
}

/** Zulip's get_stream_topic_link_syntax (the `#**channel>topic**` form). */
export function topicLinkSyntax(channelName: string, topic: string): string {
  return `#**${channelName}>${topic}**`;
}

export interface MoveNotices {
  oldThread: string | null;
  newThread: string | null;
}

/** The breadcrumb texts of do_update_message (English, as the realm's default language). */
export function moveNoticeTexts(args: {
  notifyOld: boolean;
  notifyNew: boolean;
  streamEdited: boolean;
  topicEdited: boolean;
  resolveToggle: boolean;
  movedAllVisible: boolean;
  noVisiblePreexisting: boolean;
  count: number;
  user: string;
  oldLocation: string;
  newLocation: string;
  messageLink: string;
}): MoveNotices {
  const { count, user } = args;
  let oldThread: string | null = null;
  if (args.notifyOld) {
    if (args.movedAllVisible) oldThread = `This topic was moved to ${args.newLocation} by ${user}.`;
    else if (count === 1) oldThread = `A message was moved from this topic to ${args.newLocation} by ${user}.`;
    else oldThread = `${count} messages were moved from this topic to ${args.newLocation} by ${user}.`;
  }
  let newThread: string | null = null;
  if (args.notifyNew && (args.streamEdited || (args.topicEdited && !args.resolveToggle))) {
    if (args.noVisiblePreexisting && args.movedAllVisible) {
      newThread = `This topic was moved here from ${args.oldLocation} by ${user}.`;
    } else if (count === 1) {
      newThread = `[A message](${args.messageLink}) was moved here from ${args.oldLocation} by ${user}.`;
    } else {
      newThread = `${count} messages were moved here from ${args.oldLocation} by ${user}.`;
    }
  }
  return { oldThread, newThread };
}

/** Zulip's encode_hash_component for narrow URLs. */
export function encodeHashComponent(text: string): string {
  return encodeURIComponent(text).replace(/\./g, '%2E').replace(/%/g, '.');
}

/** stream_message_url: `<realm>/#narrow/channel/<id>-<name>/topic/<topic>/near/<id>`. */
export function streamMessageUrl(realmUrl: string, channelId: number, channelName: string, topic: string, id: number) {
  const slug = `${channelId}-${encodeHashComponent(channelName.replace(/ /g, '-'))}`;
  return `${realmUrl}/#narrow/channel/${slug}/topic/${encodeHashComponent(topic)}/near/${id}`;
}
