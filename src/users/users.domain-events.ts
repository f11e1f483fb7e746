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
