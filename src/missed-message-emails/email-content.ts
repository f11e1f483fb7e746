/**
 * The conversations, blocks and subject of a missed-message email, from the messages still
 * unread (Zulip's build_message_list and missed_message subject). Pure.
 */
import type { MissedConversation } from '../email/templates/missed-message';
import { encodeHashComponent } from '../messaging/message-edit.policy';

/** What the email needs of one message. */
export interface EmailedMessage {
  id: number;
  senderId: number;
  isChannelMessage: boolean;
  streamId: number | null;
  streamName: string | null;
  subject: string;
  content: string;
  renderedContent: string | null;
  dmUserIds: number[] | null;
}

const slug = (id: number, name: string) => `${id}-${encodeHashComponent(name.replace(/ /g, '-'))}`;

export function channelUrl(realmUrl: string, id: number, name: string): string {
  return `${realmUrl}/#narrow/channel/${slug(id, name)}`;
}

export function topicUrl(realmUrl: string, id: number, name: string, topic: string): string {
  return `${channelUrl(realmUrl, id, name)}/topic/${encodeHashComponent(topic)}`;
}

/** The web app's direct-message narrow: the participants other than the reader (or oneself). */
export function directMessageUrl(realmUrl: string, userId: number, participantIds: number[]): string {
  const others = participantIds.filter((id) => id !== userId).sort((a, b) => a - b);
  const ids = others.length > 0 ? others : [userId];
  return `${realmUrl}/#narrow/dm/${ids.join(',')}-${ids.length > 1 ? 'group' : 'dm'}`;
}

/** Links the server's rendering makes relative (`/user_uploads/…`, `/#narrow/…`) become absolute. */
export function absoluteLinks(renderedHtml: string, realmUrl: string): string {
  return renderedHtml.replace(/\b(href|src)="\/(?!\/)/g, `$1="${realmUrl}/`);
}

/** Zulip's huddle_display_name: "A and B", "A, B, and C", "A, B, and 2 others". */
export function namesForGroup(names: string[]): string {
  if (names.length <= 1) return names.join('');
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  if (names.length === 3) return `${names[0]}, ${names[1]}, and ${names[2]}`;
  return `${names.slice(0, 2).join(', ')}, and ${names.length - 2} others`;
}

export interface BuiltEmail {
  subject: string;
  conversations: MissedConversation[];
}

/**
 * Groups `messages` (oldest first) by conversation (a channel topic, ignoring case, or a
 * direct-message conversation), conversations in order of their latest message, and consecutive
 * messages of one sender into one block. The subject is Zulip's for a single conversation
 * ("DMs with A", "Group DMs with A and B", "#channel > topic") and names the organization when
 * the batch spans several.
 */
export function buildMissedMessageEmail(
  userId: number,
  realm: { name: string; url: string },
  messages: readonly EmailedMessage[],
  nameOf: (userId: number) => string,
): BuiltEmail {
  const byKey = new Map<string, { conv: MissedConversation; last: number; senders: Set<number> }>();
  for (const m of messages) {
    const key = m.isChannelMessage ? `c${m.streamId}:${m.subject.toLowerCase()}` : `d${(m.dmUserIds ?? []).join(',')}`;
    let entry = byKey.get(key);
    if (!entry) {
      let conv: MissedConversation;
      if (m.isChannelMessage && m.streamId !== null) {
        const name = m.streamName ?? '';
        conv = {
          header: `#${name} > ${m.subject}`,
          url: topicUrl(realm.url, m.streamId, name, m.subject),
          channel: { name, url: channelUrl(realm.url, m.streamId, name), topic: m.subject },
          senders: [],
        };
      } else {
        const participants = m.dmUserIds ?? [];
        const others = participants.filter((id) => id !== userId);
        conv = {
          header: others.length === 0 ? 'You' : `You and ${others.map(nameOf).join(', ')}`,
          url: directMessageUrl(realm.url, userId, participants),
          senders: [],
        };
      }
      entry = { conv, last: m.id, senders: new Set() };
      byKey.set(key, entry);
    }
    entry.last = Math.max(entry.last, m.id);
    entry.senders.add(m.senderId);
    const item = {
      text: m.content,
      html: m.renderedContent === null ? '' : absoluteLinks(m.renderedContent, realm.url),
    };
    const blocks = entry.conv.senders;
    const senderName = nameOf(m.senderId);
    if (blocks.length > 0 && blocks[blocks.length - 1].name === senderName)
      blocks[blocks.length - 1].messages.push(item);
    else blocks.push({ name: senderName, messages: [item] });
  }
  const entries = [...byKey.values()].sort((a, b) => a.last - b.last);
  let subject = `New messages in ${realm.name}`;
  if (entries.length === 1) {
    const first = messages[0];
    if (first.isChannelMessage) subject = `#${first.streamName ?? ''} > ${first.subject}`;
    else {
      const others = (first.dmUserIds ?? []).filter((id) => id !== userId).map(nameOf);
      subject =
        others.length > 1
          ? `Group DMs with ${namesForGroup(others)}`
          : `DMs with ${[...entries[0].senders].map(nameOf).join(', ')}`;
    }
  }
  return { subject, conversations: entries.map((e) => e.conv) };
}
