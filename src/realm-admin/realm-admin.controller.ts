import { Controller, Patch } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, RequireRole } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { UpdateRealmArgs } from './dto/update-realm.dto';
import { RealmAdminService } from './realm-admin.service';

@Controller('api/v1/realm')
export class RealmAdminController {
  constructor(private readonly admin: RealmAdminService) {}

  /** PATCH /realm: organization administrators (owners for some settings). */
  @Patch()
  @RequireRole('admin')
  update(@CurrentUser() auth: AuthContext, @Args(UpdateRealmArgs) args: UpdateRealmArgs) {
    return this.admin.updateRealm(auth, args);
  }
}
