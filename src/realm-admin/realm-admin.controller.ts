import { Controller, Patch, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, RequireRole } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { TestWelcomeMessageArgs } from './dto/test-welcome-message.dto';
import { UpdateRealmArgs } from './dto/update-realm.dto';
import { RealmAdminService } from './realm-admin.service';
import { WelcomeMessageService } from './welcome-message.service';

@Controller('api/v1/realm')
export class RealmAdminController {
  constructor(
    private readonly admin: RealmAdminService,
    private readonly welcome: WelcomeMessageService,
  ) {}

  /** PATCH /realm: organization administrators (owners for some settings). */
  @Patch()
  @RequireRole('admin')
  update(@CurrentUser() auth: AuthContext, @Args(UpdateRealmArgs) args: UpdateRealmArgs) {
    return this.admin.updateRealm(auth, args);
  }

  /** POST /realm/test_welcome_bot_custom_message: the custom welcome message, to the caller from Welcome Bot. */
  @Post('test_welcome_bot_custom_message')
  @RequireRole('admin')
  testWelcomeMessage(@CurrentUser() auth: AuthContext, @Args(TestWelcomeMessageArgs) args: TestWelcomeMessageArgs) {
    return this.welcome.sendTest(auth, args.welcome_message_custom_text);
  }
}
