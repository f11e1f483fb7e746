import { Limits } from '../common/limits';
import { UserErrors } from './user.errors';

/** UserProfile.MIN_NAME_LENGTH. */
export const MIN_NAME_LENGTH = 2;
/** UserProfile.NAME_INVALID_CHARS: characters that would confuse mention syntax. */
export const NAME_INVALID_CHARS = ['*', '`', '\\', '>', '"', '@'];

/** Position (1-based) of the first control, surrogate or unassigned character (check_string_is_printable). */
export function firstUnprintable(text: string): number | undefined {
  let i = 0;
  for (const ch of text) {
    i += 1;
    if (/[\p{Cc}\p{Cs}\p{Cn}]/u.test(ch)) return i;
  }
  return undefined;
}

/**
 * Zulip's check_full_name: strips the name and checks its length, characters and that it does
 * not end like a mention disambiguation (`|15`). Returns the stripped name.
 */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  const length = [...name].length;
  if (length > Limits.MAX_FULL_NAME_LENGTH) throw UserErrors.nameTooLong();
  if (length < MIN_NAME_LENGTH) throw UserErrors.nameTooShort();
  if (firstUnprintable(name) !== undefined || NAME_INVALID_CHARS.some((c) => name.includes(c))) {
    throw UserErrors.invalidNameCharacters();
  }
  if (/\|\d+$/.test(raw)) throw UserErrors.invalidNameFormat();
  return name;
}

/** Minimum password length (settings.PASSWORD_MIN_LENGTH) and the most accepted. */
export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 100;

/**
 * A reduced check_password_strength: Zulip also requires zxcvbn to estimate at least 10000
 * guesses; here a password must have the minimum length and at least 4 distinct characters.
 */
export function isStrongEnoughPassword(password: string): boolean {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) return false;
  return new Set(password).size >= 4;
}
