import { Injectable } from '@nestjs/common';
import { DomainEventBus } from '../events/domain-event-bus';
import type { Realm } from '../realm/realm.entity';
import { accessesAllUsers, isGuest } from './principal';
import { PrincipalService } from './principal.service';
import { AccessTarget, canAccessUser, UserAccess, whoCanAccess } from './user-access';
import { ConversationPeerPairsRequestedEvent, ConversationPeersRequestedEvent } from './users.domain-events';

type RealmAccessSetting = Pick<Realm, 'id' | 'can_access_all_users_group'>;

/**
 * can_access_all_users_group, everywhere user data leaves the server (rules in user-access.ts).
 * Nothing is loaded unless the realm restricts access and a guest is involved; then one query
 * (messaging's answer to ConversationPeersRequestedEvent) gives a user's peers, whatever the
 * number of users asked about.
 */
@Injectable()
export class UserAccessService {
  constructor(
    private readonly principals: PrincipalService,
    private readonly bus: DomainEventBus,
  ) {}

  /** Zulip's user_access_restricted_in_realm (for humans): is the setting anything but role:everyone? */
  async realmRestricts(realm: RealmAccessSetting): Promise<boolean> {
    const system = await this.principals.systemGroupIds(realm.id);
    return realm.can_access_all_users_group !== system.get('role:everyone');
  }

  /**
   * Whom `viewer` may see. A restricted guest's peers are loaded (limited to `among` when the
   * caller asks about a few users only); anyone else sees everyone, with no query.
   */
  async forViewer(
    viewer: { id: number; role: number },
    realm: RealmAccessSetting,
    among?: readonly number[],
  ): Promise<UserAccess> {
    const system = await this.principals.systemGroupIds(realm.id);
    if (accessesAllUsers(viewer, realm.can_access_all_users_group, system)) {
      return { restricted: false, viewerId: viewer.id };
    }
    return this.peers(realm.id, viewer.id, among ?? null);
  }

  /** Zulip's check_can_access_user for one target. */
  async canAccess(
    viewer: { id: number; role: number },
    realm: RealmAccessSetting,
    target: AccessTarget,
  ): Promise<boolean> {
    if (viewer.id === target.id || target.isBot) return true;
    return canAccessUser(await this.forViewer(viewer, realm, [target.id]), target);
  }

  /**
   * Zulip's get_user_ids_who_can_access_user: the ids among `candidates` (active users and their
   * roles, the recipients an event about `target` would have) that may see `target`.
   */
  async whoCanAccess(
    realm: RealmAccessSetting,
    target: AccessTarget,
    candidates: ReadonlyArray<{ id: number; role: number }>,
  ): Promise<number[]> {
    if (target.isBot || !(await this.realmRestricts(realm))) return candidates.map((c) => c.id);
    const guests = candidates.filter((c) => isGuest(c)).map((c) => c.id);
    const peers: UserAccess =
      guests.length === 0
        ? { restricted: true, viewerId: target.id, channelPeers: new Set<number>(), directPeers: new Set<number>() }
        : await this.peers(realm.id, target.id, guests);
    return whoCanAccess(target, candidates, peers);
  }

  /**
   * whoCanAccess for `target` both while active and once deactivated, with one peers query: the
   * recipients deactivation and reactivation compare (a guest who sees the user only through a
   * channel loses sight of them when they are deactivated, and regains it on reactivation).
   */
  async whoCanAccessActiveAndDeactivated(
    realm: RealmAccessSetting,
    target: { id: number; isBot: boolean },
    candidates: ReadonlyArray<{ id: number; role: number }>,
  ): Promise<{ whileActive: number[]; whileDeactivated: number[] }> {
    const all = candidates.map((c) => c.id);
    if (target.isBot || !(await this.realmRestricts(realm))) return { whileActive: all, whileDeactivated: all };
    const guests = candidates.filter((c) => isGuest(c)).map((c) => c.id);
    const peers: UserAccess =
      guests.length === 0
        ? { restricted: true, viewerId: target.id, channelPeers: new Set<number>(), directPeers: new Set<number>() }
        : await this.peers(realm.id, target.id, guests);
    return {
      whileActive: whoCanAccess({ ...target, isActive: true }, candidates, peers),
      whileDeactivated: whoCanAccess({ ...target, isActive: false }, candidates, peers),
    };
  }

