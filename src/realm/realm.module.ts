import { RealmUsers } from './realm-users';
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { CustomProfileFieldsController } from './custom-profile-fields.controller';
import { CustomProfileFieldsRepository } from './custom-profile-fields.repository';
import { CustomProfileFieldsService } from './custom-profile-fields.service';
import { RealmUserDefaultsController } from './realm-user-defaults.controller';
import { RealmUserDefaultsService } from './realm-user-defaults.service';
import { RealmRepository } from './realm.repository';
import { RealmService } from './realm.service';
import { ServerSettingsController } from './server-settings.controller';

@Module({
  imports: [EventsModule],
  providers: [
    RealmRepository,
    RealmService,
    CustomProfileFieldsRepository,
    CustomProfileFieldsService,
    RealmUserDefaultsService,
    RealmUsers,
  ],
  controllers: [ServerSettingsController, CustomProfileFieldsController, RealmUserDefaultsController],
  exports: [RealmService, CustomProfileFieldsService, RealmUsers],
})
export class RealmModule {}
