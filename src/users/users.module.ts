import { Module } from '@nestjs/common';
import { BasicStrategy } from './basic.strategy';
import { RealmModule } from '../realm/realm.module';
import { AuthService } from './auth.service';
import { DevAuthController } from './dev-auth.controller';
import { GroupMembershipRepository } from './group-membership.repository';
import { GroupSettingsService } from './group-settings.service';
import { UserGroupsQueryService } from './user-groups-query.service';
import { UserGroupsService } from './user-groups.service';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [RealmModule],
  providers: [
    UsersRepository,
    GroupMembershipRepository,
    AuthService,
    BasicStrategy,
    GroupSettingsService,
    UserGroupsQueryService,
    UserGroupsService,
    UsersService,
  ],
  controllers: [UsersController, DevAuthController],
  exports: [AuthService, UsersService, GroupSettingsService, UserGroupsQueryService, UserGroupsService],
})
export class UsersModule {}
