import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { renderMarkdown } from './markdown';
import { MessageAccessService } from './message-access.service';
import { visibleEditHistory } from './message-format';
import { topicForClient } from './message-text';
import { MessageErrors } from './message.errors';

/** One entry of GET /messages/{message_id}/history (Zulip's FormattedEditHistoryEvent). */
export interface MessageHistoryEntry extends Record<string, unknown> {
  content: string;
  rendered_content: string;
  timestamp: number;
  topic: string;
  user_id: number | null;
  prev_topic?: string;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_stream?: number;
  stream?: number;
}

/**
 * GET /messages/{message_id}/history (Zulip's get_message_edit_history): the message's stored
 * edit history (newest first, as edits record it) replayed into full snapshots — the content and
 * topic after each edit plus what changed — oldest first, the original message first, filtered
 * by the realm's message_edit_history_visibility_policy.
 */
@Injectable()
export class MessageHistoryService {
  constructor(private readonly access: MessageAccessService) {}

  async history(
    auth: AuthContext,
    messageId: number,
    allowEmptyTopicName: boolean,
  ): Promise<{ message_history: MessageHistoryEntry[] }> {
    const policy = auth.realm.messageEditHistoryVisibilityPolicy;
    if (policy === 'none') throw MessageErrors.editHistoryDisabled();
    const { message } = await this.access.accessMessage(auth, messageId, { isModifying: false });
    const topicOf = (topic: string) => (message.isChannelMessage ? topicForClient(topic, allowEmptyTopicName) : '');
    const html = (rendered: unknown, content: string) =>
      typeof rendered === 'string' ? rendered : renderMarkdown(content).html;

    // Zulip's fill_edit_history_entries: walk back from the current state.
    let content = message.content;
    let rendered = html(message.renderedContent, content);
    let topic = topicOf(message.subject);
    const entries: MessageHistoryEntry[] = [];
    for (const raw of message.editHistory ?? []) {
      const entry: MessageHistoryEntry = {
        content,
        rendered_content: rendered,
        timestamp: Number(raw.timestamp),
        topic,
        user_id: typeof raw.user_id === 'number' ? raw.user_id : null,
      };
      if (typeof raw.prev_topic === 'string') {
        topic = topicOf(raw.prev_topic);
        entry.prev_topic = topic;
      }
      if (typeof raw.prev_content === 'string') {
        content = raw.prev_content;
        rendered = html(raw.prev_rendered_content, content);
        entry.prev_content = content;
        entry.prev_rendered_content = rendered;
      }
      if (typeof raw.prev_stream === 'number') {
        entry.prev_stream = raw.prev_stream;
        entry.stream = Number(raw.stream);
      }
      entries.push(entry);
    }
    entries.push({
      content,
      rendered_content: rendered,
      timestamp: Math.floor(message.dateSent.getTime() / 1000),
      topic,
      user_id: message.senderId,
    });
    return { message_history: visibleEditHistory(policy, entries).reverse() };
  }
}
