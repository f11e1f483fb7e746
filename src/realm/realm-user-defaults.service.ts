import { RealmUsers } from './realm-users';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { runInTransaction } from '../database/transaction';
import { EventsService } from '../events/events.service';
import { RealmRepository } from './realm.repository';
import { RealmService } from './realm.service';
import { checkSettingsValues, REALM_DEFAULT_SETTING_NAMES } from './user-settings-defaults.params';
import { UserSettingName } from './user-settings';

/**
 * PATCH /realm/user_settings_defaults (Zulip's update_realm_user_settings_defaults and
 * do_set_realm_user_default_setting): only changed values are written, each with its own
 * `realm_user_settings_defaults` event. Existing users keep their settings.
 */
@Injectable()
export class RealmUserDefaultsService {
  constructor(
    private readonly realms: RealmService,
    private readonly repository: RealmRepository,
    private readonly events: EventsService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly realmUsers: RealmUsers,
  ) {}

  async updateDefaults(realmId: number, changes: Partial<Record<UserSettingName, unknown>>): Promise<void> {
    checkSettingsValues(changes.notification_sound, changes.email_notifications_batching_period_seconds);
    await runInTransaction(this.dataSource, async () => {
      const current = (await this.realms.userDefaults(realmId)) as unknown as Record<string, unknown>;
      const recipients = await this.realmUsers.activeUserIds(realmId);
      for (const name of REALM_DEFAULT_SETTING_NAMES) {
        const value = changes[name];
        if (value === undefined || current[name] === value) continue;
        await this.repository.updateUserDefault(realmId, name, value);
        this.events.sendOnCommit(
          realmId,
          { type: 'realm_user_settings_defaults', op: 'update', property: name, value },
          recipients,
        );
      }
    });
  }
}
