import { IsBoolean, IsInt, IsString, MaxLength, ValidateBy } from 'class-validator';
import { OptionalArg } from '../../common/http/params';
import { REALM_GROUP_SETTING_NAMES, RealmGroupSettingName } from '../../realm/system-groups';
import { IsGroupSettingChange } from '../../users/dto/group-setting.validators';
import {
  EDIT_HISTORY_VISIBILITY_POLICIES,
  REALM_TOPICS_POLICIES,
  TIME_LIMIT_SETTINGS,
  TimeLimitSetting,
} from '../realm-settings.policy';
import { ParamErrors } from '../../common/errors/param.errors';

/** An integer or a string (the time limits: seconds, or "unlimited"). */
function IsIntOrString(): PropertyDecorator {
  return ValidateBy({
    name: 'isIntOrString',
    validator: {
      validate: (value: unknown) => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)),
      defaultMessage: (args) => ParamErrors.notAnInteger(args?.property ?? 'value').message,
    },
  });
}

function IsTopicsPolicy(): PropertyDecorator {
  return ValidateBy({
    name: 'isTopicsPolicy',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && value in REALM_TOPICS_POLICIES,
      defaultMessage: () => ParamErrors.invalid('topics_policy').message,
    },
  });
}

function IsEditHistoryVisibilityPolicy(): PropertyDecorator {
  return ValidateBy({
    name: 'isEditHistoryVisibilityPolicy',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && value in EDIT_HISTORY_VISIBILITY_POLICIES,
      defaultMessage: () => ParamErrors.invalid('message_edit_history_visibility_policy').message,
    },
  });
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface UpdateRealmArgs extends Partial<Record<RealmGroupSettingName, unknown>> {
  allow_message_editing?: boolean;
  description?: string;
  message_edit_history_visibility_policy?: string;
  moderation_request_channel_id?: number;
  name?: string;
  topics_policy?: string;
  message_content_delete_limit_seconds?: number | string;
  message_content_edit_limit_seconds?: number | string;
  move_messages_within_stream_limit_seconds?: number | string;
  move_messages_between_streams_limit_seconds?: number | string;
}

/** DTO of PATCH /realm: the supported parameters, declared in Zulip's alphabetical order. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class UpdateRealmArgs {}

const decorators: Record<string, PropertyDecorator[]> = {
  allow_message_editing: [OptionalArg({ json: true }), IsBoolean()],
  description: [OptionalArg({ json: false }), IsString(), MaxLength(1000)],
  message_edit_history_visibility_policy: [OptionalArg({ json: false }), IsString(), IsEditHistoryVisibilityPolicy()],
  moderation_request_channel_id: [OptionalArg({ json: true }), IsInt()],
  name: [OptionalArg({ json: false }), IsString(), MaxLength(40)],
  topics_policy: [OptionalArg({ json: false }), IsString(), IsTopicsPolicy()],
};
for (const name of TIME_LIMIT_SETTINGS as readonly TimeLimitSetting[]) {
  decorators[name] = [OptionalArg({ json: true }), IsIntOrString()];
}
for (const name of REALM_GROUP_SETTING_NAMES) decorators[name] = [OptionalArg({ json: true }), IsGroupSettingChange()];

export const UPDATE_REALM_PARAMS = Object.keys(decorators).sort();
for (const name of UPDATE_REALM_PARAMS) {
  for (const decorate of decorators[name]) decorate(UpdateRealmArgs.prototype, name);
}
