import { OptionalArg } from '../../common/http/params';
import { REALM_GROUP_SETTING_NAMES, RealmGroupSettingName } from '../../realm/system-groups';
import { IsGroupSettingChange } from '../../users/dto/group-setting.validators';
import { OTHER_PARAM_VALIDATORS, REALM_PROPERTIES } from '../realm-properties';

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface UpdateRealmArgs extends Partial<Record<RealmGroupSettingName, unknown>> {
  [name: string]: unknown;
  authentication_methods?: Record<string, unknown>;
  string_id?: string;
}

/**
 * DTO of PATCH /realm: every parameter of Zulip's update_realm, declared in its (alphabetical)
 * order from the settings tables (REALM_PROPERTIES, the channel settings, the group settings).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class UpdateRealmArgs {}

const decorators: Record<string, PropertyDecorator[]> = {};
for (const [name, def] of Object.entries({ ...REALM_PROPERTIES, ...OTHER_PARAM_VALIDATORS })) {
  decorators[name] = [OptionalArg({ json: def.json }), ...def.validators];
}
for (const name of REALM_GROUP_SETTING_NAMES) decorators[name] = [OptionalArg({ json: true }), IsGroupSettingChange()];

export const UPDATE_REALM_PARAMS = Object.keys(decorators).sort();
for (const name of UPDATE_REALM_PARAMS) {
  for (const decorate of decorators[name]) decorate(UpdateRealmArgs.prototype, name);
}
