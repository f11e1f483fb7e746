import { Controller, Delete, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, HumanOnly } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { AddApnsTokenArgs, TestNotificationArgs, TokenArgs } from './dto/push.dto';
import { DeviceKind } from './push-device.entity';
import { PushDevicesService } from './push-devices.service';
import { PushNotificationsService } from './push-notifications.service';
import { RealmService } from '../realm/realm.service';

/** Device registration for mobile push (the deprecated, non-E2EE endpoints of the spec). */
@Controller('api/v1/users/me')
@HumanOnly()
export class PushController {
  constructor(private readonly devices: PushDevicesService) {}

  @Post('apns_device_token')
  async addApns(@CurrentUser() auth: AuthContext, @Args(AddApnsTokenArgs) args: AddApnsTokenArgs) {
    await this.devices.addToken(auth.user, DeviceKind.APNS, args.token, args.appid);
    return {};
  }

  @Delete('apns_device_token')
  async removeApns(@CurrentUser() auth: AuthContext, @Args(TokenArgs) args: TokenArgs) {
    await this.devices.removeToken(auth.user, DeviceKind.APNS, args.token);
    return {};
  }

  @Post('android_gcm_reg_id')
  async addFcm(@CurrentUser() auth: AuthContext, @Args(TokenArgs) args: TokenArgs) {
    await this.devices.addToken(auth.user, DeviceKind.FCM, args.token, null);
    return {};
  }

  @Delete('android_gcm_reg_id')
  async removeFcm(@CurrentUser() auth: AuthContext, @Args(TokenArgs) args: TokenArgs) {
    await this.devices.removeToken(auth.user, DeviceKind.FCM, args.token);
    return {};
  }
}

/** POST /mobile_push/test_notification: the app's "send a test notification" button. */
@Controller('api/v1/mobile_push')
@HumanOnly()
export class PushTestController {
  constructor(
    private readonly push: PushNotificationsService,
    private readonly realms: RealmService,
  ) {}

  @Post('test_notification')
  async sendTest(@CurrentUser() auth: AuthContext, @Args(TestNotificationArgs) args: TestNotificationArgs) {
    const realm = { id: auth.realm.id, name: auth.realm.name, url: this.realms.realmUrl(auth.realm) };
    await this.push.sendTest(realm, auth.user.id, args.token);
    return {};
  }
}