  /**
   * The ids among `candidateIds` (any users of the realm) that may not see `target`: the send
   * path's question for a channel message whose sender is not subscribed (Zulip's do_send_messages
   * shows such a sender to those guests as "Unknown user"). Roles are loaded only when the realm
   * restricts access.
   */
  async whoCannotAccess(realm: RealmAccessSetting, target: AccessTarget, candidateIds: number[]): Promise<Set<number>> {
    if (target.isBot || candidateIds.length === 0 || !(await this.realmRestricts(realm))) return new Set();
    const principals = await this.principals.ofMany(candidateIds);
    const candidates = candidateIds.map((id) => ({ id, role: principals.get(id)?.role ?? 0 }));
    const seeing = new Set(await this.whoCanAccess(realm, target, candidates));
    return new Set(candidateIds.filter((id) => !seeing.has(id)));
  }

  /**
   * get_user_ids_who_can_access_user for several targets at once (the recipients of a batch of
   * events about different users, such as presence): by target id, the ids among `candidateIds`
   * that may see it. Nothing is loaded unless the realm restricts access; then the candidates'
   * roles and one query for the peers of all targets among the guests.
   */
  async whoCanAccessEach(
    realm: RealmAccessSetting,
    targets: readonly AccessTarget[],
    candidateIds: readonly number[],
  ): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    const everyone = () => {
      for (const t of targets) out.set(t.id, [...candidateIds]);
      return out;
    };
    if (targets.length === 0 || candidateIds.length === 0 || !(await this.realmRestricts(realm))) return everyone();
    const principals = await this.principals.ofMany(candidateIds);
    const candidates = candidateIds.map((id) => ({ id, role: principals.get(id)?.role ?? 0 }));
    const guests = candidates.filter((c) => isGuest(c)).map((c) => c.id);
    if (guests.length === 0) return everyone();
    const humans = targets.filter((t) => !t.isBot).map((t) => t.id);
    const question = new ConversationPeerPairsRequestedEvent(realm.id, humans, guests);
    if (humans.length > 0) await this.bus.publish(question);
    for (const t of targets) {
      const peers: UserAccess = {
        restricted: true,
        viewerId: t.id,
        channelPeers: question.channelPeers.get(t.id) ?? new Set<number>(),
        directPeers: question.directPeers.get(t.id) ?? new Set<number>(),
      };
      out.set(t.id, whoCanAccess(t, candidates, peers));
    }
    return out;
  }

  /**
   * For each of `userIds`, which of `among` share a channel or a direct-message conversation with
   * them (two queries, whatever the numbers), leaving out the `excluded` subscription rows (to ask
   * how things were before a subscribe that added them).
   */
  async peerPairs(
    realmId: number,
    userIds: readonly number[],
    among: readonly number[],
    excluded: ReadonlyArray<{ userId: number; recipientId: number }> = [],
  ): Promise<{ channelPeers: Map<number, Set<number>>; directPeers: Map<number, Set<number>> }> {
    const question = new ConversationPeerPairsRequestedEvent(realmId, userIds, among, excluded);
    if (userIds.length > 0 && among.length > 0) await this.bus.publish(question);
    return { channelPeers: question.channelPeers, directPeers: question.directPeers };
  }

  private async peers(realmId: number, userId: number, among: readonly number[] | null): Promise<UserAccess> {
    const question = new ConversationPeersRequestedEvent(realmId, userId, among);
    await this.bus.publish(question);
    return {
      restricted: true,
      viewerId: userId,
      channelPeers: question.channelPeers,
      directPeers: question.directPeers,
    };
  }
}
