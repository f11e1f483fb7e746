import { createHash } from 'node:crypto';
import secureJsonParse from 'secure-json-parse';
import { Limits } from '../common/limits';
import { VisibilityPolicy } from '../channels/user-topic.entity';
import { TopicsPolicy } from '../channels/channel-settings';
import { Flag } from './flags';
import { codePointLength, firstNonPrintablePosition, pyStrip } from './message-text';
import { ChannelErrors } from '../channels/channel.errors';
import { MessageErrors } from './message.errors';

/**
 * Pure rules of sending a message (zerver/actions/message_send.py, zerver/lib/message.py,
 * zerver/lib/addressee.py), for the service to apply to loaded data.
 */

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return {
      ok: true,
      value: secureJsonParse.parse(raw, undefined, { protoAction: 'remove', constructorAction: 'remove' }),
    };
  } catch {
    return { ok: false };
  }
}

/**
 * `to` of a channel message (Zulip's extract_stream_indicator): JSON when it parses (an integer
 * is a channel id, a string a name, a one-element list either), otherwise the raw channel name.
 */
export function extractStreamIndicator(raw: string): string | number {
  const parsed = parseJson(raw);
  if (!parsed.ok) return raw;
  let data = parsed.value;
  if (Array.isArray(data)) {
    if (data.length !== 1) throw MessageErrors.expectedOneChannel();
    data = data[0];
  }
  if (typeof data === 'string') return data;
  if (typeof data === 'number' && Number.isInteger(data)) return data;
  throw MessageErrors.invalidChannelDataType();
}

/**
 * `to` of a direct message (Zulip's extract_private_recipients): a JSON list or a
 * comma-separated string; all emails (trimmed, deduplicated, empty ones dropped) or all user ids
 * (deduplicated).
 */
export function extractPrivateRecipients(raw: string): string[] | number[] {
  const parsed = parseJson(raw);
  let data: unknown = parsed.ok ? parsed.value : raw;
  if (typeof data === 'string') data = data.split(',');
  if (!Array.isArray(data)) throw MessageErrors.invalidRecipientsDataType();
  if (data.length === 0) return [];
  const mixed = () => MessageErrors.mixedRecipients();
  if (typeof data[0] === 'string') {
    const emails: string[] = [];
    for (const item of data) {
      if (typeof item !== 'string') throw mixed();
      const email = pyStrip(item);
      if (email !== '' && !emails.includes(email)) emails.push(email);
    }
    return emails;
  }
  if (typeof data[0] !== 'number' || !Number.isInteger(data[0])) throw MessageErrors.invalidRecipientsDataType();
  const ids: number[] = [];
  for (const item of data) {
    if (typeof item !== 'number' || !Number.isInteger(item)) throw mixed();
    if (!ids.includes(item)) ids.push(item);
  }
  return ids;
}

/** Zulip's check_stream_name, applied to the (stripped) name of the channel a message goes to. */
export function checkChannelName(name: string): void {
  if (pyStrip(name) === '') throw ChannelErrors.nameEmpty();
  if (codePointLength(name) > Limits.MAX_STREAM_NAME_LENGTH) {
    throw ChannelErrors.nameTooLong(Limits.MAX_STREAM_NAME_LENGTH);
  }
  const bad = firstNonPrintablePosition(name);
  if (bad !== null) throw ChannelErrors.invalidNameCharacter(bad);
}

/** Django's escape(): what Zulip puts in "Channel '…' does not exist". */
export function htmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;');
}

/** The effective topics policy of a channel: its own, or the realm's when it inherits. */
export function effectiveTopicsPolicy(channelPolicy: number, realmPolicy: string): number {
  if (channelPolicy !== TopicsPolicy.inherit) return channelPolicy;
  return realmPolicy === 'disable_empty_topic' ? TopicsPolicy.disable_empty_topic : TopicsPolicy.allow_empty_topic;
}

/** Zulip's topics_policy checks of check_message; returns the error text or null. */
export function topicsPolicyError(policy: number, topic: string): string | null {
  const display = Limits.EMPTY_TOPIC_DISPLAY_NAME;
  if (policy === TopicsPolicy.disable_empty_topic && topic === '') {
    return MessageErrors.emptyTopicNotAllowed(display).message;
  }
  if (policy === TopicsPolicy.empty_topic_only && topic !== '') {
    return MessageErrors.onlyEmptyTopicAllowed(display).message;
  }
  return null;
}

/** UserProfile.AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_* */
export const AutoVisibility = { ON_PARTICIPATION: 1, ON_SEND: 2, ON_INITIATION: 3, NEVER: 4 } as const;

