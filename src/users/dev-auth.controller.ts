import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Public } from '../common/auth/decorators';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { Args } from '../common/http/params';
import { RealmService } from '../realm/realm.service';
import { DevFetchApiKeyArgs, FetchApiKeyArgs } from './dto/users.dto';
import { UsersService } from './users.service';

/** Unauthenticated endpoints that hand out API keys. */
@Controller('api/v1')
export class DevAuthController {
  constructor(
    private readonly users: UsersService,
    private readonly realms: RealmService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Development servers only: the API key of any user, by email. */
  @Public()
  @Post('dev_fetch_api_key')
  @HttpCode(200)
  async devFetchApiKey(@Req() req: Request, @Args(DevFetchApiKeyArgs) args: DevFetchApiKeyArgs) {
    // Development mode on a public address serves none of this (config.devEndpoints).
    if (!this.config.devEndpoints) throw Errors.devEndpointOnly();
    // Zulip checks the email's format before the subdomain: an unknown subdomain is reported later.
    const realm = await this.realms.realmForHost(req.headers.host).catch((err: unknown) => {
      if (ZulipError.is(err, Errors.invalidSubdomain)) return undefined;
      throw err;
    });
    return this.users.devFetchApiKey(realm, args.username);
  }

  /** Email and password login, as zulip-js does when given a password. */
  @Public()
  @Post('fetch_api_key')
  @HttpCode(200)
  async fetchApiKey(@Req() req: Request, @Args(FetchApiKeyArgs) args: FetchApiKeyArgs) {
    const realm = await this.realms.realmForHost(req.headers.host);
    return this.users.fetchApiKey(realm, args.username, args.password, req.ip);
  }
}
