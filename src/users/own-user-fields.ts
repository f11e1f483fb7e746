import { Injectable } from '@nestjs/common';

/**
 * Fields of GET /users/me that come from modules above users (which users may not import):
 * each is a slot the owning module fills at start-up. `max_message_id` is the newest message
 * the user received, as /register has it; messaging (owner of user_message) supplies it.
 */
@Injectable()
export class OwnUserFields {
  private maxMessageIdOf: ((userId: number) => Promise<number>) | null = null;

  /** Called once by messaging at start-up. */
  provideMaxMessageId(source: (userId: number) => Promise<number>): void {
    this.maxMessageIdOf = source;
  }

  /** The newest message id in the user's messages, or -1 (none, or no messaging module). */
  maxMessageId(userId: number): Promise<number> {
    return this.maxMessageIdOf ? this.maxMessageIdOf(userId) : Promise.resolve(-1);
  }
}
