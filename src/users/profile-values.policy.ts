import { renderDescription } from '../markdown';
import { FieldType, isUrl } from '../realm/custom-profile-fields.policy';
import { ParamErrors } from '../common/errors/param.errors';
import { CustomProfileFieldErrors } from '../realm/realm.errors';

/** A value of profile_data in PATCH /users: a string, a list of user ids (person picker), or null. */
export type ProfileValue = string | number[] | null;

export interface ProfileDataEntry {
  id: number;
  value: ProfileValue;
}

const SHORT_TEXT_LIMIT = 50;
const LONG_TEXT_LIMIT = 500;

function checkString(name: string, value: unknown): string {
  if (typeof value !== 'string') throw ParamErrors.notAString(name);
  return value;
}

function checkCapped(name: string, value: unknown, limit: number): string {
  const s = checkString(name, value);
  if ([...s].length > limit) throw ParamErrors.tooLong(name, limit);
  return s;
}

/** Python's strptime(value, "%Y-%m-%d"): a real calendar date. */
export function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

/**
 * Validates a value for a field that is not a person picker (CustomProfileField.FIELD_VALIDATORS
 * and validate_select_field), with the field's name in the messages. Returns the text to store.
 */
export function validateProfileValue(
  field: { name: string; fieldType: number; fieldData: string },
  value: unknown,
): string {
  const name = field.name;
  switch (field.fieldType) {
    case FieldType.SHORT_TEXT:
    case FieldType.EXTERNAL_ACCOUNT:
    case FieldType.PRONOUNS:
      return checkCapped(name, value, SHORT_TEXT_LIMIT);
    case FieldType.LONG_TEXT:
      return checkCapped(name, value, LONG_TEXT_LIMIT);
    case FieldType.DATE: {
      const s = checkString(name, value);
      if (!isDate(s)) throw ParamErrors.notADate(name);
      return s;
    }
    case FieldType.URL: {
      const s = checkString(name, value);
      if (!isUrl(s)) throw ParamErrors.notAUrl(name);
      return s;
    }
    case FieldType.SELECT: {
      const s = checkString(name, value);
      let options: Record<string, unknown> = {};
      try {
        options = JSON.parse(field.fieldData || '{}') as Record<string, unknown>;
      } catch {
        options = {};
      }
      if (!Object.prototype.hasOwnProperty.call(options, s)) {
        throw CustomProfileFieldErrors.invalidChoice(s, name);
      }
      return s;
    }
    default:
      throw CustomProfileFieldErrors.invalidFieldType();
  }
}

/** check_list(check_int)("User IDs", value) of a person-picker value. */
export function checkUserIdList(value: unknown): number[] {
  if (!Array.isArray(value)) throw ParamErrors.notAList('User IDs');
  value.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw ParamErrors.notAnInteger(`User IDs[${i}]`);
  });
  return value as number[];
}

/** Shape of the `profile_data` parameter: a list of `{id: int, value: str | list[int] | null}`. */
export function parseProfileData(raw: unknown): ProfileDataEntry[] {
  if (!Array.isArray(raw)) throw ParamErrors.notAList('profile_data');
  return raw.map((item, i) => {
    const at = `profile_data[${i}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw ParamErrors.notADict(at);
    const obj = item as Record<string, unknown>;
    if (!('id' in obj)) throw ParamErrors.fieldMissing(`${at}["id"]`);
    if (typeof obj.id !== 'number' || !Number.isInteger(obj.id)) throw ParamErrors.notAnInteger(`${at}["id"]`);
    if (!('value' in obj)) throw ParamErrors.fieldMissing(`${at}["value"]`);
    const v = obj.value;
    const ok =
      v === null ||
      typeof v === 'string' ||
      (Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isInteger(x)));
    if (!ok) throw ParamErrors.notAString(`${at}["value"]`);
    for (const key of Object.keys(obj)) {
      if (key !== 'id' && key !== 'value') throw ParamErrors.unexpectedArgument(key, at);
    }
    return { id: obj.id, value: v as ProfileValue };
  });
}

/** A value that clears the field: null, "" or an empty list. */
export function isEmptyProfileValue(value: ProfileValue): boolean {
  return value === null || value.length === 0;
}

/**
 * HTML of a text field's value: Zulip renders these like channel descriptions (Markdown
 * without link previews or realm data).
 */
export function renderProfileText(text: string): string {
  return renderDescription(text);
}
