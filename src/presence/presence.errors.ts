import { badRequest } from '../common/errors/zulip-error';

/** Errors about presence (zerver/views/presence.py). */
export const PresenceErrors = {
  invalidStatus: (status: string) => badRequest(`Invalid status: ${status}`),
  botPresence: () => badRequest('Presence is not supported for bot users.'),
  noPresenceData: (userIdOrEmail: string) => badRequest(`No presence data for ${userIdOrEmail}`),
};

/** Errors about user status (zerver/lib/user_status.py check_update_user_status). */
export const UserStatusErrors = {
  noNewValues: () => badRequest('Client did not pass any new values.'),
  emojiNameRequired: () => badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.'),
};
