import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { runInTransaction } from '../database/transaction';
import { realmUserUpdateEvent, userGroupMembersEvent, type ClientEvent } from '../events/client-events';
import { DomainEventBus } from '../events/domain-event-bus';
import { AccessTarget, inaccessibleUserDict } from './user-access';
import { UserAccessService } from './user-access.service';
import { UserAccessEventsService } from './user-access-events.service';
import { EventsService } from '../events/events.service';
import { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { Role, ROLE_CODES, roleGroupsFor } from '../realm/system-groups';
import { AuthService } from './auth.service';
import { GroupMembershipRepository } from './group-membership.repository';
import { GroupSettingsService } from './group-settings.service';
import { ProfileDataService } from './profile-data.service';
import { ProfileDataEntry } from './profile-values.policy';
import { canSeeDeliveryEmail, EmailVisibility, userAvatarUrl, userDict } from './user-format';
import { checkFullName, isStrongEnoughPassword } from './user-name.policy';
import { UserProfile } from './user.entity';
import { UserHiddenFromGuestsEvent, UserReactivatedEvent } from './users.domain-events';
import { UsersRepository } from './users.repository';
import { isValidEmail, UsersService } from './users.service';
import { UserErrors } from './user.errors';

/** Who the target of PATCH /users is: by id or by email (access_user_by_id / _by_email). */
export type UserRef = { id: number } | { email: string };

export interface UpdateUserInput {
  fullName?: string;
  newEmail?: string;
  profileData?: ProfileDataEntry[];
  role?: number;
}

/**
 * What administrators do to other users (zerver/views/users.py): update name, role, custom
 * profile data and email; deactivate and reactivate; create users through the API.
 */
@Injectable()
export class UserAdminService {
  constructor(
    private readonly users: UsersService,
    private readonly repository: UsersRepository,
    private readonly groups: GroupMembershipRepository,
    private readonly groupSettings: GroupSettingsService,
    private readonly profileData: ProfileDataService,
    private readonly realms: RealmService,
    private readonly auth: AuthService,
    private readonly events: EventsService,
    private readonly bus: DomainEventBus,
    private readonly userAccess: UserAccessService,
    private readonly accessEvents: UserAccessEventsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  private access(auth: AuthContext, ref: UserRef, opts: { allowDeactivated: boolean; allowBots: boolean }) {
    const options = { ...opts, forAdmin: true };
    return 'id' in ref
      ? this.users.accessUserById(auth.user, auth.realm, ref.id, options)
      : this.users.accessUserByEmail(auth.user, auth.realm, ref.email, options);
  }

  private async recipients(realmId: number): Promise<number[]> {
    return (await this.repository.activeUsersInRealm(realmId)).map((u) => u.id);
  }

  /** The active users (rows) who may see `target`. */
  private async usersWhoCanAccess(realm: Realm, target: AccessTarget): Promise<Array<{ id: number; role: number }>> {
    const users = await this.repository.activeUsersInRealm(realm.id);
    const ids = new Set(await this.userAccess.whoCanAccess(realm, target, users));
    return users.filter((u) => ids.has(u.id));
  }

  /**
   * The recipients of an event carrying data about `target`: the active users who may see them
   * (Zulip's get_user_ids_who_can_access_user). Group-membership events still go to everyone.
   */
  private async recipientsAbout(realmId: number, target: AccessTarget): Promise<number[]> {
    const users = await this.repository.activeUsersInRealm(realmId);
    return this.userAccess.whoCanAccess(await this.realms.getRealm(realmId), target, users);
  }

  private send(realmId: number, event: ClientEvent, userIds: number[]): void {
    this.events.sendOnCommit(realmId, event, userIds);
  }

  /** Every process's authentication cache drops the user's row when the change commits. */
  private invalidateAfterCommit(userId: number): Promise<void> {
    return this.auth.userChanged(userId);
  }

  /** PATCH /users/{user_id} and PATCH /users/{email} (update_user_backend). */
  async updateUser(auth: AuthContext, ref: UserRef, input: UpdateUserInput): Promise<void> {
    const actor = auth.user;
    const realmId = auth.realm.id;
    await runInTransaction(this.dataSource, async () => {
      const found = await this.access(auth, ref, { allowDeactivated: true, allowBots: true });
      const target = (await this.repository.lockUser(realmId, found.id))!;
      const isAdmin = actor.role <= Role.ADMINISTRATOR;
      if (input.newEmail !== undefined && !(actor.canChangeUserEmails && isAdmin)) {
        throw UserErrors.cannotChangeEmails();
      }
      if (input.role !== undefined && input.role !== target.role) {
        if ((input.role === Role.OWNER || target.role === Role.OWNER) && actor.role !== Role.OWNER) {
          throw Errors.mustBeOwner();
        } else if (!isAdmin) {
          throw Errors.mustBeAdmin();
        }
        if (target.role === Role.OWNER && (await this.isLastOwner(realmId, target))) {
          throw UserErrors.onlyOwnerKeepsRole();
        }
        await this.changeRole(realmId, target, input.role);
      }
      if (input.fullName !== undefined && input.fullName !== target.fullName && input.fullName.trim() !== '') {
        const name = checkFullName(input.fullName);
        if (name !== target.fullName) {
          await this.repository.update(target.id, { fullName: name });
          this.send(
            realmId,
            realmUserUpdateEvent({ user_id: target.id, full_name: name }),
            await this.recipientsAbout(realmId, target),
          );
          await this.invalidateAfterCommit(target.id);
        }
      }
      if (input.profileData !== undefined) {
        await this.profileData.updateProfileData(
          realmId,
          target.id,
          input.profileData,
          await this.recipientsAbout(realmId, target),
        );
      }
      if (input.newEmail !== undefined && input.newEmail !== target.deliveryEmail) {
        await this.changeEmail(auth.realm, target, input.newEmail);
      }
    });
  }

  /**
   * The change-role command (Zulip's change_user_role management command: do_change_user_role with
   * no acting user): the role, the role groups and the same events as PATCH /users/{user_id}.
   */
  async changeRoleByOperator(realmId: number, userId: number, role: number): Promise<void> {
    if (!ROLE_CODES.includes(role)) throw UserErrors.invalidRole();
    await runInTransaction(this.dataSource, async () => {
      const target = await this.repository.lockUser(realmId, userId);
      if (!target) throw UserErrors.noSuchUser();
      if (target.role !== role) await this.changeRole(realmId, target, role);
    });
  }

  private async isLastOwner(realmId: number, target: UserProfile): Promise<boolean> {
    if (target.role !== Role.OWNER || target.isBot) return false;
    return (await this.repository.humanOwnerIds(realmId)).length === 1;
  }

  /** do_change_user_role: the role, the role system groups, and their events. */
  private async changeRole(realmId: number, target: UserProfile, role: number): Promise<void> {
    const oldRole = target.role;
    await this.repository.update(target.id, { role });
    const recipients = await this.recipients(realmId);
    this.send(realmId, realmUserUpdateEvent({ user_id: target.id, role }), await this.recipientsAbout(realmId, target));
    const system = await this.groupSettings.systemGroupIds(realmId);
    const oldGroups = roleGroupsFor(oldRole).map((n) => system.get(n)!);
    const newGroups = roleGroupsFor(role).map((n) => system.get(n)!);
    await this.repository.setRoleGroups(realmId, target.id, newGroups);
    // The primary role group first (remove, then add), then role:fullmembers, as Zulip orders them.
    const fullMembers = system.get('role:fullmembers')!;
    const [oldPrimary] = oldGroups;
    const [newPrimary] = newGroups;
    if (oldPrimary !== newPrimary) {
      this.send(realmId, userGroupMembersEvent('remove_members', oldPrimary, [target.id]), recipients);
      this.send(realmId, userGroupMembersEvent('add_members', newPrimary, [target.id]), recipients);
    }
    const wasFull = oldGroups.includes(fullMembers);
    const isFull = newGroups.includes(fullMembers);
    if (wasFull && !isFull) {
      this.send(realmId, userGroupMembersEvent('remove_members', fullMembers, [target.id]), recipients);
    } else if (!wasFull && isFull) {
      this.send(realmId, userGroupMembersEvent('add_members', fullMembers, [target.id]), recipients);
    }
    target.role = role;
    await this.invalidateAfterCommit(target.id);
  }

  /** do_change_user_delivery_email, after Zulip's checks of the new address. */
  private async changeEmail(realm: Realm, target: UserProfile, newEmail: string): Promise<void> {
    if (!isValidEmail(newEmail)) throw UserErrors.invalidNewEmail();
    const existing = await this.repository.findByEmailInRealm(realm.id, newEmail);
    if (existing && existing.id !== target.id) {
      throw UserErrors.newEmailInUse();
    }
    await this.changeDeliveryEmail(realm, target, newEmail);
  }

  /**
   * do_change_user_delivery_email (checks done by the caller): the row, `delivery_email` to those
   * who may see it, the gravatar URL and, when the address is public, the API email, to everyone.
   */
  async changeDeliveryEmail(realm: Realm, target: UserProfile, newEmail: string): Promise<void> {
    await this.repository.update(target.id, { deliveryEmail: newEmail });
    const users = await this.usersWhoCanAccess(realm, target);
    const visibility = target.settings.email_address_visibility;
    const seeing = users.filter((u) => u.id === target.id || canSeeDeliveryEmail(u.role, visibility)).map((u) => u.id);
    this.send(realm.id, realmUserUpdateEvent({ user_id: target.id, delivery_email: newEmail }), seeing);
    const all = users.map((u) => u.id);
    if (target.avatarSource === 'G') {
      const url = userAvatarUrl({ ...target, deliveryEmail: newEmail }, visibility, this.realms.realmHost(realm));
      this.send(
        realm.id,
        realmUserUpdateEvent({
          user_id: target.id,
          avatar_source: target.avatarSource,
          avatar_url: url,
          avatar_url_medium: `${url}&s=500`,
          avatar_version: target.avatarVersion,
        }),
        all,
      );
    }
    if (visibility === EmailVisibility.EVERYONE) {
      this.send(realm.id, realmUserUpdateEvent({ user_id: target.id, new_email: newEmail }), all);
    }
    await this.invalidateAfterCommit(target.id);
  }

  /** DELETE /users/{user_id} (deactivate_user_backend). */
  async deactivateUser(auth: AuthContext, userId: number): Promise<void> {
    const realmId = auth.realm.id;
    await runInTransaction(this.dataSource, async () => {
      const target = await this.access(auth, { id: userId }, { allowDeactivated: false, allowBots: false });
      if (target.role === Role.OWNER && auth.user.role !== Role.OWNER) throw Errors.mustBeOwner();
      if (await this.isLastOwner(realmId, target)) {
        throw UserErrors.cannotDeactivateOnlyOwner();
      }
      for (const bot of await this.repository.activeBotsOwnedBy(target.id)) await this.setActive(realmId, bot, false);
      await this.setActive(realmId, target, false);
    });
  }

  /**
   * DELETE /users/me (deactivate_user_own_backend): not the realm's last active user nor its
   * last owner; the user's bots go with them, as do_deactivate_user.
   */
  async deactivateOwnAccount(auth: AuthContext): Promise<void> {
    const realmId = auth.realm.id;
    await runInTransaction(this.dataSource, async () => {
      const target = (await this.repository.lockUser(realmId, auth.user.id))!;
      if ((await this.repository.activeUsersInRealm(realmId)).length === 1) {
        throw UserErrors.cannotDeactivateLastUser(false);
      }
      if (await this.isLastOwner(realmId, target)) throw UserErrors.cannotDeactivateLastUser(true);
      for (const bot of await this.repository.activeBotsOwnedBy(target.id)) await this.setActive(realmId, bot, false);
      await this.setActive(realmId, target, false);
    });
  }

  /** POST /users/{user_id}/reactivate (reactivate_user_backend). */
  async reactivateUser(auth: AuthContext, userId: number): Promise<void> {
    const realmId = auth.realm.id;
    await runInTransaction(this.dataSource, async () => {
      const target = await this.access(auth, { id: userId }, { allowDeactivated: true, allowBots: true });
      if (target.isActive) throw UserErrors.alreadyActive();
      await this.setActive(realmId, target, true);
      // Subscriber lists dropped the user at deactivation; other modules announce the return.
      await this.bus.publish(new UserReactivatedEvent(realmId, target.id));
    });
  }

  /**
   * Deactivation and reactivation send `realm_user` updates with `is_active` (feature level
   * 222+). A reactivated user reappears in the named groups it is still a direct member of.
   */
  private async setActive(realmId: number, user: UserProfile, active: boolean): Promise<void> {
    await this.repository.update(user.id, { isActive: active });
    const recipients = await this.recipients(realmId);
    const realm = await this.realms.getRealm(realmId);
    const { whileActive, whileDeactivated } = await this.userAccess.whoCanAccessActiveAndDeactivated(
      realm,
      user,
      await this.repository.activeUsersInRealm(realmId),
    );
    // The update goes to those who see the user as deactivated: after a deactivation, those who
    // still may (do_deactivate_user's users_with_access_to_deactivated_user); before a
    // reactivation, those who could.
    this.send(realmId, realmUserUpdateEvent({ user_id: user.id, is_active: active }), whileDeactivated);
    const deactivatedSeen = new Set(whileDeactivated);
    if (!active && whileDeactivated.length < recipients.length) {
      // Everyone else's clients still list the user in groups (their members show as "Unknown
      // user"): Zulip tells them with explicit remove_members events.
      const others = recipients.filter((id) => !deactivatedSeen.has(id));
      for (const groupId of await this.groups.namedGroupIdsWithDirectMember(user.id)) {
        this.send(realmId, userGroupMembersEvent('remove_members', groupId, [user.id]), others);
      }
    }
    // Restricted guests who saw the user only through a channel lose sight of them when they are
    // deactivated (realm_user remove, as Zulip's do_deactivate_user) and get them back, whole, on
    // reactivation (realm_user add: they had no deactivated user to update).
    const changed = whileActive.filter((id) => id !== user.id && !deactivatedSeen.has(id));
    if (changed.length > 0) {
      if (!active) await this.bus.publish(new UserHiddenFromGuestsEvent(realmId, user.id, changed));
      const pairs = changed.map((viewerId) => ({ viewerId, userId: user.id }));
      await this.accessEvents.announce(realm, active ? pairs : [], active ? [] : pairs);
    }
    if (user.isBot) {
      // Those who administer the bot (bot_owner_user_ids: administrators and the owner) keep
      // it in realm_bots: a realm_bot update tells them (feature level 222).
      const administrators = (await this.repository.activeUsersInRealm(realmId))
        .filter((u) => u.role <= Role.ADMINISTRATOR)
        .map((u) => u.id);
      this.send(
        realmId,
        { type: 'realm_bot', op: 'update', bot: { user_id: user.id, is_active: active } },
        user.botOwnerId === null ? administrators : [...administrators, user.botOwnerId],
      );
    }
    if (active) {
      for (const groupId of await this.groups.namedGroupIdsWithDirectMember(user.id)) {
        this.send(realmId, userGroupMembersEvent('add_members', groupId, [user.id]), recipients);
      }
    }
    await this.invalidateAfterCommit(user.id);
  }

  /** POST /users (create_user_backend): needs the special can_create_users permission. */
  async createUser(auth: AuthContext, input: { email: string; fullName: string; password: string }): Promise<number> {
    if (!auth.user.canCreateUsers) throw UserErrors.cannotCreateUsers();
    const fullName = checkFullName(input.fullName);
    if (!isValidEmail(input.email)) throw UserErrors.badNameOrUsername();
    if (await this.users.findByEmailInRealm(auth.realm.id, input.email)) {
      throw UserErrors.emailAlreadyInUse();
    }
    if (!isStrongEnoughPassword(input.password)) throw UserErrors.passwordTooWeak();
    const user = await this.createAccount(auth.realm, {
      email: input.email,
      fullName,
      password: input.password,
      tosVersion: '-1',
    });
    return user.id;
  }

  /**
   * do_create_user for a person (POST /users, accepting an invitation): the row, its role groups,
   * and the `realm_user` add and group-membership events. Inside the caller's transaction, if any.
   */
  async createAccount(
    realm: Realm,
    input: { email: string; fullName: string; password: string; role?: number; tosVersion?: string | null },
  ): Promise<UserProfile> {
    return runInTransaction(this.dataSource, async () => {
      const { user } = await this.users.createUser(realm, {
        email: input.email,
        fullName: input.fullName,
        password: input.password,
        role: input.role,
        tosVersion: input.tosVersion ?? null,
      });
      const users = await this.repository.activeUsersInRealm(realm.id);
      const host = this.realms.realmHost(realm);
      const roles = new Map(users.map((u) => [u.id, u.role]));
      const person = (viewerId: number) => ({
        ...userDict(user, {
          viewer: { id: viewerId, role: roles.get(viewerId) ?? Role.GUEST },
          realmHost: host,
          clientGravatar: false,
        }),
        profile_data: {},
      });
      const recipients = users.map((u) => u.id);
      // Each recipient sees the new user as their role allows (delivery_email); guests who may
      // not see the new user (notify_created_user) get the "Unknown user" placeholder.
      const seeing = new Set(await this.userAccess.whoCanAccess(realm, user, users));
      // Clients with user_list_incomplete leave inaccessible users out of their list: no event.
      this.events.sendOnCommitPerQueue(realm.id, 'realm_user', recipients, (queue, userId) => {
        if (seeing.has(userId)) return { type: 'realm_user', op: 'add', person: person(userId) };
        if (queue.options.clientCapabilities.user_list_incomplete === true) return { type: 'heartbeat' };
        return { type: 'realm_user', op: 'add', person: inaccessibleUserDict(user.id, host) };
      });
      // do_create_user: the new user joins its role's system groups (role:members, then
      // role:fullmembers), announced like any membership change.
      const system = await this.groupSettings.systemGroupIds(realm.id);
      for (const name of roleGroupsFor(user.role)) {
        this.send(realm.id, userGroupMembersEvent('add_members', system.get(name)!, [user.id]), recipients);
      }
      return user;
    });
  }
}
