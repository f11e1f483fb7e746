import { Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, RequireRole } from '../common/auth/decorators';
import { Errors } from '../common/errors/zulip-error';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { CreateUserArgs, DeactivateUserArgs, GetUserArgs, GetUsersArgs, UpdateUserArgs } from './dto/users.dto';
import { parseProfileData } from './profile-values.policy';
import { UserAdminService, UserRef } from './user-admin.service';
import { UsersService } from './users.service';

/**
 * `/users/{user_id}` and `/users/{email}` share one path segment: digits are an id (Zulip's
 * `<int:user_id>` pattern comes first), an address with `@` is an email. Anything else cannot
 * name a user; it is an unknown URL (JSON 404) here, where Zulip answers "No such user".
 */
function userRef(segment: string): UserRef {
  if (/^[0-9]{1,18}$/.test(segment)) return { id: Number(segment) };
  if (segment.includes('@')) return { email: segment };
  throw Errors.routeNotFound();
}

@Controller('api/v1/users')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly admin: UserAdminService,
  ) {}

  @Get()
  async list(@CurrentUser() auth: AuthContext, @Args(GetUsersArgs) args: GetUsersArgs) {
    const opts = {
      clientGravatar: args.client_gravatar,
      includeCustomProfileFields: args.include_custom_profile_fields,
    };
    if (args.user_ids === undefined) {
      // The whole realm, serialised ahead of time when the viewer may see everyone.
      const json = await this.users.listUsersJson(auth.user, auth.realm, { ...opts, split: 'none' });
      if (json) return { members: json.arrays[0] };
    }
    return { members: await this.users.listUsers(auth.user, auth.realm, { ...opts, userIds: args.user_ids }) };
  }

  @Post()
  @HttpCode(200)
  @RequireRole('admin')
  async create(@CurrentUser() auth: AuthContext, @Args(CreateUserArgs) args: CreateUserArgs) {
    const userId = await this.admin.createUser(auth, {
      email: args.email,
      fullName: args.full_name,
      password: args.password,
    });
    return { user_id: userId };
  }

  @Get('me')
  me(@CurrentUser() auth: AuthContext) {
    return this.users.getOwnUser(auth.user, auth.realm);
  }

  @Get(':user')
  async get(@CurrentUser() auth: AuthContext, @Param('user') segment: string, @Args(GetUserArgs) args: GetUserArgs) {
    const ref = userRef(segment);
    const opts = {
      clientGravatar: args.client_gravatar,
      includeCustomProfileFields: args.include_custom_profile_fields,
    };
    const user =
      'id' in ref
        ? await this.users.getUser(auth.user, auth.realm, ref.id, opts)
        : await this.users.getUserByEmail(auth.user, auth.realm, ref.email, opts);
    return { user };
  }

  @Patch(':user')
  async update(
    @CurrentUser() auth: AuthContext,
    @Param('user') segment: string,
    @Args(UpdateUserArgs) args: UpdateUserArgs,
  ) {
    await this.admin.updateUser(auth, userRef(segment), {
      fullName: args.full_name,
      newEmail: args.new_email,
      profileData: args.profile_data === undefined ? undefined : parseProfileData(args.profile_data),
      role: args.role,
    });
    return {};
  }

  // Declared before users/:user_id, which would otherwise take the path.
  @Delete('me')
  async deactivateOwnAccount(@CurrentUser() auth: AuthContext) {
    await this.admin.deactivateOwnAccount(auth);
    return {};
  }

  @Delete(':user_id')
  async deactivate(
    @CurrentUser() auth: AuthContext,
    @Param('user_id', PathIntPipe) userId: number,
    @Args(DeactivateUserArgs) _args: DeactivateUserArgs,
  ) {
    await this.admin.deactivateUser(auth, userId);
    return {};
  }

  @Post(':user_id/reactivate')
  @HttpCode(200)
  async reactivate(@CurrentUser() auth: AuthContext, @Param('user_id', PathIntPipe) userId: number) {
    await this.admin.reactivateUser(auth, userId);
    return {};
  }
}
