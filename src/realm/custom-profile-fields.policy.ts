import { Limits } from '../common/limits';
import type { CustomProfileField } from './custom-profile-field.entity';
import { nulPosition } from './text-checks';
import { ParamErrors } from '../common/errors/param.errors';
import { CustomProfileFieldErrors } from './realm.errors';

/** Field types (CustomProfileField.SHORT_TEXT … PRONOUNS). */
export const FieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** POST /register `custom_profile_field_types`: keyword → id and display name. */
export const CUSTOM_PROFILE_FIELD_TYPES: Record<string, { id: number; name: string }> = {
  SHORT_TEXT: { id: FieldType.SHORT_TEXT, name: 'Text (short)' },
  LONG_TEXT: { id: FieldType.LONG_TEXT, name: 'Text (long)' },
  SELECT: { id: FieldType.SELECT, name: 'List of options' },
  DATE: { id: FieldType.DATE, name: 'Date' },
  URL: { id: FieldType.URL, name: 'Link' },
  USER: { id: FieldType.USER, name: 'Users' },
  EXTERNAL_ACCOUNT: { id: FieldType.EXTERNAL_ACCOUNT, name: 'External account' },
  PRONOUNS: { id: FieldType.PRONOUNS, name: 'Pronouns' },
};

const VALID_FIELD_TYPES = new Set<number>(Object.values(FieldType));

/** Types whose values are rendered as Markdown (CustomProfileField.is_renderable). */
export function isRenderableFieldType(fieldType: number): boolean {
  return fieldType === FieldType.SHORT_TEXT || fieldType === FieldType.LONG_TEXT;
}

