import { INACCESSIBLE_USER_AVATAR_PATH, INACCESSIBLE_USER_NAME } from '../users/user-access';
import { EmailVisibility, userAvatarUrl, visibleEmail } from '../users/user-format';
import { flagsToApi } from './flags';
import { topicForClient } from './message-text';

/**
 * Zulip's message dict (zerver/lib/message_cache.py MessageDict + messages_for_ids), built from
 * loaded rows. Pure functions: the service loads messages, users and reactions in bulk and
 * formats each message once per client option set.
 */

/** A user as message formatting and sending need them. */
export interface UserBrief {
  id: number;
  realmId: number;
  fullName: string;
  deliveryEmail: string;
  emailAddressVisibility: number;
  avatarSource: string;
  avatarVersion: number;
  isActive: boolean;
  isBot: boolean;
  botOwnerId: number | null;
  role: number;
  isMirrorDummy: boolean;
  /** The user's realm, when it may differ from the viewer's (system bots). */
  realmStringId?: string;
}

/** A stored message and what identifies its conversation. */
export interface MessageRow {
  id: number;
  realmId: number;
  senderId: number;
  recipientId: number;
  subject: string;
  content: string;
  renderedContent: string | null;
  dateSent: Date;
  sendingClient: string;
  lastEditTime: Date | null;
  editHistory: Array<Record<string, unknown>> | null;
  isChannelMessage: boolean;
  /** For channel messages. */
  streamId: number | null;
  streamName: string | null;
  /** For direct messages: every participant, sorted. */
  dmUserIds: number[] | null;
}

export interface ReactionRow {
  messageId: number;
  userId: number;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
}

/** A stored submessage (Zulip's SubMessage.get_raw_db_rows). */
export interface SubmessageRow {
  id: number;
  messageId: number;
  senderId: number;
  msgType: string;
  content: string;
}

export interface FormatOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
  realmStringId: string;
  /** Host of dummy API emails (`user<id>@<host>`). */
  realmHost: string;
  /** The realm's message_edit_history_visibility_policy (`all` when absent). */
  editHistoryVisibility?: string;
  /** Zulip's topic_links for a topic (the realm's linkifiers and bare URLs); none when absent. */
  topicLinks?: (topic: string) => Array<{ text: string; url: string }>;
  /**
   * Senders the viewer may not see (can_access_all_users_group): shown as "Unknown user", as
   * Zulip's MessageDict.finalize_payload with can_access_sender false.
   */
  inaccessibleSenderIds?: ReadonlySet<number>;
}

/** The API email: the real address when everyone may see it, else `user<id>@<realm host>`. */
export function apiEmailOf(
  user: Pick<UserBrief, 'id' | 'deliveryEmail' | 'emailAddressVisibility'>,
  realmHost: string,
): string {
  return visibleEmail(user, user.emailAddressVisibility, realmHost);
}

/**
 * avatar_url: null when the client computes gravatars itself and can (the sender uses a
 * gravatar and their email is visible to everyone), else the URL.
 */
export function avatarUrlOf(user: UserBrief, clientGravatar: boolean, realmHost: string): string | null {
  if (clientGravatar && user.avatarSource === 'G' && user.emailAddressVisibility === EmailVisibility.EVERYONE) {
    return null;
  }
  return userAvatarUrl(user, user.emailAddressVisibility, realmHost);
}

/** Zulip's Message.is_status_message. */
export function isMeMessage(content: string, rendered: string | null): boolean {
  return content.startsWith('/me ') && rendered !== null && rendered.startsWith('<p>/me ');
}

const RESOLVED_TOPIC_PREFIX = '✔ ';

/** Zulip's topic_resolve_toggled: a topic change that only (un)resolved the topic. */
export function topicResolveToggled(topic: string, prevTopic: string): boolean {
  const prefixLength = RESOLVED_TOPIC_PREFIX.length;
  if (prevTopic.startsWith(RESOLVED_TOPIC_PREFIX) && !topic.startsWith(RESOLVED_TOPIC_PREFIX)) {
    return prevTopic.slice(prefixLength) === topic;
  }
  if (topic.startsWith(RESOLVED_TOPIC_PREFIX) && !prevTopic.startsWith(RESOLVED_TOPIC_PREFIX)) {
    if (Array.from(prevTopic).length <= 60 - prefixLength) return topic.slice(prefixLength) === prevTopic;
    if (topic.endsWith('...')) return prevTopic.startsWith(topic.slice(prefixLength, -3));
  }
  return false;
}

interface EditFields {
  edit_history?: Array<Record<string, unknown>>;
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
}

/** edit_history for the API (newest first), with last_edit_timestamp / last_moved_timestamp. */
export function formatEditHistory(
  history: Array<Record<string, unknown>> | null,
  allowEmptyTopicName: boolean,
  visibility = 'all',
): EditFields {
  if (!history || history.length === 0) return {};
  let lastMoved = 0;
  let lastEdit = 0;
  const items = history.map((entry) => {
    const item: Record<string, unknown> = { ...entry };
    delete item.prev_rendered_content_version;
    for (const key of ['topic', 'prev_topic']) {
      if (typeof item[key] === 'string') item[key] = topicForClient(item[key], allowEmptyTopicName);
    }
    const ts = typeof entry.timestamp === 'number' ? entry.timestamp : 0;
    if ('prev_stream' in entry) lastMoved = Math.max(lastMoved, ts);
    else if (
      typeof entry.prev_topic === 'string' &&
      typeof entry.topic === 'string' &&
      !topicResolveToggled(entry.topic, entry.prev_topic)
    ) {
      lastMoved = Math.max(lastMoved, ts);
    }
    if ('prev_content' in entry) lastEdit = Math.max(lastEdit, ts);
    return item;
  });
  // The timestamps come from the whole history; the entries shown follow the realm's policy.
  const out: EditFields = visibility === 'none' ? {} : { edit_history: visibleEditHistory(visibility, items) };
  if (lastMoved !== 0) out.last_moved_timestamp = lastMoved;
  if (lastEdit !== 0) out.last_edit_timestamp = lastEdit;
  return out;
}

