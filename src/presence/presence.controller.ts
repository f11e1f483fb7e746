import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, HumanOnly } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { GetUserPresenceArgs, UpdatePresenceArgs, UpdateStatusArgs, UpdateStatusForUserArgs } from './dto/presence.dto';
import { PresenceErrors } from './presence.errors';
import { PresenceService } from './presence.service';
import { UserStatusService } from './user-status.service';

/** Presence (zerver/views/presence.py) and user status. */
@Controller('api/v1')
export class PresenceController {
  constructor(
    private readonly presence: PresenceService,
    private readonly statuses: UserStatusService,
  ) {}

  /**
   * update_active_status_backend: records the ping and (unless ping_only) returns the realm's
   * presence; last_update_id means the modern format.
   */
  @Post('users/me/presence')
  @HttpCode(200)
  @HumanOnly()
  async updatePresence(@CurrentUser() auth: AuthContext, @Args(UpdatePresenceArgs) args: UpdatePresenceArgs) {
    if (args.status !== 'active' && args.status !== 'idle') throw PresenceErrors.invalidStatus(args.status);
    this.presence.ping(auth.user, auth.realm, args.status);
    if (args.ping_only) return {};
    return this.presence.presenceResponse(auth.realm, {
      slim: args.slim_presence || args.last_update_id !== undefined,
      lastUpdateId: args.last_update_id ?? null,
      historyLimitDays: args.history_limit_days ?? null,
      viewer: auth.user,
    });
  }

  /** get_statuses_for_realm: the legacy format, without presence_last_update_id. */
  @Get('realm/presence')
  async realmPresence(@CurrentUser() auth: AuthContext) {
    const { presences, server_timestamp } = await this.presence.presenceResponse(auth.realm, {
      slim: false,
      lastUpdateId: null,
      historyLimitDays: null,
      viewer: auth.user,
    });
    return { presences, server_timestamp };
  }

  @Get('users/:user_id_or_email/presence')
  async userPresence(
    @CurrentUser() auth: AuthContext,
    @Param('user_id_or_email') userIdOrEmail: string,
    @Args(GetUserPresenceArgs) args: GetUserPresenceArgs,
  ) {
    return { presence: await this.presence.userPresenceForApi(auth, userIdOrEmail, args.slim_presence) };
  }

  @Post('users/me/status')
  @HttpCode(200)
  @HumanOnly()
  async updateOwnStatus(@CurrentUser() auth: AuthContext, @Args(UpdateStatusArgs) args: UpdateStatusArgs) {
    await this.statuses.updateOwnStatus(auth, {
      away: args.away,
      statusText: args.status_text,
      emojiName: args.emoji_name,
      emojiCode: args.emoji_code,
      reactionType: args.reaction_type,
    });
    return {};
  }

  @Get('users/:user_id/status')
  async status(@CurrentUser() auth: AuthContext, @Param('user_id', PathIntPipe) userId: number) {
    return { status: await this.statuses.statusOf(auth, userId) };
  }

  @Post('users/:user_id/status')
  @HttpCode(200)
  async updateStatusOf(
    @CurrentUser() auth: AuthContext,
    @Param('user_id', PathIntPipe) userId: number,
    @Args(UpdateStatusForUserArgs) args: UpdateStatusForUserArgs,
  ) {
    await this.statuses.updateStatusOf(auth, userId, {
      statusText: args.status_text,
      emojiName: args.emoji_name,
      emojiCode: args.emoji_code,
      reactionType: args.reaction_type,
    });
    return {};
  }
}
