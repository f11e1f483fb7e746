import { createHash } from 'node:crypto';
import { Role } from '../realm/system-groups';
import type { UserProfile } from './user.entity';

/** Python's datetime.isoformat() for a UTC instant: `2019-10-20T07:50:53.728000+00:00`. */
export function isoFormat(date: Date): string {
  const iso = date.toISOString(); // 2019-10-20T07:50:53.728Z
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}000+00:00`;
}

/** md5 hex digests of gravatar emails: a pure function, memoised for realm-wide user lists (bounded). */
const gravatarHashes = new Map<string, string>();
const GRAVATAR_MEMO_LIMIT = 50_000;

function gravatarUrl(email: string, version: number): string {
  const key = email.trim().toLowerCase();
  let hash = gravatarHashes.get(key);
  if (hash === undefined) {
    hash = createHash('md5').update(key).digest('hex');
    if (gravatarHashes.size >= GRAVATAR_MEMO_LIMIT) gravatarHashes.clear();
    gravatarHashes.set(key, hash);
  }
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${version}`;
}

/**
 * A user's avatar URL, the one place every avatar URL is built. The gravatar hash is of the email
 * every viewer sees (the API `email`): a hash of a hidden address would reveal it (md5 of an
 * address is easy to confirm), so with email_address_visibility other than everyone the URL is
 * that of `user<id>@<realm host>` (see DECISIONS.md).
 */
export function userAvatarUrl(
  user: { id: number; deliveryEmail: string; avatarVersion: number },
  emailVisibility: number,
  realmHost: string,
): string {
  return gravatarUrl(visibleEmail(user, emailVisibility, realmHost), user.avatarVersion);
}

/** The API `email` of a user whose address has visibility `visibility`. */
export function visibleEmail(
  user: { id: number; deliveryEmail: string },
  visibility: number,
  realmHost: string,
): string {
  return visibility === EmailVisibility.EVERYONE ? user.deliveryEmail : `user${user.id}@${realmHost}`;
}

/** Email visibility codes (UserProfile.EMAIL_ADDRESS_VISIBILITY_*). */
export const EmailVisibility = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

/** May `viewerRole` see the real email of a user with visibility `visibility`? */
export function canSeeDeliveryEmail(viewerRole: number, visibility: number): boolean {
  switch (visibility) {
    case EmailVisibility.EVERYONE:
      return true;
    case EmailVisibility.MEMBERS:
      return viewerRole !== Role.GUEST;
    case EmailVisibility.MODERATORS:
      return viewerRole <= Role.MODERATOR;
    case EmailVisibility.ADMINS:
      return viewerRole <= Role.ADMINISTRATOR;
    default:
      return false;
  }
}

/** The API `email`: the real address when visible to everyone, else `user<id>@<realm host>`. */
export function apiEmail(
  user: { id: number; deliveryEmail: string; settings: { email_address_visibility: number } },
  realmHost: string,
): string {
  return visibleEmail(user, user.settings.email_address_visibility, realmHost);
}

export interface UserDictOptions {
  viewer: Pick<UserProfile, 'id' | 'role'>;
  realmHost: string;
  clientGravatar: boolean;
  profileData?: Record<string, { value: string; rendered_value?: string | null }>;
}

/**
 * What a user dict is made of: a UserProfile, or a lean row of the same fields
 * (UsersRepository.listDictRowsInRealm) whose `dateJoined` is already the isoFormat text.
 */
export type UserDictSource = Pick<
  UserProfile,
  | 'id'
  | 'deliveryEmail'
  | 'fullName'
  | 'role'
  | 'isActive'
  | 'isBot'
  | 'botType'
  | 'botOwnerId'
  | 'timezone'
  | 'avatarSource'
  | 'avatarVersion'
> & { dateJoined: Date | string; settings: { email_address_visibility: number } };

/** Zulip's user dict (zerver/lib/users.py format_user_row). */
export function userDict(user: UserDictSource, opts: UserDictOptions): Record<string, unknown> {
  const visible =
    user.id === opts.viewer.id || canSeeDeliveryEmail(opts.viewer.role, user.settings.email_address_visibility);
  const dict: Record<string, unknown> = {
    email: apiEmail(user, opts.realmHost),
    user_id: user.id,
    avatar_version: user.avatarVersion,
    is_admin: user.role <= Role.ADMINISTRATOR,
    is_owner: user.role === Role.OWNER,
    is_guest: user.role === Role.GUEST,
    is_bot: user.isBot,
    full_name: user.fullName,
    timezone: user.timezone,
    is_active: user.isActive,
    date_joined: typeof user.dateJoined === 'string' ? user.dateJoined : isoFormat(user.dateJoined),
    delivery_email: visible ? user.deliveryEmail : null,
    role: user.role,
    avatar_url:
      opts.clientGravatar && user.avatarSource === 'G'
        ? null
        : userAvatarUrl(user, user.settings.email_address_visibility, opts.realmHost),
  };
  if (user.isBot) {
    dict.bot_type = user.botType;
    dict.bot_owner_id = user.botOwnerId;
  }
  if (opts.profileData) dict.profile_data = opts.profileData;
  return dict;
}
