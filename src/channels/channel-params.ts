import { Errors } from '../common/errors/zulip-error';
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

/**
 * Decoding of the structured parameters of the channel endpoints, with Zulip's error texts
 * (pydantic models in zerver/views/streams.py). Pure functions, called by the controllers before
 * any service work.
 */

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** `subscriptions` of POST /users/me/subscriptions: `[{name, color?, description?}]`. */
export function parseSubscriptionItems(list: unknown[]): SubscriptionRequestItem[] {
  return list.map((item, i) => {
    const at = `subscriptions[${i}]`;
    if (!isObject(item)) {
      throw Errors.badRequest(`Invalid ${at}: Input should be a valid dictionary or instance of AddSubscriptionData`);
    }
    if (!('name' in item)) throw Errors.badRequest(`${at}["name"] field is missing: Field required`);
    if (typeof item.name !== 'string') throw Errors.badRequest(`${at}["name"] is not a string`);
    const out: SubscriptionRequestItem = { name: item.name };
    if (item.color !== undefined && item.color !== null) {
      if (typeof item.color !== 'string') throw Errors.badRequest(`${at}["color"] is not a string`);
      out.color = item.color;
    }
    if (item.description !== undefined && item.description !== null) {
      if (typeof item.description !== 'string') throw Errors.badRequest(`${at}["description"] is not a string`);
      if ([...item.description].length > Limits.MAX_STREAM_DESCRIPTION_LENGTH) {
        throw Errors.badRequest(
          `${at}["description"] is too long (limit: ${Limits.MAX_STREAM_DESCRIPTION_LENGTH} characters)`,
        );
      }
      out.description = item.description;
    }
    if (out.color !== undefined && !isValidColor(out.color)) {
      throw Errors.badRequest(`Invalid ${at}: Value error, add.color is not a valid hex color code`);
    }
    return out;
  });
}

/** `subscriptions` of DELETE /users/me/subscriptions: a list of names. */
export function parseChannelNames(list: unknown[]): string[] {
  return list.map((item, i) => {
    if (typeof item !== 'string') throw Errors.badRequest(`subscriptions[${i}] is not a string`);
    return item;
  });
}

/** `principals`: all user ids or all emails (`list[str] | list[int]`). */
export function parsePrincipals(value: unknown): number[] | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw Errors.badRequest('principals is not a list');
  if (value.every((v): v is string => typeof v === 'string')) return value;
  if (value.every(isInt)) return value;
  const i = value.findIndex((v) => typeof v !== 'string');
  throw Errors.badRequest(`principals["list[str]"][${i}] is not a string`);
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
  throw Errors.badRequest('Invalid topics_policy');
}

/** folder_id of PATCH /streams: an integer or null. */
export function parseNullableFolderId(value: unknown): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (!isInt(value)) throw Errors.badRequest('folder_id is not an integer');
  return value;
}

/** A `{new, old?}` group-setting change of PATCH /streams. */
export function parseGroupSettingChange(name: string, value: unknown): GroupSettingChange {
  if (!isObject(value)) throw Errors.badRequest(`${name} is not a dict`);
  for (const key of Object.keys(value)) {
    if (key !== 'new' && key !== 'old') throw Errors.badRequest(`Argument "${key}" at ${name} is unexpected`);
  }
  if (!('new' in value)) throw Errors.badRequest(`${name}["new"] field is missing: Field required`);
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
      throw Errors.badRequest(
        `Invalid ${at}: Input should be a valid dictionary or instance of SubscriptionPropertyChangeRequest`,
      );
    }
    for (const key of ['stream_id', 'property', 'value']) {
      if (!(key in item)) throw Errors.badRequest(`${at}["${key}"] field is missing: Field required`);
    }
    if (!isInt(item.stream_id)) throw Errors.badRequest(`${at}["stream_id"] is not an integer`);
    if (typeof item.property !== 'string') throw Errors.badRequest(`${at}["property"] is not a string`);
    const property = item.property;
    const value = item.value;
    if (property === 'color') {
      if (!isValidColor(value))
        throw Errors.badRequest(`Invalid ${at}: Value error, color is not a valid hex color code`);
      return { streamId: item.stream_id, property, value };
    }
    if ((BOOLEAN_SUBSCRIPTION_PROPERTIES as readonly string[]).includes(property)) {
      if (typeof value !== 'boolean') throw Errors.badRequest(`${property} is not a boolean`);
      return { streamId: item.stream_id, property: property as PropertyChange['property'], value };
    }
    throw Errors.badRequest(`Unknown subscription property: ${property}`);
  });
}
