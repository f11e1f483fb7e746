import { Controller, Delete, Get, Param, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, HumanOnly, NoGuests } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { isDbId } from '../database/ids';
import { InviteUsersArgs, MultiuseInviteArgs } from './dto/invites.dto';
import { InviteErrors } from './invite.errors';
import { InvitesService } from './invites.service';

/** zerver/views/invite.py: every view is require_member_or_admin (no guests, no bots). */
@Controller('api/v1/invites')
@NoGuests()
@HumanOnly()
export class InvitesController {
  constructor(private readonly invites: InvitesService) {}

  @Post()
  async invite(@CurrentUser() auth: AuthContext, @Args(InviteUsersArgs) args: InviteUsersArgs) {
    await this.invites.invite(auth, {
      emailsRaw: args.invitee_emails,
      inviteAs: args.invite_as,
      expiresInMinutes: args.invite_expires_in_minutes,
      streamIds: args.stream_ids,
      groupIds: args.group_ids,
      includeRealmDefaultSubscriptions: args.include_realm_default_subscriptions,
      notifyReferrerOnJoin: args.notify_referrer_on_join,
    });
    return {};
  }

  @Get()
  async list(@CurrentUser() auth: AuthContext) {
    return { invites: await this.invites.list(auth) };
  }

  @Post('multiuse')
  async multiuse(@CurrentUser() auth: AuthContext, @Args(MultiuseInviteArgs) args: MultiuseInviteArgs) {
    return this.invites.createMultiuse(auth, {
      inviteAs: args.invite_as,
      expiresInMinutes: args.invite_expires_in_minutes,
      streamIds: args.stream_ids ?? [],
      groupIds: args.group_ids,
      includeRealmDefaultSubscriptions: args.include_realm_default_subscriptions,
    });
  }

  @Delete('multiuse/:invite_id')
  async revokeMultiuse(@CurrentUser() auth: AuthContext, @Param('invite_id', PathIntPipe) id: number) {
    if (!isDbId(id)) throw InviteErrors.noSuchInvitation();
    await this.invites.revoke(auth, id, true);
    return {};
  }

  @Delete(':invite_id')
  async revoke(@CurrentUser() auth: AuthContext, @Param('invite_id', PathIntPipe) id: number) {
    if (!isDbId(id)) throw InviteErrors.noSuchInvitation();
    await this.invites.revoke(auth, id, false);
    return {};
  }

  @Post(':invite_id/resend')
  async resend(@CurrentUser() auth: AuthContext, @Param('invite_id', PathIntPipe) id: number) {
    if (!isDbId(id)) throw InviteErrors.noSuchInvitation();
    await this.invites.resend(auth, id);
    return {};
  }
}
