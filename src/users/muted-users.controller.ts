import { Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { MutedUsersService } from './muted-users.service';

@Controller('api/v1/users/me/muted_users')
export class MutedUsersController {
  constructor(private readonly muted: MutedUsersService) {}

  @Post(':muted_user_id')
  @HttpCode(200)
  async mute(@CurrentUser() auth: AuthContext, @Param('muted_user_id', PathIntPipe) mutedUserId: number) {
    await this.muted.mute(auth, mutedUserId);
    return {};
  }

  @Delete(':muted_user_id')
  async unmute(@CurrentUser() auth: AuthContext, @Param('muted_user_id', PathIntPipe) mutedUserId: number) {
    await this.muted.unmute(auth, mutedUserId);
    return {};
  }
}
