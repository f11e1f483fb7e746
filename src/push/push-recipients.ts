/**
 * Who gets a push notification for a message just sent, and why: the send path's data in, the
 * recipients for PushNotificationsService.notifyMessage out. Pure.
 */
import { MessageContext, pushTrigger, RecipientContext } from './notifiability';
import type { PushRecipient } from './push-payloads';

/** What the send path knows about one recipient of the message. */
export interface PushCandidate extends Omit<RecipientContext, 'flags'> {
  /** The recipient's flags on this message, as API names: mentioned, stream_wildcard_mentioned, read, … */
  flags: Iterable<string>;
  /** The user has no active client (EventsService.hasActiveClient is false). */
  idle: boolean;
  /** A guest who may not see the sender (a channel message from an inaccessible user). */
  canAccessSender?: boolean;
}

/** A user group the message mentions, with its members (recursive membership already resolved). */
export interface MentionedGroup {
  id: number;
  name: string;
  memberIds: Iterable<number>;
}

/**
 * Zulip's get_user_group_mentions_data: for each user mentioned only through groups, the
 * smallest mentioned group they belong to (a personal mention wins: no group for them).
 */
export function mentionedGroupsByUser(
  personallyMentioned: Iterable<number>,
  groups: Iterable<MentionedGroup>,
): Map<number, { id: number; name: string }> {
  const personal = new Set(personallyMentioned);
  const best = new Map<number, { id: number; name: string; size: number }>();
  for (const group of groups) {
    const members = [...new Set(group.memberIds)];
    for (const userId of members) {
      if (personal.has(userId)) continue;
      const previous = best.get(userId);
      if (!previous || previous.size > members.length) {
        best.set(userId, { id: group.id, name: group.name, size: members.length });
      }
    }
  }
  return new Map([...best].map(([userId, g]) => [userId, { id: g.id, name: g.name }]));
}

/**
 * The users to notify: each candidate's push trigger (notifiability.pushTrigger), skipping those
 * who already read the message (the sender's own copy, say). `mentionedGroups` comes from
 * mentionedGroupsByUser.
 */
export function computePushRecipients(
  message: MessageContext,
  candidates: Iterable<PushCandidate>,
  mentionedGroups: ReadonlyMap<number, { id: number; name: string }> = new Map(),
): PushRecipient[] {
  const out: PushRecipient[] = [];
  const seen = new Set<number>();
  for (const candidate of candidates) {
    if (seen.has(candidate.userId)) continue;
    seen.add(candidate.userId);
    const flags = new Set(candidate.flags);
    if (flags.has('read')) continue;
    const trigger = pushTrigger({ ...candidate, flags }, message, candidate.idle);
    if (trigger === null) continue;
    const recipient: PushRecipient = { userId: candidate.userId, trigger };
    const group = mentionedGroups.get(candidate.userId);
    if (group) recipient.mentionedUserGroup = group;
    if (candidate.canAccessSender === false) recipient.canAccessSender = false;
    out.push(recipient);
  }
  return out;
}