/** zerver/lib/external_accounts.py DEFAULT_EXTERNAL_ACCOUNTS. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { name: string; hint: string; urlPattern: string }> = {
  github: { name: 'GitHub', hint: 'Enter your GitHub username', urlPattern: 'https://github.com/%(username)s' },
  twitter: { name: 'Twitter', hint: 'Enter your Twitter username', urlPattern: 'https://twitter.com/%(username)s' },
};

export type FieldData = Record<string, unknown>;

/** Django's URLValidator, approximately: http(s)/ftp(s), a dotted host, localhost or an IP. */
export function isUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (!['http:', 'https:', 'ftp:', 'ftps:'].includes(url.protocol)) return false;
  const host = url.hostname;
  if (!host) return false;
  if (host === 'localhost' || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[')) return true;
  return /^([a-z0-9\u00a1-\uffff]([a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?\.)+[a-z\u00a1-\uffff-]{2,63}\.?$/i.test(
    host,
  );
}

function checkRequiredString(name: string, value: unknown): string {
  if (typeof value !== 'string') throw ParamErrors.notAString(name);
  if (!value.trim()) throw CustomProfileFieldErrors.blank(name);
  return value;
}

/** check_dict_only(required, optional): missing keys, then sub-validators, then unexpected keys. */
function checkDictOnly(
  name: string,
  value: unknown,
  required: Array<[string, (n: string, v: unknown) => unknown]>,
  optional: Array<[string, (n: string, v: unknown) => unknown]> = [],
): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw ParamErrors.notADict(name);
  const obj = value as Record<string, unknown>;
  for (const [key, check] of required) {
    if (!(key in obj)) throw ParamErrors.keyMissing(key, name);
    check(`${name}["${key}"]`, obj[key]);
  }
  for (const [key, check] of optional) if (key in obj) check(`${name}["${key}"]`, obj[key]);
  const known = new Set([...required, ...optional].map(([k]) => k));
  const extra = Object.keys(obj).filter((k) => !known.has(k));
  if (extra.length > 0) throw ParamErrors.unexpectedArguments(extra);
  return obj;
}

/** validate_select_field_data: non-empty keys, {text, order} strings, no duplicate texts. */
export function validateSelectFieldData(fieldData: FieldData): void {
  const texts = new Set<string>();
  for (const [key, option] of Object.entries(fieldData)) {
    if (!key.trim()) throw CustomProfileFieldErrors.choiceValueBlank();
    const valid = checkDictOnly('field_data', option, [
      ['text', checkRequiredString],
      ['order', checkRequiredString],
    ]);
    texts.add(valid.text as string);
  }
  if (texts.size !== Object.keys(fieldData).length) throw CustomProfileFieldErrors.duplicateChoices();
}

function checkUrlPattern(name: string, value: unknown): string {
  if (typeof value !== 'string') throw ParamErrors.notAString(name);
  if (value.split('%(username)s').length !== 2) throw CustomProfileFieldErrors.urlPatternWithoutUsername();
  if (!isUrl(value.replace('%(username)s', 'username'))) throw ParamErrors.notAUrl(name);
  return value;
}

/** validate_external_account_field_data: a known subtype, or `custom` with a URL pattern. */
export function validateExternalAccountFieldData(fieldData: FieldData): void {
  checkDictOnly('field_data', fieldData, [['subtype', checkRequiredString]], [['url_pattern', checkUrlPattern]]);
  const subtype = fieldData.subtype as string;
  if (subtype in DEFAULT_EXTERNAL_ACCOUNTS) return;
  if (subtype === 'custom') {
    if (!('url_pattern' in fieldData)) throw CustomProfileFieldErrors.customExternalAccountWithoutUrlPattern();
    return;
  }
  throw CustomProfileFieldErrors.invalidExternalAccountType();
}

export function isDefaultExternalField(fieldType: number, fieldData: FieldData): boolean {
  return fieldType === FieldType.EXTERNAL_ACCOUNT && fieldData.subtype !== 'custom';
}

/**
 * Zulip's validate_custom_profile_field, in its order: field data, label and hint (not for a
 * default external account, whose label comes from the defaults), type, summary support.
 */
export function validateCustomProfileField(
  name: string,
  hint: string,
  fieldType: number,
  fieldData: FieldData,
  displayInProfileSummary: boolean,
): void {
  if (fieldType === FieldType.SELECT) {
    if (Object.keys(fieldData).length < 1) throw CustomProfileFieldErrors.noChoices();
    validateSelectFieldData(fieldData);
  } else if (fieldType === FieldType.EXTERNAL_ACCOUNT) {
    validateExternalAccountFieldData(fieldData);
  }
  if (!isDefaultExternalField(fieldType, fieldData)) {
    if (!name.trim()) throw CustomProfileFieldErrors.labelBlank();
    const nul = nulPosition(name);
    if (nul !== undefined) throw ParamErrors.invalidCharacter('label', nul);
    if ([...hint].length > Limits.MAX_PROFILE_FIELD_HINT_LENGTH) {
      throw ParamErrors.tooLong('hint', Limits.MAX_PROFILE_FIELD_HINT_LENGTH);
    }
    if ([...name].length > Limits.MAX_PROFILE_FIELD_NAME_LENGTH) {
      throw ParamErrors.tooLong('name', Limits.MAX_PROFILE_FIELD_NAME_LENGTH);
    }
  }
  if (!VALID_FIELD_TYPES.has(fieldType)) throw CustomProfileFieldErrors.invalidFieldType();
  if (displayInProfileSummary && (fieldType === FieldType.LONG_TEXT || fieldType === FieldType.USER)) {
    throw CustomProfileFieldErrors.notSupportedInSummary();
  }
}

/** The stored `field_data` for a new or updated field (only list and external-account fields keep it). */
export function storedFieldData(fieldType: number, fieldData: FieldData | undefined): string {
  if (fieldType === FieldType.SELECT || fieldType === FieldType.EXTERNAL_ACCOUNT) {
    return JSON.stringify(fieldData ?? {});
  }
  return '';
}

/** CustomProfileField.as_dict: `display_in_profile_summary` only when true. */
export function customProfileFieldDict(field: CustomProfileField): Record<string, unknown> {
  const dict: Record<string, unknown> = {
    id: field.id,
    name: field.name,
    type: field.fieldType,
    hint: field.hint,
    field_data: field.fieldData,
    order: field.order,
    required: field.required,
    editable_by_user: field.editableByUser,
  };
  if (field.displayInProfileSummary) dict.display_in_profile_summary = true;
  return dict;
}

/** POST /register `realm_default_external_accounts`: the default external account types. */
export function defaultExternalAccountsForApi(): Record<
  string,
  { name: string; text: string; hint: string; url_pattern: string }
> {
  const out: Record<string, { name: string; text: string; hint: string; url_pattern: string }> = {};
  for (const [key, account] of Object.entries(DEFAULT_EXTERNAL_ACCOUNTS)) {
    out[key] = { name: account.name, text: account.name, hint: account.hint, url_pattern: account.urlPattern };
  }
  return out;
}
