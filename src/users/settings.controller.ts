import { Controller, Patch } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, HumanOnly } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { UpdateSettingsArgs } from './dto/settings.dto';
import { UserSettingsService } from './user-settings.service';

/**
 * PATCH /settings: the caller's own account and preferences. `/settings/display` and
 * `/settings/notifications` are the paths of older clients; Zulip serves them with the same view.
 */
@Controller('api/v1/settings')
@HumanOnly()
export class SettingsController {
  constructor(private readonly settings: UserSettingsService) {}

  @Patch()
  async update(@CurrentUser() auth: AuthContext, @Args(UpdateSettingsArgs) args: UpdateSettingsArgs) {
    await this.settings.updateSettings(auth, args);
    return {};
  }

  @Patch('display')
  updateDisplay(@CurrentUser() auth: AuthContext, @Args(UpdateSettingsArgs) args: UpdateSettingsArgs) {
    return this.update(auth, args);
  }

  @Patch('notifications')
  updateNotifications(@CurrentUser() auth: AuthContext, @Args(UpdateSettingsArgs) args: UpdateSettingsArgs) {
    return this.update(auth, args);
  }
}
