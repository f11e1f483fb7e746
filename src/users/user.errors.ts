import { ParamErrors } from '../common/errors/param.errors';
import { badRequest, ZulipError } from '../common/errors/zulip-error';

/** Errors about users, their accounts, names, emails and roles. */
export const UserErrors = {
  invalidId: (id: number | string) => badRequest(`Invalid user ID: ${id}`),
  /** The wording of Zulip's recipient lookup (no colon): typing notifications and sends. */
  invalidRecipientId: (id: number | string) => badRequest(`Invalid user ID ${id}`),
  invalidIds: (ids: Array<number | string>) => badRequest(`Invalid user IDs: ${ids.join(', ')}`),
  noSuchUser: () => badRequest('No such user'),
  /** access_bot_by_id: not a bot of this realm. */
  noSuchBot: () => badRequest('No such bot'),
  deactivated: () => badRequest('User is deactivated'),
  alreadyActive: () => badRequest('User is already active.'),
  deactivatedWithId: (id: number) => badRequest(`User with ID ${id} is deactivated`),
  botWithId: (id: number) => badRequest(`User with ID ${id} is a bot`),
  invalidRole: () => ParamErrors.invalid('role'),
  invalidEmail: () => badRequest('Invalid email address.'),
  /** Django's EmailValidator text (login and development endpoints). */
  enterValidEmail: () => badRequest('Enter a valid email address.'),
  emailInUse: (email: string) => badRequest(`Email '${email}' already in use`),
  invalidNewEmail: () => badRequest('Invalid new email address.'),
  newEmailInUse: () => badRequest('New email value error: Email is already in use.'),
  /** POST /users. */
  emailAlreadyInUse: () => badRequest('Email is already in use.'),
  badNameOrUsername: () => badRequest('Bad name or username'),
  passwordTooWeak: () => badRequest('The password is too weak.'),
  cannotChangeEmails: () => badRequest('User not authorized to change user emails'),
  cannotCreateUsers: () => badRequest('User not authorized to create users'),
  onlyOwnerKeepsRole: () => badRequest('The owner permission cannot be removed from the only organization owner.'),
  cannotDeactivateOnlyOwner: () => badRequest('Cannot deactivate the only organization owner'),
  /** DELETE /users/me (CannotDeactivateLastUserError): the realm's last active user or owner. */
  cannotDeactivateLastUser: (isLastOwner: boolean) => {
    const entity = isLastOwner ? 'organization owner' : 'user';
    return new ZulipError(`Cannot deactivate the only ${entity}.`, 'CANNOT_DEACTIVATE_LAST_USER', 400, {
      is_last_owner: isLastOwner,
      entity,
    });
  },
  nameTooLong: () => badRequest('Name too long!'),
  nameTooShort: () => badRequest('Name too short!'),
  invalidNameCharacters: () => badRequest('Invalid characters in name!'),
  invalidNameFormat: () => badRequest('Invalid format!'),
};

/** Errors of PATCH /settings (a user's own account and preferences). */
export const SettingsErrors = {
  invalidDefaultLanguage: () => badRequest('Invalid default_language'),
  unrecognizedTimezone: (param: string) => badRequest(`${param} is not a recognized time zone`),
  wrongPassword: () => badRequest('Wrong password!'),
  newPasswordTooWeak: () => badRequest('New password is too weak!'),
  emailChangesDisabled: () => badRequest('Email address changes are disabled in this organization.'),
  invalidAddress: () => badRequest('Invalid address.'),
};

/** Errors about user groups and their memberships. */
export const UserGroupErrors = {
  invalidGroup: () => badRequest('Invalid user group'),
  invalidId: (id: number) => badRequest(`Invalid user group ID: ${id}`),
  deactivated: () => badRequest('User group is deactivated.'),
  nameEmpty: () => badRequest("User group name can't be empty!"),
  nameTooLong: (max: number) => badRequest(`User group name cannot exceed ${max} characters.`),
  reservedPrefix: (prefix: string) => badRequest(`User group name cannot start with '${prefix}'.`),
  alreadyExists: (name: string) => badRequest(`User group '${name}' already exists.`),
  nothingToDoWithSubgroups: () =>
    badRequest('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".'),
  noNewData: () => badRequest('No new data supplied'),
  alreadyMember: (userId: number) => badRequest(`User ${userId} is already a member of this group`),
  notAMember: (userId: number) => badRequest(`There is no member '${userId}' in this user group`),
  alreadySubgroup: (groupId: number) => badRequest(`User group ${groupId} is already a subgroup of this group.`),
  alreadySubgroupOfSubgroup: (groupId: number) =>
    badRequest(`User group ${groupId} is already a subgroup of one of the passed subgroups.`),
  notASubgroup: (groupId: number) => badRequest(`User group ${groupId} is not a subgroup of this group.`),
  inUse: (objections: unknown[]) =>
    new ZulipError('Cannot deactivate user group in use.', 'CANNOT_DEACTIVATE_GROUP_IN_USE', 400, { objections }),
};

/** Errors about group-setting values (who may do what). */
export const GroupSettingErrors = {
  systemGroupRequired: (setting: string) =>
    new ZulipError(`'${setting}' must be a system user group.`, 'SYSTEM_GROUP_REQUIRED'),
  groupNotAllowed: (setting: string, groupName: string) =>
    badRequest(`'${setting}' setting cannot be set to '${groupName}' group.`),
};

/** Errors about navigation views (a user's left-sidebar views). */
export const NavigationViewErrors = {
  doesNotExist: () => new ZulipError('Navigation view does not exist.', 'NOT_FOUND', 404),
  alreadyExists: () => badRequest('Navigation view already exists.'),
  builtInWithName: () => badRequest('Built-in views cannot have a custom name.'),
  customWithoutName: () => badRequest('Custom views must have a valid name.'),
};

/** Errors about muting users. */
export const MutedUserErrors = {
  cannotMuteSelf: () => badRequest('Cannot mute self'),
  alreadyMuted: () => badRequest('User already muted'),
  notMuted: () => badRequest('User is not muted'),
};
