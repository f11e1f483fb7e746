import { Controller, Get, Param } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { GetUserArgs, GetUsersArgs } from './dto/users.dto';
import { UsersService } from './users.service';

@Controller('api/v1/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  async list(@CurrentUser() auth: AuthContext, @Args(GetUsersArgs) args: GetUsersArgs) {
    const members = await this.users.listUsers(auth.user, auth.realm, {
      clientGravatar: args.client_gravatar,
      includeCustomProfileFields: args.include_custom_profile_fields,
      userIds: args.user_ids,
    });
    return { members };
  }

  @Get('me')
  me(@CurrentUser() auth: AuthContext) {
    return this.users.getOwnUser(auth.user, auth.realm);
  }

  @Get(':user_id')
  async get(
    @CurrentUser() auth: AuthContext,
    @Param('user_id', PathIntPipe) userId: number,
    @Args(GetUserArgs) args: GetUserArgs,
  ) {
    const user = await this.users.getUser(auth.user, auth.realm, userId, {
      clientGravatar: args.client_gravatar,
      includeCustomProfileFields: args.include_custom_profile_fields,
    });
    return { user };
  }
}
