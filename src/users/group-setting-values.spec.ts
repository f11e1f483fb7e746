import { ZulipError } from '../common/errors/zulip-error';
import {
  groupSettingValuesEqual,
  normalizeGroupSettingValue,
  parseGroupSettingChange,
  parseGroupSettingValue,
} from './group-setting-values';

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ZulipError) return e.message;
    throw e;
  }
  throw new Error('no error');
}

describe('group-setting values', () => {
  it('accepts an integer or both member lists', () => {
    expect(parseGroupSettingValue('s', 12)).toBe(12);
    expect(parseGroupSettingValue('s', { direct_members: [1], direct_subgroups: [] })).toEqual({
      direct_members: [1],
      direct_subgroups: [],
    });
  });

  it.each([
    ['x', 's is not a dict'],
    [[1], 's is not a dict'],
    [1.5, 's is not a dict'],
    [{ direct_members: [1] }, 's["direct_subgroups"] field is missing: Field required'],
    [{ direct_members: 1, direct_subgroups: [] }, 's["direct_members"] is not a list'],
    [{ direct_members: ['a'], direct_subgroups: [] }, 's["direct_members"][0] is not an integer'],
    [{ direct_members: [], direct_subgroups: [], extra: 1 }, 'Argument "extra" at s is unexpected'],
  ])('rejects %j: %s', (raw, msg) => {
    expect(message(() => parseGroupSettingValue('s', raw))).toBe(msg);
  });

  it('parses {new, old} changes', () => {
    expect(parseGroupSettingChange('s', { new: 3, old: 4 })).toEqual({ new: 3, old: 4 });
    expect(parseGroupSettingChange('s', { new: 3 })).toEqual({ new: 3 });
    expect(message(() => parseGroupSettingChange('s', 3))).toBe('s is not a dict');
    expect(message(() => parseGroupSettingChange('s', { old: 3 }))).toBe('s["new"] field is missing: Field required');
    expect(message(() => parseGroupSettingChange('s', { new: 'x' }))).toBe('s["new"] is not a dict');
  });

  it('normalizes a single subgroup to the group and an empty value to role:nobody', () => {
    expect(normalizeGroupSettingValue({ direct_members: [], direct_subgroups: [7] }, 1)).toBe(7);
    expect(normalizeGroupSettingValue({ direct_members: [], direct_subgroups: [] }, 1)).toBe(1);
    expect(normalizeGroupSettingValue({ direct_members: [2], direct_subgroups: [] }, 1)).toEqual({
      direct_members: [2],
      direct_subgroups: [],
    });
    expect(normalizeGroupSettingValue(5, 1)).toBe(5);
  });

  it('compares values, member lists as sets', () => {
    expect(groupSettingValuesEqual(3, 3)).toBe(true);
    expect(groupSettingValuesEqual(3, 4)).toBe(false);
    expect(groupSettingValuesEqual(3, { direct_members: [], direct_subgroups: [3] })).toBe(false);
    expect(
      groupSettingValuesEqual(
        { direct_members: [2, 1], direct_subgroups: [5] },
        { direct_members: [1, 2, 2], direct_subgroups: [5] },
      ),
    ).toBe(true);
    expect(
      groupSettingValuesEqual(
        { direct_members: [1], direct_subgroups: [] },
        { direct_members: [1], direct_subgroups: [5] },
      ),
    ).toBe(false);
  });
});
