import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { Role } from '../common/roles';
import { PrincipalService } from '../users/principal.service';
import { canAccessChannelHistory } from './message-access.policy';
import type { ChannelForEdit } from './message-edit.repository';

/**
 * The group settings an edit or a move asks about (Zulip's can_edit_topic_of_message,
 * can_resolve_topics, can_move_messages_out_of_channel …), for the request builder and for the
 * actions that need the actor's view of a topic (`historyAccess`).
 */
@Injectable()
export class MessageEditPermissions {
  constructor(private readonly principals: PrincipalService) {}

  /** Does the caller hold the group setting? System groups: from the role; others: their principal, loaded once. */
  inGroup(auth: AuthContext, groupId: number, allowEveryone: boolean): Promise<boolean> {
    return this.principals.userHolds(auth.user, auth.realm.id, groupId, allowEveryone);
  }

  /** Channel administrators: can_administer_channel_group, and organization administrators. */
  async isChannelAdmin(auth: AuthContext, channel: Pick<ChannelForEdit, 'canAdministerChannelGroup'>) {
    if (auth.user.role <= Role.ADMINISTRATOR) return true;
    return this.inGroup(auth, channel.canAdministerChannelGroup, false);
  }

  private async channelGrants(auth: AuthContext, channel: ChannelForEdit, groupId: number): Promise<boolean> {
    return (await this.isChannelAdmin(auth, channel)) || (await this.inGroup(auth, groupId, true));
  }

  async canEditTopic(auth: AuthContext, orig: ChannelForEdit, target: ChannelForEdit): Promise<boolean> {
    if (await this.inGroup(auth, auth.realm.can_move_messages_between_topics_group, true)) return true;
    for (const c of orig.id === target.id ? [orig] : [orig, target]) {
      if (!(await this.channelGrants(auth, c, c.canMoveMessagesWithinChannelGroup))) return false;
    }
    return true;
  }

  async canResolveTopics(auth: AuthContext, orig: ChannelForEdit, target: ChannelForEdit): Promise<boolean> {
    if (await this.inGroup(auth, auth.realm.can_resolve_topics_group, true)) return true;
    for (const c of orig.id === target.id ? [orig] : [orig, target]) {
      if (!(await this.channelGrants(auth, c, c.canResolveTopicsGroup))) return false;
    }
    return true;
  }

  async canMoveOutOfChannel(auth: AuthContext, orig: ChannelForEdit): Promise<boolean> {
    if (await this.inGroup(auth, auth.realm.can_move_messages_between_channels_group, false)) return true;
    return this.channelGrants(auth, orig, orig.canMoveMessagesOutOfChannelGroup);
  }

  /** Does the actor see the channel's whole history (else only the messages they have rows for)? */
  async historyAccess(auth: AuthContext, channel: ChannelForEdit): Promise<boolean> {
    const groups = channel.inviteOnly && !channel.subscribed ? await this.principals.groupIdsOf(auth.user.id) : null;
    return canAccessChannelHistory(auth.user, channel, channel.subscribed, groups);
  }
}
