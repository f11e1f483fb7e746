import { Injectable } from '@nestjs/common';

/**
 * What other modules do when a user's lifecycle changes. The users module sits below channels in
 * the module DAG, so it cannot send channel events itself; it calls these hooks inside the
 * transaction of the change, and the channels module registers its handler at start-up.
 */
export interface UserLifecycleHandler {
  /** do_reactivate_user: e.g. `peer_add` for the channels the user is still subscribed to. */
  onUserReactivated(realmId: number, userId: number): Promise<void>;
}

@Injectable()
export class UserLifecycleHooks {
  private readonly handlers: UserLifecycleHandler[] = [];

  register(handler: UserLifecycleHandler): void {
    this.handlers.push(handler);
  }

  async userReactivated(realmId: number, userId: number): Promise<void> {
    for (const handler of this.handlers) await handler.onUserReactivated(realmId, userId);
  }
}
