import { isDbId } from '../database/ids';
import { ParamErrors } from '../common/errors/param.errors';

/** A group-setting value as the API sends and receives it. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** `{new, old}` of a PATCH endpoint (Zulip's GroupSettingChangeRequest). */
export interface GroupSettingChange {
  new: GroupSettingValue;
  old?: GroupSettingValue;
}

function intList(name: string, key: string, v: unknown): number[] {
  if (v === undefined) throw ParamErrors.fieldMissing(`${name}["${key}"]`);
  if (!Array.isArray(v)) throw ParamErrors.notAList(`${name}["${key}"]`);
  v.forEach((x, i) => {
    if (typeof x !== 'number' || !Number.isInteger(x)) {
      throw ParamErrors.notAnInteger(`${name}["${key}"][${i}]`);
    }
  });
  return v as number[];
}

/**
 * Checks the shape of a decoded group-setting value: an integer group id, or an object with
 * exactly the lists `direct_members` and `direct_subgroups` of integers.
 */
export function parseGroupSettingValue(name: string, raw: unknown): GroupSettingValue {
  if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw ParamErrors.notADict(name);
  const obj = raw as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (key !== 'direct_members' && key !== 'direct_subgroups') {
      throw ParamErrors.unexpectedArgument(key, name);
    }
  }
  return {
    direct_members: intList(name, 'direct_members', obj.direct_members),
    direct_subgroups: intList(name, 'direct_subgroups', obj.direct_subgroups),
  };
}

/** Checks the shape of `{"new": value, "old": value}` (old optional). */
export function parseGroupSettingChange(name: string, raw: unknown): GroupSettingChange {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw ParamErrors.notADict(name);
  const obj = raw as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (key !== 'new' && key !== 'old') throw ParamErrors.unexpectedArgument(key, name);
  }
  if (!('new' in obj)) throw ParamErrors.fieldMissing(`${name}["new"]`);
  const change: GroupSettingChange = { new: parseGroupSettingValue(`${name}["new"]`, obj.new) };
  if (obj.old !== undefined && obj.old !== null) change.old = parseGroupSettingValue(`${name}["old"]`, obj.old);
  return change;
}

/**
 * Zulip's parse_group_setting_value: `{[], [g]}` is the group g itself and `{[], []}` is
 * role:nobody; anything else stays an anonymous-group value.
 */
export function normalizeGroupSettingValue(value: GroupSettingValue, nobodyGroupId: number): GroupSettingValue {
  if (typeof value === 'number') return value;
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return value.direct_subgroups[0];
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 0) return nobodyGroupId;
  return value;
}

/** Zulip's are_both_group_setting_values_equal: ids compare equal; lists compare as sets. */
export function groupSettingValuesEqual(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const sameSet = (x: number[], y: number[]) => {
    const sx = new Set(x);
    const sy = new Set(y);
    return sx.size === sy.size && [...sx].every((v) => sy.has(v));
  };
  return sameSet(a.direct_members, b.direct_members) && sameSet(a.direct_subgroups, b.direct_subgroups);
}

/** Ids that could exist as group or user rows (others cannot match anything). */
export function possibleIds(ids: readonly number[]): number[] {
  return ids.filter(isDbId);
}
