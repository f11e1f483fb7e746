import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { runInTransaction } from '../database/transaction';
import { realmUserUpdateEvent } from '../events/client-events';
import { DomainEventBus } from '../events/domain-event-bus';
import { EventsService } from '../events/events.service';
import { RealmService } from '../realm/realm.service';
import { checkSettingsValues } from '../realm/user-settings-defaults.params';
import {
  DISPLAY_SETTINGS_LEGACY,
  NOTIFICATION_SETTINGS_LEGACY,
  USER_SETTING_DEFS,
  UserSettingName,
} from '../realm/user-settings';
import { Role } from '../realm/system-groups';
import { hashPassword, verifyPassword } from './api-keys';
import { AuthService } from './auth.service';
import { EmailChangeService } from './email-change.service';
import { SETTINGS_PARAM_ORDER, type UpdateSettingsArgs } from './dto/settings.dto';
import { isAvailableLanguage, LANGUAGE_NAMES } from './languages';
import { UserAccessService } from './user-access.service';
import { apiEmail, canSeeDeliveryEmail, EmailVisibility, userAvatarUrl } from './user-format';
import { checkFullName, isStrongEnoughPassword } from './user-name.policy';
import { UserProfile } from './user.entity';
import { SettingsErrors } from './user.errors';
import { UserSettingsChangedEvent } from './users.domain-events';
import { UsersRepository } from './users.repository';

/**
 * Settings whose changes also go out in the legacy `update_display_settings` form (and
 * `timezone`) or `update_global_notifications` form: settings that existed before feature level
 * 89. Clients with the user_settings_object capability get neither.
 */
const DISPLAY_LEGACY = new Set<string>([...DISPLAY_SETTINGS_LEGACY, 'timezone']);
const NOTIFICATION_LEGACY = new Set<string>(NOTIFICATION_SETTINGS_LEGACY);

type SettingValue = boolean | number | string;

const SETTING_NAMES_IN_ORDER = SETTINGS_PARAM_ORDER.filter(
  (name): name is UserSettingName => name in USER_SETTING_DEFS,
);

/**
 * PATCH /settings (Zulip's json_change_settings and do_change_user_setting): a user's own name,
 * password and preferences. Every check comes before any write, and the whole request is one
 * transaction; each changed setting gets its `user_settings` event (and the legacy form for old
 * clients), in the order of the request's parameters.
 */
