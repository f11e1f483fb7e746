import type { QueueOptions } from './event-queue';
import type { ZulipEvent } from './event-queue-backend';

/** Zulip's channel_operators. */
const CHANNEL_OPERATORS = ['channel', 'stream'];

/**
 * Does a message event match the queue's narrow (zerver/lib/narrow_predicate.py
 * build_narrow_predicate)? Terms the register endpoint accepted: channel/stream, topic,
 * sender and `is` (dm/private, starred, unread, alerted/mentioned, resolved).
 */
export function messageMatchesNarrow(
  narrow: ReadonlyArray<readonly [string, string]>,
  message: Record<string, unknown>,
  flags: readonly string[],
): boolean {
  const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '');
  for (const [operator, operand] of narrow) {
    if (CHANNEL_OPERATORS.includes(operator)) {
      if (message.type !== 'stream' || lower(operand) !== lower(message.display_recipient)) return false;
    } else if (operator === 'topic') {
      const topic = message.topic ?? message.subject;
      if (message.type !== 'stream' || lower(operand) !== lower(topic)) return false;
    } else if (operator === 'sender') {
      if (lower(operand) !== lower(message.sender_email)) return false;
    } else if (operator === 'is') {
      if ((operand === 'dm' || operand === 'private') && message.type !== 'private') return false;
      if (operand === 'starred' && !flags.includes('starred')) return false;
      if (operand === 'unread' && flags.includes('read')) return false;
      if ((operand === 'alerted' || operand === 'mentioned') && !flags.includes('mentioned')) return false;
      if (
        operand === 'resolved' &&
        !(message.type === 'stream' && lower(message.topic ?? message.subject).startsWith('✔ '))
      ) {
        return false;
      }
    }
  }
  return true;
}

/**
 * Zulip's ClientDescriptor.accepts_event (zerver/tornado/event_queue.py), applied to the event as
 * customized for the queue: the registered event types, the narrow for message events, channel
 * typing only with the stream_typing_notifications capability, and the legacy settings events
 * only for clients without user_settings_object.
 */
export function queueAcceptsEvent(options: QueueOptions, event: ZulipEvent): boolean {
  if (event.type === 'heartbeat') return true;
  if (options.eventTypes !== null) {
    if (!options.eventTypes.includes(event.type)) return false;
    if (event.type === 'muted_topics' && options.eventTypes.includes('user_topic')) return false;
  }
  if (event.type === 'message') {
    if (options.narrow.length === 0) return true;
    const message = (event.message ?? {}) as Record<string, unknown>;
    const flags = Array.isArray(event.flags) ? (event.flags as string[]) : [];
    return messageMatchesNarrow(options.narrow, message, flags);
  }
  if (event.type === 'typing' && 'stream_id' in event) {
    return options.clientCapabilities.stream_typing_notifications === true;
  }
  if (
    options.clientCapabilities.user_settings_object === true &&
    (event.type === 'update_display_settings' || event.type === 'update_global_notifications')
  ) {
    return false;
  }
  return true;
}
