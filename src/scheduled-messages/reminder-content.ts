import { Limits } from '../common/limits';
import { encodeHashComponent, silentMention, streamMessageUrl } from '../messaging/message-edit.policy';
import { unusedFence } from '../messaging/message-report.service';
import { CONTENT_TRUNCATION_SUFFIX, truncateContent } from '../messaging/message-text';
import { ScheduledMessageErrors } from './scheduled-message.errors';

export interface Person {
  id: number;
  fullName: string;
}

/** What a reminder's text needs to know about the message it points at. */
export interface ReminderTarget {
  id: number;
  content: string;
  sender: Person;
  /** Channel messages. */
  channel: { id: number; name: string; topic: string } | null;
  /** Direct messages: every participant (sorted by id). */
  participants: Person[] | null;
}

/** Zulip's normalize_note_text: trailing whitespace and leading newlines go; then the length. */
export function normalizeNote(note: string): string {
  const body = note.replace(/\s+$/u, '').replace(/^\n+/, '');
  if ([...body].length > Limits.MAX_REMINDER_NOTE_LENGTH) {
    throw ScheduledMessageErrors.noteTooLong(Limits.MAX_REMINDER_NOTE_LENGTH);
  }
  return body;
}

/** "@_**A|1**", "@_**A|1** and @_**B|2**", "@_**A|1**, @_**B|2**, and @_**C|3**". */
export function mentionList(people: Person[]): string {
  const mentions = people.map(silentMention);
  if (mentions.length <= 1) return mentions.join('');
  if (mentions.length === 2) return `${mentions[0]} and ${mentions[1]}`;
  return `${mentions.slice(0, -1).join(', ')}, and ${mentions[mentions.length - 1]}`;
}

function directMessageUrl(realmUrl: string, participantIds: number[], messageId: number): string {
  const ids = [...participantIds].sort((a, b) => a - b);
  return `${realmUrl}/#narrow/dm/${ids.join(',')}-${ids.length > 2 ? 'group' : 'dm'}/near/${messageId}`;
}

/**
 * The text of a reminder (Zulip's get_reminder_formatted_content): the request (with its note),
 * who said it where, and the message quoted (polls and to-do lists named instead).
 */
export function reminderContent(realmUrl: string, target: ReminderTarget, note: string | null): string {
  const normalized = note ? normalizeNote(note) : '';
  const who = silentMention(target.sender);
  let content: string;
  let where: string;
  let url: string;
  if (target.channel) {
    const { id, name, topic } = target.channel;
    content = normalized
      ? `You requested a reminder for the following message. Note:\n > ${normalized}`
      : 'You requested a reminder for the following message.';
    url = streamMessageUrl(realmUrl, id, name, topic, target.id);
    where = `in #**${name}>${topic}@${target.id}**`;
  } else {
    content = normalized
      ? `You requested a reminder for the following direct message. Note:\n > ${normalized}`
      : 'You requested a reminder for the following direct message.';
    const participants = target.participants ?? [target.sender];
    const others = participants.filter((p) => p.id !== target.sender.id);
    url = directMessageUrl(
      realmUrl,
      participants.map((p) => p.id),
      target.id,
    );
    where = `to ${mentionList(others.length > 0 ? others : [target.sender])}`;
  }
  content += '\n\n';
  const widget = target.content.startsWith('/poll') ? 'poll' : target.content.startsWith('/todo') ? 'todo list' : null;
  if (widget) return `${content}${who} [sent](${url}) a ${widget} ${where}.`;
  content += `${who} [said](${url}) ${where}:\n`;
  const fence = unusedFence(content);
  const frame = `${fence}quote\n\n${fence}`;
  const max = Limits.MAX_MESSAGE_LENGTH - [...content].length - [...frame].length;
  const quoted = truncateContent(target.content, max, CONTENT_TRUNCATION_SUFFIX);
  return `${content}${fence}quote\n${quoted}\n${fence}`;
}

export { encodeHashComponent };
