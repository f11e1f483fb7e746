import { Limits } from '../common/limits';
import { TopicErrors } from '../channels/channel.errors';
import { MessageErrors } from './message.errors';

/**
 * Content and topic rules of sending (zerver/lib/message.py normalize_body / truncate_topic,
 * zerver/lib/topic.py, zerver/lib/addressee.py). Lengths count Unicode code points, as Python
 * does. Pure functions.
 */

/**
 * PostgreSQL text cannot hold NUL characters: a lookup by such a string can only find nothing,
 * and must not reach SQL (it would fail).
 */
export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/** Python's str.isspace() characters, for strip()/rstrip(). */
const PY_SPACE = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING_SPACE = new RegExp(`^[${PY_SPACE}]+`);
const TRAILING_SPACE = new RegExp(`[${PY_SPACE}]+$`);

export function pyStrip(text: string): string {
  return text.replace(LEADING_SPACE, '').replace(TRAILING_SPACE, '');
}

/** Length in code points (Python's len). */
export function codePointLength(text: string): number {
  // Every code point takes one or two UTF-16 units, so short strings need no counting.
  if (text.length <= 1) return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Zulip's truncate_content: over `max` code points, keep the head and append `suffix`. */
export function truncateContent(text: string, max: number, suffix: string): string {
  if (text.length <= max || codePointLength(text) <= max) return text;
  const keep = max - codePointLength(suffix);
  return Array.from(text).slice(0, keep).join('') + suffix;
}

export const CONTENT_TRUNCATION_SUFFIX = '\n[message truncated]';
export const TOPIC_TRUNCATION_SUFFIX = '...';

/**
 * Zulip's normalize_body: trailing whitespace and leading newlines removed; empty or NUL-bearing
 * content refused; over-long content truncated (DECISIONS #10).
 */
export function normalizeContent(raw: string): string {
  const body = raw.replace(TRAILING_SPACE, '').replace(/^\n+/, '');
  if (body.length === 0) throw MessageErrors.empty();
  if (body.includes('\u0000')) throw MessageErrors.nullBytes();
  return truncateContent(body, Limits.MAX_MESSAGE_LENGTH, CONTENT_TRUNCATION_SUFFIX);
}

export function truncateTopic(topic: string): string {
  return truncateContent(topic, Limits.MAX_TOPIC_LENGTH, TOPIC_TRUNCATION_SUFFIX);
}

/** `(no topic)` and the realm's empty-topic display name mean the empty topic (DECISIONS #9). */
export function mapTopicPlaceholder(topic: string): string {
  return topic === '(no topic)' || topic === Limits.EMPTY_TOPIC_DISPLAY_NAME ? '' : topic;
}

const NON_PRINTABLE = /[\p{Cc}\p{Cs}\p{Cn}]/u;

/** 1-based code point position of the first control, surrogate or unassigned character. */
export function firstNonPrintablePosition(text: string): number | null {
  if (!NON_PRINTABLE.test(text)) return null;
  let pos = 0;
  for (const ch of text) {
    pos++;
    if (NON_PRINTABLE.test(ch)) return pos;
  }
  return null;
}

/**
 * A channel message's topic as the Addressee builds it: stripped, placeholders mapped to "",
 * printable characters only. Truncation happens later, in check_message.
 */
export function normalizeTopicForSend(topic: string): string {
  const name = mapTopicPlaceholder(pyStrip(topic));
  const bad = firstNonPrintablePosition(name);
  if (bad !== null) throw TopicErrors.invalidCharacter(bad);
  return name;
}

/** How a topic is shown to clients that do not support the empty topic name. */
export function topicForClient(topic: string, allowEmptyTopicName: boolean): string {
  return topic === '' && !allowEmptyTopicName ? Limits.EMPTY_TOPIC_DISPLAY_NAME : topic;
}
