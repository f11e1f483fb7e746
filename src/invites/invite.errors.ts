import { badRequest, ZulipError } from '../common/errors/zulip-error';
import { SettingsErrors } from '../users/user.errors';

/** One refused address of an invitation: [email, reason, deactivated] (Zulip's InvitationError.errors). */
export type InviteeError = [string, string, boolean];

/** Per-address reasons (zerver/lib/email_validation.py). */
export const InviteeTexts = {
  invalidAddress: SettingsErrors.invalidAddress().message,
  alreadyHasAccount: 'Already has an account.',
  deactivated: 'Account has been deactivated.',
};

const invitationFailed = (
  msg: string,
  errors: InviteeError[],
  sentInvitations: boolean,
  dailyLimitReached = false,
): ZulipError =>
  new ZulipError(msg, 'INVITATION_FAILED', 400, {
    errors,
    sent_invitations: sentInvitations,
    license_limit_reached: false,
    daily_limit_reached: dailyLimitReached,
  });

/** Errors of invitations (zerver/views/invite.py, zerver/actions/invites.py). */
export const InviteErrors = {
  noEmails: () => badRequest('You must specify at least one email address.'),
  invalidChannel: (id: number | string) => badRequest(`Invalid channel ID ${id}. No invites were sent.`),
  cannotSubscribeOthers: () => badRequest('You do not have permission to subscribe other users to channels.'),
  noSuchInvitation: () => badRequest('No such invitation'),
  alreadyRevoked: () => badRequest('Invitation has already been revoked'),
  /** Beyond the realm's daily cap or the per-request cap (check_invite_limit). */
  dailyLimit: () =>
    invitationFailed(
      'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.',
      [],
      false,
      true,
    ),
  someInvalid: (errors: InviteeError[]) =>
    invitationFailed("Some emails did not validate, so we didn't send any invitations.", errors, false),
  nobodyInvited: (errors: InviteeError[]) => invitationFailed("We weren't able to invite anyone.", errors, false),
  someSkipped: (errors: InviteeError[]) =>
    invitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      errors,
      true,
    ),
};