export interface AutoVisibilitySettings {
  automatically_follow_topics_policy: number;
  automatically_unmute_topics_in_muted_streams_policy: number;
}

/**
 * Zulip's visibility_policy_for_send_message: the visibility policy sending a message gives the
 * sender for the topic, or null when it would not raise the current one. `startsTopic` says
 * whether no earlier message of the topic is accessible to the sender.
 */
export function visibilityPolicyAfterSend(
  settings: AutoVisibilitySettings,
  isChannelMuted: boolean,
  current: number,
  startsTopic: boolean,
): number | null {
  if (current === VisibilityPolicy.FOLLOWED) return null;
  const follow = settings.automatically_follow_topics_policy;
  const unmute = settings.automatically_unmute_topics_in_muted_streams_policy;
  const participation =
    follow === AutoVisibility.ON_PARTICIPATION
      ? VisibilityPolicy.FOLLOWED
      : isChannelMuted && unmute === AutoVisibility.ON_PARTICIPATION
        ? VisibilityPolicy.UNMUTED
        : null;
  const send =
    follow === AutoVisibility.ON_SEND
      ? VisibilityPolicy.FOLLOWED
      : isChannelMuted && unmute === AutoVisibility.ON_SEND
        ? VisibilityPolicy.UNMUTED
        : null;
  if (participation === VisibilityPolicy.FOLLOWED || send === VisibilityPolicy.FOLLOWED)
    return VisibilityPolicy.FOLLOWED;
  let policy: number | null =
    participation === VisibilityPolicy.UNMUTED || send === VisibilityPolicy.UNMUTED ? VisibilityPolicy.UNMUTED : null;
  if (current !== VisibilityPolicy.INHERIT) {
    return policy !== null && policy === current ? null : policy;
  }
  if (follow === AutoVisibility.ON_INITIATION && startsTopic) return VisibilityPolicy.FOLLOWED;
  if (isChannelMuted && unmute === AutoVisibility.ON_INITIATION && startsTopic) policy = VisibilityPolicy.UNMUTED;
  return policy;
}

/** Whether the automatic policies can change anything for this sender at all. */
export function autoVisibilityEnabled(settings: AutoVisibilitySettings, isBot: boolean): boolean {
  if (isBot) return false;
  return !(
    settings.automatically_follow_topics_policy === AutoVisibility.NEVER &&
    settings.automatically_unmute_topics_in_muted_streams_policy === AutoVisibility.NEVER
  );
}

/**
 * Wildcard mentions are free up to Realm.WILDCARD_MENTION_THRESHOLD subscribers (channel
 * wildcards) or topic participants (topic wildcards); above it the sender needs
 * can_mention_many_users_group.
 */
export function wildcardNeedsPermission(audience: number): boolean {
  return audience > Limits.WILDCARD_MENTION_THRESHOLD;
}

export interface FlagInputs {
  senderId: number;
  readBySender: boolean;
  isDirectMessage: boolean;
  mentionedUserIds: ReadonlySet<number>;
  groupMentionedUserIds: ReadonlySet<number>;
  streamWildcard: boolean;
  topicWildcard: boolean;
  topicParticipantIds: ReadonlySet<number>;
  /** Recipients who muted the sender: the message arrives read for them (mark_as_read_user_ids). */
  mutedByIds?: ReadonlySet<number>;
  /** Users whose alert words the message contains (the sender's own included, as Zulip). */
  alertWordUserIds: ReadonlySet<number>;
}

/** The UserMessage flags of one recipient (Zulip's create_user_messages). */
export function userMessageFlags(userId: number, f: FlagInputs): number {
  let flags = 0;
  if (f.streamWildcard) flags |= Flag.stream_wildcard_mentioned;
  if (f.isDirectMessage) flags |= Flag.is_private;
  if (userId === f.senderId && f.readBySender) flags |= Flag.read;
  if (f.mutedByIds?.has(userId)) flags |= Flag.read;
  if (f.mentionedUserIds.has(userId) || f.groupMentionedUserIds.has(userId)) flags |= Flag.mentioned;
  if (f.groupMentionedUserIds.has(userId)) flags |= Flag.group_mentioned;
  if (f.topicWildcard && f.topicParticipantIds.has(userId)) flags |= Flag.topic_wildcard_mentioned;
  if (f.alertWordUserIds.has(userId)) flags |= Flag.has_alert_word;
  return flags;
}

/** Zulip's DirectMessageGroup hash: SHA-1 of the sorted, distinct participant ids. */
export function directMessageGroupHash(userIds: readonly number[]): string {
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  return createHash('sha1').update(ids.join(',')).digest('hex');
}
