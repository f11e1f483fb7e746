import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { REALM_GROUP_SETTINGS } from '../realm/system-groups';
import { GroupSettingsService } from './group-settings.service';

function authOf(context: ExecutionContext): AuthContext | undefined {
  return context.switchToHttp().getRequest<{ user?: AuthContext }>().user;
}

/**
 * Zulip's require_user_group_create_permission, after `@NoGuests()` and `@HumanOnly()` refused
 * guests and bots: users outside the realm's can_create_groups are refused before the
 * parameters are read.
 */
@Injectable()
export class CanCreateGroupsGuard implements CanActivate {
  constructor(private readonly groupSettings: GroupSettingsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const auth = authOf(context);
    if (!auth) return true;
    const allowed = await this.groupSettings.hasPermission(
      auth.realm.id,
      auth.user,
      auth.realm.can_create_groups,
      REALM_GROUP_SETTINGS.can_create_groups.allowEveryone,
    );
    if (!allowed) throw Errors.insufficientPermission();
    return true;
  }
}