/**
 * Zulip's visible_edit_history_for_message: with the `moves` policy, content edits are left out
 * and an entry that both moved and edited keeps only the move. (`none` shows no history at all.)
 */
export function visibleEditHistory<T extends Record<string, unknown>>(visibility: string, entries: T[]): T[] {
  if (visibility === 'all') return entries;
  const out: T[] = [];
  for (const entry of entries) {
    if ('prev_content' in entry) {
      if (!('prev_topic' in entry)) continue;
      delete entry.prev_content;
      delete entry.prev_rendered_content;
      delete entry.content_html_diff;
    }
    out.push(entry);
  }
  return out;
}

export function reactionDicts(rows: readonly ReactionRow[]): Array<Record<string, unknown>> {
  return rows.map((r) => ({
    emoji_name: r.emojiName,
    emoji_code: r.emojiCode,
    reaction_type: r.reactionType,
    user_id: r.userId,
  }));
}

/** `submessages` of a message dict, in id order (as loaded). */
export function submessageDicts(rows: readonly SubmessageRow[]): Array<Record<string, unknown>> {
  return rows.map((r) => ({
    msg_type: r.msgType,
    content: r.content,
    message_id: r.messageId,
    sender_id: r.senderId,
    id: r.id,
  }));
}

export function displayRecipientOf(
  message: MessageRow,
  users: ReadonlyMap<number, UserBrief>,
  realmHost: string,
): string | Array<Record<string, unknown>> {
  if (message.isChannelMessage) return message.streamName ?? '';
  return (message.dmUserIds ?? [])
    .map((id) => users.get(id))
    .filter((u): u is UserBrief => u !== undefined)
    .sort((a, b) => a.id - b.id)
    .map((u) => ({
      id: u.id,
      email: apiEmailOf(u, realmHost),
      full_name: u.fullName,
      is_mirror_dummy: u.isMirrorDummy,
    }));
}

/**
 * The message dict without `flags` (events carry flags beside the message; fetches add them).
 * `rendered` is the HTML to show when apply_markdown is set.
 */
export function messageDict(
  message: MessageRow,
  rendered: string,
  users: ReadonlyMap<number, UserBrief>,
  reactions: readonly ReactionRow[],
  opts: FormatOptions,
  submessages: readonly SubmessageRow[] = [],
): Record<string, unknown> {
  const sender = users.get(message.senderId);
  const dict: Record<string, unknown> = {
    id: message.id,
    sender_id: message.senderId,
    content: opts.applyMarkdown ? rendered : message.content,
    recipient_id: message.recipientId,
    timestamp: Math.floor(message.dateSent.getTime() / 1000),
    client: message.sendingClient,
    subject: message.isChannelMessage ? topicForClient(message.subject, opts.allowEmptyTopicName) : message.subject,
    topic_links: opts.topicLinks && message.isChannelMessage ? opts.topicLinks(message.subject) : [],
    is_me_message: isMeMessage(message.content, rendered),
    reactions: reactionDicts(reactions),
    submessages: submessageDicts(submessages),
    sender_full_name: sender?.fullName ?? '',
    sender_email: sender ? apiEmailOf(sender, opts.realmHost) : '',
    sender_realm_str: sender?.realmStringId ?? opts.realmStringId,
    display_recipient: displayRecipientOf(message, users, opts.realmHost),
    type: message.isChannelMessage ? 'stream' : 'private',
    avatar_url: sender ? avatarUrlOf(sender, opts.clientGravatar, opts.realmHost) : null,
    content_type: opts.applyMarkdown ? 'text/html' : 'text/x-markdown',
  };
  if (opts.inaccessibleSenderIds?.has(message.senderId)) {
    dict.sender_full_name = INACCESSIBLE_USER_NAME;
    dict.sender_email = `user${message.senderId}@${opts.realmHost}`;
    dict.avatar_url = INACCESSIBLE_USER_AVATAR_PATH;
  }
  if (message.isChannelMessage && message.streamId !== null) dict.stream_id = message.streamId;
  Object.assign(dict, formatEditHistory(message.editHistory, opts.allowEmptyTopicName, opts.editHistoryVisibility));
  return dict;
}

/** The dict of a fetched message: the message dict plus the viewer's flags. */
export function fetchedMessageDict(
  message: MessageRow,
  rendered: string,
  flags: number,
  users: ReadonlyMap<number, UserBrief>,
  reactions: readonly ReactionRow[],
  opts: FormatOptions,
  submessages: readonly SubmessageRow[] = [],
): Record<string, unknown> {
  // Added to the dict itself: a spread copy of a dict this size took several µs per message.
  const dict = messageDict(message, rendered, users, reactions, opts, submessages);
  dict.flags = flagsToApi(flags);
  return dict;
}
