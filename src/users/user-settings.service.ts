import { Injectable } from '@nestjs/common';
import { EventsService } from '../events/events.service';
import { DomainEventBus } from '../events/domain-event-bus';
import type { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { AuthService } from './auth.service';
import { apiEmail } from './user-format';
import type { UserProfile } from './user.entity';
import { PresenceEnabledChangedEvent } from './users.domain-events';
import { UsersRepository } from './users.repository';

/** Changes to a user's own settings (zerver/actions/user_settings.py do_change_user_setting). */
@Injectable()
export class UserSettingsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly auth: AuthService,
    private readonly events: EventsService,
    private readonly realms: RealmService,
    private readonly bus: DomainEventBus,
  ) {}

  /**
   * Sets presence_enabled (inside the caller's transaction): stores it, tells the user's clients
   * (`user_settings`, and `update_global_notifications` for clients without user_settings_object,
   * presence_enabled being one of Zulip's legacy notification settings), and lets presence react.
   * Like Zulip, this runs even when the value does not change.
   */
  async setPresenceEnabled(user: UserProfile, realm: Realm, enabled: boolean): Promise<void> {
    await this.users.update(user.id, { settings: { presence_enabled: enabled } as UserProfile['settings'] });
    this.auth.invalidateUser(user.id);
    const updated: UserProfile = { ...user, settings: { ...user.settings, presence_enabled: enabled } };
    this.events.sendOnCommit(
      realm.id,
      { type: 'user_settings', op: 'update', property: 'presence_enabled', value: enabled },
      [user.id],
    );
    this.events.sendOnCommit(
      realm.id,
      {
        type: 'update_global_notifications',
        user: apiEmail(user, this.realms.realmHost(realm)),
        notification_name: 'presence_enabled',
        setting: enabled,
      },
      [user.id],
    );
    await this.bus.publish(new PresenceEnabledChangedEvent(updated, realm, enabled));
  }
}
