import { IsBoolean, IsInt, IsString, ValidateBy } from 'class-validator';
import { OptionalArg } from '../common/http/params';
import { NOTIFICATION_SOUNDS, SettingDef, USER_SETTING_DEFS, UserSettingName } from './user-settings';
import { ParamErrors } from '../common/errors/param.errors';
import { RealmErrors } from './realm.errors';

/**
 * Settings an administrator may not set for new users: the login and marketing email choices
 * (security and consent of the user) and the language and data-export choices, as Zulip's
 * update_realm_user_settings_defaults.
 */
const NOT_REALM_DEFAULTS = new Set<UserSettingName>([
  'default_language',
  'enable_login_emails',
  'enable_marketing_emails',
  'allow_private_data_export',
]);

/** The parameters of PATCH /realm/user_settings_defaults, in Zulip's (alphabetical) order. */
export const REALM_DEFAULT_SETTING_NAMES = (Object.keys(USER_SETTING_DEFS) as UserSettingName[])
  .filter((name) => !NOT_REALM_DEFAULTS.has(name))
  .sort();

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

function inList(name: string, values: readonly (number | string)[], message: string): PropertyDecorator {
  return ValidateBy({
    name: `inList_${name}`,
    validator: {
      validate: (value: unknown) => values.includes(value as never),
      defaultMessage: () => message,
    },
  });
}

function int32(name: string): PropertyDecorator {
  return ValidateBy({
    name: `int32_${name}`,
    validator: {
      validate: (value: unknown) => typeof value === 'number' && value >= INT32_MIN && value <= INT32_MAX,
      defaultMessage: () => ParamErrors.invalid(name).message,
    },
  });
}

/** The parameter decorators of one setting (type, allowed values), shared by PATCH /settings. */
export function decoratorsFor(name: string, def: SettingDef): PropertyDecorator[] {
  const notInList = ParamErrors.notInList(name).message;
  switch (def.kind) {
    case 'bool':
      return [OptionalArg({ json: true }), IsBoolean()];
    case 'intEnum':
      return [OptionalArg({ json: true }), IsInt(), inList(name, def.values, notInList)];
    case 'int':
      return [OptionalArg({ json: true }), IsInt(), int32(name)];
    case 'strEnum':
      return [
        OptionalArg({ json: false }),
        IsString(),
        inList(name, def.values, def.message === 'valueError' ? notInList : ParamErrors.invalid(name).message),
      ];
    case 'str':
      return [OptionalArg({ json: false }), IsString()];
  }
}

/** DTO of PATCH /realm/user_settings_defaults, generated from the settings table. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class UpdateRealmUserDefaultsArgs {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface UpdateRealmUserDefaultsArgs extends Partial<Record<UserSettingName, unknown>> {}
for (const name of REALM_DEFAULT_SETTING_NAMES) {
  for (const decorate of decoratorsFor(name, USER_SETTING_DEFS[name]))
    decorate(UpdateRealmUserDefaultsArgs.prototype, name);
}

/** Seconds in a week: the longest email batching period. */
export const MAX_EMAIL_BATCHING_PERIOD_SECONDS = 7 * 24 * 60 * 60;

/**
 * Zulip's check_settings_values: the notification sound must be one the server ships (or
 * "none"), and the email batching period 1 second to 1 week.
 */
export function checkSettingsValues(notificationSound: unknown, batchingPeriod: unknown): void {
  if (
    typeof notificationSound === 'string' &&
    !(NOTIFICATION_SOUNDS as readonly string[]).includes(notificationSound)
  ) {
    throw RealmErrors.invalidNotificationSound(notificationSound);
  }
  if (
    typeof batchingPeriod === 'number' &&
    (batchingPeriod <= 0 || batchingPeriod > MAX_EMAIL_BATCHING_PERIOD_SECONDS)
  ) {
    throw RealmErrors.invalidEmailBatchingPeriod(batchingPeriod);
  }
}
