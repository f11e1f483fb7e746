import { Controller, Patch } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, RequireRole } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { RealmUserDefaultsService } from './realm-user-defaults.service';
import { REALM_DEFAULT_SETTING_NAMES, UpdateRealmUserDefaultsArgs } from './user-settings-defaults.params';

@Controller('api/v1/realm/user_settings_defaults')
export class RealmUserDefaultsController {
  constructor(private readonly defaults: RealmUserDefaultsService) {}

  @Patch()
  @RequireRole('admin')
  async update(@CurrentUser() auth: AuthContext, @Args(UpdateRealmUserDefaultsArgs) args: UpdateRealmUserDefaultsArgs) {
    const changes: Record<string, unknown> = {};
    for (const name of REALM_DEFAULT_SETTING_NAMES) if (args[name] !== undefined) changes[name] = args[name];
    await this.defaults.updateDefaults(auth.realm.id, changes);
    return {};
  }
}
