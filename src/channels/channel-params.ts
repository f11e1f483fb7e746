import { Limits } from '../common/limits';
import {
  CHANNEL_GROUP_SETTING_NAMES,
  ChannelGroupSettingName,
  BOOLEAN_SUBSCRIPTION_PROPERTIES,
  TopicsPolicyName,
  TOPICS_POLICY_NAMES,
} from './channel-settings';
import { isValidColor } from './channels.policy';
import type { GroupSettingChange } from './channel-admin.service';
import type { PropertyChange, SubscriptionRequestItem } from './subscriptions.service';
import { ParamErrors } from '../common/errors/param.errors';
import { ChannelErrors, SubscriptionErrors } from './channel.errors';

/**
 * Decoding of the structured parameters of the channel endpoints, with Zulip's error texts
 * (pydantic models in zerver/views/streams.py). Pure functions, called by the controllers before
 * any service work.
 */

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** `subscriptions` of POST /users/me/subscriptions: `[{name, color?, description?}]`. */
export function parseSubscriptionItems(list: unknown[], param = 'subscriptions'): SubscriptionRequestItem[] {
  return list.map((item, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(item)) {
      throw SubscriptionErrors.invalidAddItem(at);
    }
    if (!('name' in item)) throw ParamErrors.fieldMissing(`${at}["name"]`);
    if (typeof item.name !== 'string') throw ParamErrors.notAString(`${at}["name"]`);
    const out: SubscriptionRequestItem = { name: item.name };
    if (item.color !== undefined && item.color !== null) {
      if (typeof item.color !== 'string') throw ParamErrors.notAString(`${at}["color"]`);
      out.color = item.color;
    }
    if (item.description !== undefined && item.description !== null) {
      if (typeof item.description !== 'string') throw ParamErrors.notAString(`${at}["description"]`);
      if ([...item.description].length > Limits.MAX_STREAM_DESCRIPTION_LENGTH) {
        throw ParamErrors.tooLong(`${at}["description"]`, Limits.MAX_STREAM_DESCRIPTION_LENGTH);
      }
      out.description = item.description;
    }
    if (out.color !== undefined && !isValidColor(out.color)) {
      throw SubscriptionErrors.invalidAddColor(at);
    }
    return out;
  });
}

/** `subscriptions` of DELETE /users/me/subscriptions: a list of names. */
export function parseChannelNames(list: unknown[], param = 'subscriptions'): string[] {
  return list.map((item, i) => {
    if (typeof item !== 'string') throw ParamErrors.notAString(`${param}[${i}]`);
    return item;
  });
}

/** `principals`: all user ids or all emails (`list[str] | list[int]`). */
export function parsePrincipals(value: unknown): number[] | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw ParamErrors.notAList('principals');
  if (value.every((v): v is string => typeof v === 'string')) return value;
  if (value.every(isInt)) return value;
  const i = value.findIndex((v) => typeof v !== 'string');
  throw ParamErrors.notAString(`principals["list[str]"][${i}]`);
}

/** message_retention_days: JSON (`30`, `"unlimited"`) or plain text (`unlimited`). */
export function parseRetentionParam(raw: string): unknown {
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v === 'number' || typeof v === 'string') return v;
    return raw;
  } catch {
    return raw;
  }
}

/** topics_policy: one of the four names, as plain text or a JSON string. */
export function parseTopicsPolicy(raw: string | undefined): TopicsPolicyName | undefined {
  if (raw === undefined) return undefined;
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  if (typeof value === 'string' && (TOPICS_POLICY_NAMES as string[]).includes(value)) return value as TopicsPolicyName;
  throw ChannelErrors.invalidTopicsPolicy();
}

/** folder_id of PATCH /streams: an integer or null. */
export function parseNullableFolderId(value: unknown): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (!isInt(value)) throw ParamErrors.notAnInteger('folder_id');
  return value;
}

/** A `{new, old?}` group-setting change of PATCH /streams. */
export function parseGroupSettingChange(name: string, value: unknown): GroupSettingChange {
  if (!isObject(value)) throw ParamErrors.notADict(name);
  for (const key of Object.keys(value)) {
    if (key !== 'new' && key !== 'old') throw ParamErrors.unexpectedArgument(key, name);
  }
  if (!('new' in value)) throw ParamErrors.fieldMissing(`${name}["new"]`);
  return value.old === undefined ? { new: value.new } : { new: value.new, old: value.old };
}

/** The group-setting parameters present in a DTO. */
export function pickGroupSettings<T>(
  args: Record<string, unknown>,
  map: (name: ChannelGroupSettingName, value: unknown) => T,
): Partial<Record<ChannelGroupSettingName, T>> {
  const out: Partial<Record<ChannelGroupSettingName, T>> = {};
  for (const name of CHANNEL_GROUP_SETTING_NAMES) {
    if (args[name] !== undefined) out[name] = map(name, args[name]);
  }
  return out;
}

/** `subscription_data` of POST /users/me/subscriptions/properties. */
export function parsePropertyChanges(list: unknown[]): PropertyChange[] {
  return list.map((item, i) => {
    const at = `subscription_data[${i}]`;
    if (!isObject(item)) {
      throw SubscriptionErrors.invalidPropertyChange(at);
    }
    for (const key of ['stream_id', 'property', 'value']) {
      if (!(key in item)) throw ParamErrors.fieldMissing(`${at}["${key}"]`);
    }
    if (!isInt(item.stream_id)) throw ParamErrors.notAnInteger(`${at}["stream_id"]`);
    if (typeof item.property !== 'string') throw ParamErrors.notAString(`${at}["property"]`);
    const property = item.property;
    const value = item.value;
    if (property === 'color') {
      if (!isValidColor(value)) throw SubscriptionErrors.invalidColor(at);
      return { streamId: item.stream_id, property, value };
    }
    if ((BOOLEAN_SUBSCRIPTION_PROPERTIES as readonly string[]).includes(property)) {
      if (typeof value !== 'boolean') throw ParamErrors.notABoolean(property);
      return { streamId: item.stream_id, property: property as PropertyChange['property'], value };
    }
    throw SubscriptionErrors.unknownProperty(property);
  });
}
