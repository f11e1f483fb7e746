import { Injectable, Logger } from '@nestjs/common';
import type { Realm } from '../realm/realm.entity';
import type { MessageRow, UserBrief } from './message-format';

/** A message that has just been stored and committed, with each recipient's flags. */
export interface MessageSentInfo {
  realm: Realm;
  message: MessageRow;
  /** The sender and, for direct messages, every participant. */
  users: ReadonlyMap<number, UserBrief>;
  recipientIds: readonly number[];
  /** UserMessage flag bits, in the order of recipientIds. */
  flags: readonly number[];
  /** The message links uploaded files (attachment rows were linked to it). */
  hasAttachment: boolean;
}

export type MessageSentHandler = (info: MessageSentInfo) => void | Promise<void>;

/**
 * What messaging tells the modules above it (push notifications) after a send commits. Those
 * modules sit above messaging in the module DAG, so they register handlers here at start-up
 * instead of being called by name. Handlers run after commit; their failures are logged, never
 * surfaced to the sender.
 */
@Injectable()
export class MessageLifecycleHooks {
  private readonly handlers: MessageSentHandler[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly logger = new Logger('MessageHooks');

  onMessageSent(handler: MessageSentHandler): void {
    this.handlers.push(handler);
  }

  messageSent(info: MessageSentInfo): void {
    for (const handler of this.handlers) {
      const run: Promise<void> = Promise.resolve()
        .then(() => handler(info))
        .catch((err: unknown) =>
          this.logger.error(
            `message ${info.message.id}: handler failed: ${err instanceof Error ? err.message : String(err)}`,
          ),
        )
        .finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  /** Resolves when every handler started so far has finished (tests, shutdown). */
  async whenIdle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
