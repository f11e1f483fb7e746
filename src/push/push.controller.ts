import { Controller, Delete, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, HumanOnly } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { AddApnsTokenArgs, TokenArgs } from './dto/push.dto';
import { DeviceKind } from './push-device.entity';
import { PushDevicesService } from './push-devices.service';

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
