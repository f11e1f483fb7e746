import { GroupUsage } from './group-usage';
import { RealmUserRowsCache } from './realm-user-rows-cache';
import { RealmUserLinksProvider } from './realm-user-links';
import { UserAccessService } from './user-access.service';
import { UserAccessEventsService } from './user-access-events.service';
import { MutedUsersController } from './muted-users.controller';
import { MutedUsersRepository } from './muted-users.repository';
import { MutedUsersService } from './muted-users.service';
import { EmailModule } from '../email/email.module';
import { EmailChangeController } from './email-change.controller';
import { EmailChangeService } from './email-change.service';
import { SettingsController } from './settings.controller';
import { UserSettingsService } from './user-settings.service';
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { RealmModule } from '../realm/realm.module';
import { AuthService } from './auth.service';
import { LoginThrottle } from './login-throttle';
import { BasicStrategy } from './basic.strategy';
import { BASIC_VERIFIER } from '../common/auth/api-auth.guard';
import { DevAuthController } from './dev-auth.controller';
import { GroupMembershipRepository } from './group-membership.repository';
import { GroupSettingsService } from './group-settings.service';
import { NavigationViewsController } from './navigation-views.controller';
import { NavigationViewsRepository } from './navigation-views.repository';
import { NavigationViewsService } from './navigation-views.service';
import { PrincipalService } from './principal.service';
import { ProfileDataService } from './profile-data.service';
import { ProfileValuesRepository } from './profile-values.repository';
import { UserAdminService } from './user-admin.service';
import { CanCreateGroupsGuard } from './user-guards';
import { UserGroupsController } from './user-groups.controller';
import { UserGroupsQueryService } from './user-groups-query.service';
import { UserGroupsService } from './user-groups.service';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';
import { UserDirectoryService } from './user-directory.service';
import { OwnUserFields } from './own-user-fields';

@Module({
  imports: [RealmModule, EventsModule, EmailModule],
  providers: [
    UserSettingsService,
    EmailChangeService,
    UsersRepository,
    RealmUserRowsCache,
    GroupMembershipRepository,
    ProfileValuesRepository,
    NavigationViewsRepository,
    AuthService,
    LoginThrottle,
    BasicStrategy,
    // The API guard verifies Basic credentials through the strategy (common/auth/api-auth.guard.ts).
    { provide: BASIC_VERIFIER, useExisting: BasicStrategy },
    PrincipalService,
    UserDirectoryService,
    UserAccessService,
    UserAccessEventsService,
    GroupSettingsService,
    UserGroupsQueryService,
    UserGroupsService,
    ProfileDataService,
    UsersService,
    UserAdminService,
    NavigationViewsService,
    CanCreateGroupsGuard,
    MutedUsersRepository,
    MutedUsersService,
    OwnUserFields,
    RealmUserLinksProvider,
    GroupUsage,
  ],
  controllers: [
    UsersController,
    DevAuthController,
    UserGroupsController,
    NavigationViewsController,
    SettingsController,
    EmailChangeController,
    MutedUsersController,
  ],
  exports: [
    GroupUsage,
    BASIC_VERIFIER,
    AuthService,
    UserAdminService,
    PrincipalService,
    UserDirectoryService,
    UserAccessService,
    UserAccessEventsService,
    UsersService,
    GroupSettingsService,
    UserGroupsQueryService,
    UserGroupsService,
    ProfileDataService,
    NavigationViewsService,
    UserSettingsService,
    MutedUsersService,
    OwnUserFields,
  ],
})
export class UsersModule {}