@Injectable()
export class UserSettingsService {
  constructor(
    private readonly repository: UsersRepository,
    private readonly realms: RealmService,
    private readonly auth: AuthService,
    private readonly events: EventsService,
    private readonly bus: DomainEventBus,
    private readonly emailChange: EmailChangeService,
    private readonly userAccess: UserAccessService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async updateSettings(ctx: AuthContext, args: UpdateSettingsArgs): Promise<void> {
    const { realm } = ctx;
    if (
      args.default_language !== undefined ||
      args.notification_sound !== undefined ||
      args.email_notifications_batching_period_seconds !== undefined
    ) {
      if (args.default_language !== undefined && !isAvailableLanguage(args.default_language as string)) {
        throw SettingsErrors.invalidDefaultLanguage();
      }
      checkSettingsValues(args.notification_sound, args.email_notifications_batching_period_seconds);
    }
    await runInTransaction(this.dataSource, async () => {
      const user = (await this.repository.lockUser(realm.id, ctx.user.id))!;
      if (args.new_password !== undefined) await this.changePassword(user, args.old_password ?? '', args.new_password);
      if (args.email !== undefined && args.email.trim() !== user.deliveryEmail) {
        // Nothing changes until the new address confirms (the link in the email).
        await this.emailChange.start(realm, user, args.email.trim());
      }
      if (args.full_name !== undefined && args.full_name !== user.fullName) {
        // As Zulip: silently ignored when the organization disables name changes.
        if (!realm.nameChangesDisabled || user.role <= Role.ADMINISTRATOR)
          await this.changeFullName(user, args.full_name);
      }
      const changes = new Map<string, { old: unknown; new: unknown }>();
      // In the order of the request's parameters (Zulip's), the time zone last.
      for (const name of SETTING_NAMES_IN_ORDER) {
        const value = args[name] as SettingValue | undefined;
        if (value === undefined || user.settings[name] === value) continue;
        changes.set(name, { old: user.settings[name], new: value });
      }
      if (args.timezone !== undefined && args.timezone !== user.timezone) {
        changes.set('timezone', { old: user.timezone, new: args.timezone });
      }
      if (changes.size === 0) return;
      await this.applySettings(user, changes);
      await this.bus.publish(new UserSettingsChangedEvent(realm.id, user.id, changes));
    });
  }

  /**
   * do_change_user_setting for presence_enabled alone (the deprecated `away` of POST
   * /users/me/status), inside the caller's transaction: its events, then presence's reaction
   * (UserSettingsChangedEvent). Like Zulip's status view, it runs even when the value is unchanged.
   */
  async setPresenceEnabled(user: UserProfile, enabled: boolean): Promise<void> {
    const changes = new Map<string, { old: unknown; new: unknown }>([
      ['presence_enabled', { old: user.settings.presence_enabled, new: enabled }],
    ]);
    await this.applySettings(user, changes);
    await this.bus.publish(new UserSettingsChangedEvent(user.realmId, user.id, changes));
  }

  /**
   * Turns one boolean setting off, with its events (do_change_user_setting), for the one-click
   * unsubscribe links of emails. False when the user is gone or the setting was already off.
   */
  async turnOffSetting(realmId: number, userId: number, name: UserSettingName): Promise<boolean> {
    return runInTransaction(this.dataSource, async () => {
      const user = await this.repository.lockUser(realmId, userId);
      if (!user || !user.isActive || user.settings[name] !== true) return false;
      const changes = new Map<string, { old: unknown; new: unknown }>([[name, { old: true, new: false }]]);
      await this.applySettings(user, changes);
      await this.bus.publish(new UserSettingsChangedEvent(realmId, user.id, changes));
      return true;
    });
  }

  /** do_change_password, after Zulip's checks (authenticate with the old one, then strength). */
  private async changePassword(user: UserProfile, oldPassword: string, newPassword: string): Promise<void> {
    if (!(await verifyPassword(oldPassword, user.passwordHash))) throw SettingsErrors.wrongPassword();
    if (!isStrongEnoughPassword(newPassword)) throw SettingsErrors.newPasswordTooWeak();
    await this.repository.update(user.id, { passwordHash: await hashPassword(newPassword) });
    // The cached row (auth.service.ts) carries the hash the next change is checked against.
    await this.auth.userChanged(user.id);
  }

  /**
   * The active users who may see `user` (can_access_all_users_group): the recipients of the
   * `realm_user` updates about them (Zulip's get_user_ids_who_can_access_user).
   */
  private async usersWhoCanAccess(user: UserProfile): Promise<Array<{ id: number; role: number }>> {
    const users = await this.repository.activeUsersInRealm(user.realmId);
    const ids = new Set(await this.userAccess.whoCanAccess(await this.realms.getRealm(user.realmId), user, users));
    return users.filter((u) => ids.has(u.id));
  }

  /** check_change_full_name: the `realm_user` update goes to those who may see the user. */
  private async changeFullName(user: UserProfile, raw: string): Promise<void> {
    const name = checkFullName(raw);
    if (name === user.fullName) return;
    await this.repository.update(user.id, { fullName: name });
    user.fullName = name;
    const everyone = (await this.usersWhoCanAccess(user)).map((u) => u.id);
    this.events.sendOnCommit(user.realmId, realmUserUpdateEvent({ user_id: user.id, full_name: name }), everyone);
    await this.auth.userChanged(user.id);
  }

  /** The changed settings in one UPDATE, then each one's events (do_change_user_setting). */
  private async applySettings(user: UserProfile, changes: Map<string, { old: unknown; new: unknown }>): Promise<void> {
    const settings: Record<string, unknown> = {};
    let timezone: string | undefined;
    for (const [name, change] of changes) {
      if (name === 'timezone') timezone = change.new as string;
      else settings[name] = change.new;
    }
    await this.repository.update(user.id, {
      ...(Object.keys(settings).length > 0 ? { settings: settings as unknown as UserProfile['settings'] } : {}),
      ...(timezone !== undefined ? { timezone } : {}),
    });
    await this.auth.userChanged(user.id);

    const realm = await this.realms.getRealm(user.realmId);
    const host = this.realms.realmHost(realm);
    const email = apiEmail(user, host);
    for (const [name, change] of changes) {
      const value = change.new as SettingValue;
      const language = name === 'default_language' ? { language_name: LANGUAGE_NAMES[value as string] } : {};
      this.events.sendOnCommit(
        user.realmId,
        { type: 'user_settings', op: 'update', property: name, value, ...language },
        [user.id],
      );
      if (NOTIFICATION_LEGACY.has(name)) {
        this.events.sendOnCommit(
          user.realmId,
          { type: 'update_global_notifications', user: email, notification_name: name, setting: value },
          [user.id],
        );
      }
      if (DISPLAY_LEGACY.has(name)) {
        this.events.sendOnCommit(
          user.realmId,
          { type: 'update_display_settings', user: email, setting_name: name, setting: value, ...language },
          [user.id],
        );
      }
      if (name === 'timezone') await this.announceTimezone(user, host, value as string);
      if (name === 'email_address_visibility') {
        await this.announceEmailVisibility(user, host, change.old as number, value as number);
      }
    }
  }

  /** Everyone sees a user's time zone (realm_user update with email and timezone). */
  private async announceTimezone(user: UserProfile, host: string, timezone: string): Promise<void> {
    const everyone = (await this.usersWhoCanAccess(user)).map((u) => u.id);
    const person = { user_id: user.id, email: apiEmail(user, host), timezone };
    this.events.sendOnCommit(user.realmId, realmUserUpdateEvent(person), everyone);
  }

  /**
   * send_delivery_email_update_events, and when "everyone" is the old or the new visibility the
   * change of the API email (`new_email`) and of the avatar URL, to those who may see the user.
   */
  private async announceEmailVisibility(user: UserProfile, host: string, before: number, after: number) {
    const users = (await this.usersWhoCanAccess(user)).filter((u) => u.id !== user.id);
    const gained = users.filter((u) => !canSeeDeliveryEmail(u.role, before) && canSeeDeliveryEmail(u.role, after));
    const lost = users.filter((u) => canSeeDeliveryEmail(u.role, before) && !canSeeDeliveryEmail(u.role, after));
    const send = (person: Parameters<typeof realmUserUpdateEvent>[0], ids: number[]) => {
      if (ids.length > 0) this.events.sendOnCommit(user.realmId, realmUserUpdateEvent(person), ids);
    };
    send(
      { user_id: user.id, delivery_email: user.deliveryEmail },
      gained.map((u) => u.id),
    );
    send(
      { user_id: user.id, delivery_email: null },
      lost.map((u) => u.id),
    );
    if (before !== EmailVisibility.EVERYONE && after !== EmailVisibility.EVERYONE) return;
    const everyone = [user.id, ...users.map((u) => u.id)];
    const visible = { ...user, settings: { ...user.settings, email_address_visibility: after } };
    send({ user_id: user.id, new_email: apiEmail(visible, host) }, everyone);
    const url = userAvatarUrl(user, after, host);
    send(
      {
        user_id: user.id,
        avatar_source: user.avatarSource,
        avatar_url: url,
        avatar_url_medium: `${url}&s=500`,
        avatar_version: user.avatarVersion,
      },
      everyone,
    );
  }
}
