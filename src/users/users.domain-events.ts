import type { Realm } from '../realm/realm.entity';
import type { UserProfile } from './user.entity';

/**
 * What the users module publishes on the domain-event bus (events/domain-event-bus.ts) for the
 * modules above it. Subscribers name the class: search for it to find every listener.
 */

/**
 * A deactivated user was reactivated (do_reactivate_user). Published inside the reactivation's
 * transaction; channels answers with `peer_add` for the channels the user is still subscribed to
 * (an in-transaction subscriber, so those events follow the `realm_user` update in every queue).
 */
export class UserReactivatedEvent {
  constructor(
    readonly realmId: number,
    readonly userId: number,
  ) {}
}

/**
 * A user's presence_enabled setting (invisible mode, or the deprecated `away` status) was set.
 * Published inside the change's transaction; presence stores the matching presence (offline
 * when turned off, active when on) and tells everyone (an in-transaction subscriber, as Zulip's
 * do_change_user_setting calls do_update_user_presence).
 */
export class PresenceEnabledChangedEvent {
  constructor(
    readonly user: UserProfile,
    readonly realm: Realm,
    readonly enabled: boolean,
  ) {}
}
