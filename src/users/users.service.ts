import { Injectable } from '@nestjs/common';
import { RealmUserRowsCache } from './realm-user-rows-cache';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Errors } from '../common/errors/zulip-error';
import { runInTransaction } from '../database/transaction';
import { onUniqueViolation } from '../common/errors/unique-violation';
import { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { Role, ROLE_CODES, roleGroupsFor } from '../realm/system-groups';
import { UserSettingsValues } from '../realm/user-settings';
import { generateApiKey, hashPassword, verifyPassword } from './api-keys';
import { LoginThrottle } from './login-throttle';
import { AuthService } from './auth.service';
import { GroupSettingsService } from './group-settings.service';
import { UserProfile } from './user.entity';
import { canSeeDeliveryEmail, userDict, type UserDictSource } from './user-format';
import { UserDictJson } from './user-dict-json';
import { RawJson } from '../common/http/raw-json';
import { ProfileDataService } from './profile-data.service';
import { OwnUserFields } from './own-user-fields';
import { UsersRepository } from './users.repository';
import { canAccessUser, inaccessibleUserDict } from './user-access';
import { UserAccessService } from './user-access.service';
import { UserErrors } from './user.errors';

export interface CreateUserInput {
  email: string;
  fullName: string;
  role?: number;
  password?: string | null;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
  settings?: Partial<UserSettingsValues>;
  canCreateUsers?: boolean;
  canChangeUserEmails?: boolean;
  /** '-1' (TOS_VERSION_BEFORE_FIRST_LOGIN) for users created through the API. */
  tosVersion?: string | null;
}

export interface AccessUserOptions {
  allowDeactivated?: boolean;
  allowBots?: boolean;
  forAdmin: boolean;
}

/** UserProfile.can_admin_user: administrators administer everyone; owners of bots their bots. */
export function canAdminUser(
  viewer: Pick<UserProfile, 'id' | 'role'>,
  target: Pick<UserProfile, 'botOwnerId'>,
): boolean {
  return target.botOwnerId === viewer.id || viewer.role <= Role.ADMINISTRATOR;
}

/** Zulip's settings.CROSS_REALM_BOT_EMAILS: the system bots every realm's clients know about. */
export const CROSS_REALM_BOT_EMAILS = [
  'notification-bot@zulip.com',
  'welcome-bot@zulip.com',
  'emailgateway@zulip.com',
] as const;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isValidEmail(email: string): boolean {
  // eslint-disable-next-line no-control-regex
  return email.length <= 254 && EMAIL_RE.test(email) && !/[\u0000-\u001f\u007f]/.test(email);
}

@Injectable()
export class UsersService {
  private readonly dictJson = new UserDictJson();

  constructor(
    private readonly users: UsersRepository,
    private readonly realms: RealmService,
    private readonly groupSettings: GroupSettingsService,
    private readonly auth: AuthService,
    private readonly profileData: ProfileDataService,
    private readonly ownUserFields: OwnUserFields,
    private readonly userAccess: UserAccessService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly loginThrottle: LoginThrottle,
    private readonly realmUserRows: RealmUserRowsCache,
  ) {}

  /** Creates a user with the realm's default settings, a role-group membership and an API key. */
  async createUser(realm: Realm, input: CreateUserInput): Promise<{ user: UserProfile; apiKey: string }> {
    const role = input.role ?? Role.MEMBER;
    if (!ROLE_CODES.includes(role)) throw UserErrors.invalidRole();
    if (!isValidEmail(input.email)) throw UserErrors.invalidEmail();
    const apiKey = generateApiKey();
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    return runInTransaction(this.dataSource, async () => {
      if (await this.users.findByEmailInRealm(realm.id, input.email)) {
        throw UserErrors.emailInUse(input.email);
      }
      const defaults = await this.realms.userDefaults(realm.id);
      const row: Partial<UserProfile> = {
        realmId: realm.id,
        deliveryEmail: input.email,
        fullName: input.fullName,
        role,
        isBot: input.isBot ?? false,
        botType: input.botType ?? null,
        botOwnerId: input.botOwnerId ?? null,
        timezone: input.timezone ?? '',
        passwordHash,
        apiKeyDigest: this.auth.codec.digest(apiKey),
        apiKeyCiphertext: this.auth.codec.encrypt(apiKey),
        canCreateUsers: input.canCreateUsers ?? false,
        canChangeUserEmails: input.canChangeUserEmails ?? false,
        tosVersion: input.tosVersion ?? null,
        settings: { ...defaults, ...input.settings },
      };
      // The check above and this insert can race; the unique index decides.
      const id = await onUniqueViolation(
        () => this.users.insert(row),
        'user_profile_realm_email_key',
        () => UserErrors.emailInUse(input.email),
      );
      await this.syncRoleGroups(realm.id, id, role);
      // Caches of the realm's users (RealmUserRowsCache) list the new user once it commits.
      await this.auth.userChanged(id);
      const user = (await this.users.findById(id))!;
      return { user, apiKey };
    });
  }

  /** Keeps the user's system-group membership in step with the role. */
  private async syncRoleGroups(realmId: number, userId: number, role: number): Promise<void> {
    const system = await this.groupSettings.systemGroupIds(realmId);
    const groupIds = roleGroupsFor(role).map((name) => system.get(name)!);
    await this.users.setRoleGroups(realmId, userId, groupIds);
  }

  async regenerateApiKey(userId: number): Promise<string> {
    const apiKey = generateApiKey();
    await runInTransaction(this.dataSource, async () => {
      await this.users.update(userId, {
        apiKeyDigest: this.auth.codec.digest(apiKey),
        apiKeyCiphertext: this.auth.codec.encrypt(apiKey),
      });
      await this.auth.userChanged(userId);
    });
    return apiKey;
  }

  async setPassword(userId: number, password: string): Promise<void> {
    await this.users.update(userId, { passwordHash: await hashPassword(password) });
    await this.auth.userChanged(userId);
  }

  apiKeyOf(user: UserProfile): string {
    return this.auth.codec.decrypt(user.apiKeyCiphertext);
  }

  findByEmailInRealm(realmId: number, email: string): Promise<UserProfile | null> {
    return this.users.findByEmailInRealm(realmId, email);
  }

  /** A user's full row, fresh from the database (work done later on someone's behalf). */
  findByIdInRealm(realmId: number, id: number): Promise<UserProfile | null> {
    return this.users.findByIdInRealm(realmId, id);
  }

  /**
   * POST /dev_fetch_api_key (development mode only; the controller checks the mode), in the order
   * of Zulip's api_dev_fetch_api_key: email format, realm, then the account.
   */
  async devFetchApiKey(realm: Realm | undefined, username: string): Promise<Record<string, unknown>> {
    const email = username.trim();
    if (!isValidEmail(email)) throw UserErrors.enterValidEmail();
    if (!realm) throw Errors.invalidSubdomain();
    const user = await this.users.findByEmailInRealm(realm.id, email);
    if (!user) {
      // An account in another realm: Zulip's `invalid_subdomain` (common_get_active_user).
      if ((await this.users.findAllByEmail(email)).length > 0) throw Errors.invalidSubdomain();
      throw Errors.authenticationFailed();
    }
    this.checkAccountActive(realm, user);
    return { api_key: this.apiKeyOf(user), email: user.deliveryEmail, user_id: user.id };
  }

  /**
   * POST /fetch_api_key: email + password, in the order of Zulip's api_fetch_api_key and
   * EmailAuthBackend (subdomain, email format, the rate limit, the password), except that a
   * deactivated account or organization is reported only to whoever knows the password, and an
   * unknown account costs the same scrypt as a known one (docs/DECISIONS.md).
   */
  async fetchApiKey(
    realm: Realm | undefined,
    username: string,
    password: string,
    clientAddress?: string,
  ): Promise<Record<string, unknown>> {
    if (!realm) throw Errors.invalidSubdomain();
    const email = username.trim();
    if (!isValidEmail(email)) throw UserErrors.enterValidEmail();
    await this.loginThrottle.attempt(clientAddress, email);
    if (!password) throw Errors.authenticationFailed();
    const user = await this.users.findByEmailInRealm(realm.id, email);
    const ok = await verifyPassword(password, user?.passwordHash ?? null);
    if (!user || !ok) throw Errors.authenticationFailed();
    this.checkAccountActive(realm, user);
    await this.loginThrottle.succeeded(email);
    return { api_key: this.apiKeyOf(user), email: user.deliveryEmail, user_id: user.id };
  }

  /** Zulip's is_user_active: a deactivated user first, then a deactivated realm. */
  private checkAccountActive(realm: Realm, user: UserProfile): void {
    if (!user.isActive) throw Errors.userDeactivated();
    if (realm.deactivated) throw Errors.realmDeactivated();
  }

  /**
   * Zulip's get_users_for_api over the realm (or `userIds`). Users a restricted guest may not see
   * are left out (`user_list_incomplete`, the default of GET /users) or, for clients without that
   * capability, replaced by the "Unknown user" placeholder (users/user-access.ts).
   */
  async listUsers(
    viewer: UserProfile,
    realm: Realm,
    opts: {
      clientGravatar: boolean;
      includeCustomProfileFields: boolean;
      userIds?: number[];
      userListIncomplete?: boolean;
    },
  ): Promise<Record<string, unknown>[]> {
    const rows = opts.userIds
      ? await this.users.listDictRowsInRealm(realm.id, opts.userIds)
      : await this.realmUserRows.rowsInRealm(realm.id);
    if (opts.userIds) {
      const found = new Set(rows.map((r) => r.id));
      for (const id of opts.userIds) if (!found.has(id)) throw UserErrors.invalidId(id);
    }
    const access = await this.userAccess.forViewer(viewer, realm, opts.userIds);
    const host = this.realms.realmHost(realm);
    const profiles = opts.includeCustomProfileFields
      ? await this.profileData.profileDataByUser(realm.id, opts.userIds)
      : undefined;
    // In the rows' order (by id), placeholders included: clients index users by id.
    const out: Record<string, unknown>[] = [];
    for (const u of rows) {
      if (!canAccessUser(access, u)) {
        if (opts.userListIncomplete === false) out.push(inaccessibleUserDict(u.id, host));
        continue;
      }
      out.push(
        userDict(u, {
          viewer,
          realmHost: host,
          clientGravatar: opts.clientGravatar,
          profileData: profiles ? (profiles.get(u.id) ?? {}) : undefined,
        }),
      );
    }
    return out;
  }

  /**
   * {@link listUsers} of the whole realm as JSON arrays ready to send (RawJson): one, or with
   * `split: 'activity'` active users then deactivated ones (POST /register), each byte for byte
   * what listUsers' dicts serialise to. The text comes from a serialisation kept with the realm's
   * cached rows (UserDictJson): a realm of 10,000 users is neither formatted nor serialised again
   * per request. Null for a viewer who may not see every user (restricted guests get
   * placeholders): then listUsers answers.
   */
  async listUsersJson(
    viewer: UserProfile,
    realm: Realm,
    opts: { clientGravatar: boolean; includeCustomProfileFields: boolean; split: 'none' | 'activity' },
  ): Promise<{ arrays: RawJson[]; rows: readonly UserDictSource[] } | null> {
    const rows = await this.realmUserRows.rowsInRealm(realm.id);
    const access = await this.userAccess.forViewer(viewer, realm);
    if (access.restricted) return null;
    const profiles = opts.includeCustomProfileFields ? await this.profileData.profileDataByUser(realm.id) : undefined;
    const variant = { ...opts, viewerRole: viewer.role, realmHost: this.realms.realmHost(realm) };
    return { arrays: this.dictJson.arrays(rows, viewer, variant, profiles), rows };
  }

  async getUser(
    viewer: UserProfile,
    realm: Realm,
    userId: number,
    opts: { clientGravatar: boolean; includeCustomProfileFields: boolean },
  ): Promise<Record<string, unknown>> {
    const user = await this.accessUserById(viewer, realm, userId, {
      allowDeactivated: true,
      allowBots: true,
      forAdmin: false,
    });
    return this.userDictFor(viewer, realm, user, opts);
  }

  /** GET /users/{email}: the target is found as access_user_by_email does. */
  async getUserByEmail(
    viewer: UserProfile,
    realm: Realm,
    email: string,
    opts: { clientGravatar: boolean; includeCustomProfileFields: boolean },
  ): Promise<Record<string, unknown>> {
    const user = await this.accessUserByEmail(viewer, realm, email, {
      allowDeactivated: true,
      allowBots: true,
      forAdmin: false,
    });
    return this.userDictFor(viewer, realm, user, opts);
  }

  private async userDictFor(
    viewer: UserProfile,
    realm: Realm,
    user: UserProfile,
    opts: { clientGravatar: boolean; includeCustomProfileFields: boolean },
  ): Promise<Record<string, unknown>> {
    const profile = opts.includeCustomProfileFields
      ? ((await this.profileData.profileDataByUser(realm.id, [user.id])).get(user.id) ?? {})
      : undefined;
    return userDict(user, {
      viewer,
      realmHost: this.realms.realmHost(realm),
      clientGravatar: opts.clientGravatar,
      profileData: profile,
    });
  }

  /**
   * Zulip's access_user_by_id: "No such user" for ids outside the realm (and for bots unless
   * allowed), "User is deactivated" unless allowed, and for administrative access the caller
   * must be an administrator (or the bot's owner): "Insufficient permission".
   */
  async accessUserById(
    viewer: UserProfile,
    realm: Realm,
    userId: number,
    opts: AccessUserOptions,
  ): Promise<UserProfile> {
    const target = await this.users.findByIdInRealm(realm.id, userId);
    if (!target) throw UserErrors.noSuchUser();
    return this.accessUserCommon(viewer, realm, target, opts);
  }

  /**
   * Zulip's access_user_by_email: a dummy address `user<id>@<realm host>` is looked up by id;
   * otherwise the real address, among users whose email the caller may see.
   */
  async accessUserByEmail(
    viewer: UserProfile,
    realm: Realm,
    email: string,
    opts: AccessUserOptions,
  ): Promise<UserProfile> {
    const host = this.realms.realmHost(realm).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const dummy = new RegExp(`^user(\\d+)@${host}$`).exec(email);
    if (dummy) return this.accessUserById(viewer, realm, Number(dummy[1]), opts);
    // PostgreSQL text cannot hold NUL: no address contains it.
    const target = email.includes('\0') ? null : await this.users.findByEmailInRealm(realm.id, email.trim());
    if (!target || !canSeeDeliveryEmail(viewer.role, target.settings.email_address_visibility)) {
      throw UserErrors.noSuchUser();
    }
    return this.accessUserCommon(viewer, realm, target, opts);
  }

  /**
   * Zulip's access_user_common: bots and deactivated users unless allowed; reading a user needs
   * access to them (can_access_all_users_group: "Insufficient permission", as Zulip), administering
   * them needs can_admin_user.
   */
  private async accessUserCommon(
    viewer: UserProfile,
    realm: Realm,
    target: UserProfile,
    opts: AccessUserOptions,
  ): Promise<UserProfile> {
    if (target.isBot && !opts.allowBots) throw UserErrors.noSuchUser();
    if (!target.isActive && !opts.allowDeactivated) throw UserErrors.deactivated();
    if (!opts.forAdmin) {
      if (!(await this.userAccess.canAccess(viewer, realm, target))) throw Errors.insufficientPermission();
      return target;
    }
    if (!canAdminUser(viewer, target)) throw Errors.insufficientPermission();
    return target;
  }

  /**
   * Register's realm_bots (zerver/actions/users.py get_owned_bot_dicts): all bots of the realm for
   * an administrator, else the caller's own bots. No bot has default channels or services here.
   */
  async ownedBotDicts(viewer: UserProfile, realm: Realm): Promise<Record<string, unknown>[]> {
    const bots = await this.users.botsForAdministration(realm.id, viewer.role <= Role.ADMINISTRATOR ? null : viewer.id);
    const host = this.realms.realmHost(realm);
    return bots.map((bot) => {
      const dict = userDict(bot, { viewer, realmHost: host, clientGravatar: false });
      return {
        email: dict.email,
        user_id: bot.id,
        full_name: bot.fullName,
        bot_type: bot.botType,
        is_active: bot.isActive,
        api_key: this.apiKeyOf(bot),
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
        owner_id: bot.botOwnerId,
        avatar_url: dict.avatar_url,
        services: [],
      };
    });
  }

  /**
   * Register's cross_realm_bots (zerver/lib/users.py get_cross_realm_dicts): the system bots,
   * sorted by name, shown as their own viewers with no owner.
   */
  async crossRealmBotDicts(realm: Realm): Promise<Record<string, unknown>[]> {
    const bots = await this.users.crossRealmBots(CROSS_REALM_BOT_EMAILS);
    const host = this.realms.realmHost(realm);
    return bots.map((bot) => ({
      ...userDict(bot, { viewer: bot, realmHost: host, clientGravatar: false }),
      bot_owner_id: null,
      is_system_bot: true,
    }));
  }

  async getOwnUser(user: UserProfile, realm: Realm): Promise<Record<string, unknown>> {
    const dict = userDict(user, {
      viewer: user,
      realmHost: this.realms.realmHost(realm),
      clientGravatar: false,
      profileData: (await this.profileData.profileDataByUser(realm.id, [user.id])).get(user.id) ?? {},
    });
    dict.max_message_id = await this.ownUserFields.maxMessageId(user.id);
    return dict;
  }
}
