import { ZulipError } from '../common/errors/zulip-error';
import {
  parseChannelNames,
  parseGroupSettingChange,
  parseNullableFolderId,
  parsePrincipals,
  parsePropertyChanges,
  parseRetentionParam,
  parseSubscriptionItems,
  parseTopicsPolicy,
} from './channel-params';

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as ZulipError).message;
  }
  return 'no error';
}

describe('channel parameters', () => {
  it('subscriptions items', () => {
    expect(parseSubscriptionItems([{ name: 'a', color: '#abc', description: 'd', extra: 1 }])).toEqual([
      { name: 'a', color: '#abc', description: 'd' },
    ]);
    expect(parseSubscriptionItems([{ name: 'a', color: null }])).toEqual([{ name: 'a' }]);
    expect(message(() => parseSubscriptionItems([null]))).toBe(
      'Invalid subscriptions[0]: Input should be a valid dictionary or instance of AddSubscriptionData',
    );
    expect(message(() => parseSubscriptionItems([{ name: 'a' }, {}]))).toBe(
      'subscriptions[1]["name"] field is missing: Field required',
    );
    expect(message(() => parseSubscriptionItems([{ name: 'a', color: 5 }]))).toBe(
      'subscriptions[0]["color"] is not a string',
    );
    expect(message(() => parseSubscriptionItems([{ name: 'a', description: [] }]))).toBe(
      'subscriptions[0]["description"] is not a string',
    );
    expect(message(() => parseSubscriptionItems([{ name: 'a', color: '#12' }]))).toBe(
      'Invalid subscriptions[0]: Value error, add.color is not a valid hex color code',
    );
  });

  it('channel names', () => {
    expect(parseChannelNames(['a', 'b'])).toEqual(['a', 'b']);
    expect(message(() => parseChannelNames(['a', 1]))).toBe('subscriptions[1] is not a string');
  });

  it('principals', () => {
    expect(parsePrincipals(undefined)).toBeUndefined();
    expect(parsePrincipals([])).toEqual([]);
    expect(parsePrincipals([1, 2])).toEqual([1, 2]);
    expect(parsePrincipals(['a@b.c'])).toEqual(['a@b.c']);
    expect(message(() => parsePrincipals(['a', 1]))).toBe('principals["list[str]"][1] is not a string');
    expect(message(() => parsePrincipals([1.5]))).toBe('principals["list[str]"][0] is not a string');
    expect(message(() => parsePrincipals({}))).toBe('principals is not a list');
  });

  it('message_retention_days text', () => {
    expect(parseRetentionParam('30')).toBe(30);
    expect(parseRetentionParam('"unlimited"')).toBe('unlimited');
    expect(parseRetentionParam('unlimited')).toBe('unlimited');
    expect(parseRetentionParam('[1]')).toBe('[1]');
  });

  it('topics_policy', () => {
    expect(parseTopicsPolicy(undefined)).toBeUndefined();
    expect(parseTopicsPolicy('inherit')).toBe('inherit');
    expect(parseTopicsPolicy('"empty_topic_only"')).toBe('empty_topic_only');
    expect(message(() => parseTopicsPolicy('sometimes'))).toBe('Invalid topics_policy');
    expect(message(() => parseTopicsPolicy('3'))).toBe('Invalid topics_policy');
  });

  it('folder_id', () => {
    expect(parseNullableFolderId(undefined)).toBeUndefined();
    expect(parseNullableFolderId(null)).toBeNull();
    expect(parseNullableFolderId(4)).toBe(4);
    expect(message(() => parseNullableFolderId('4'))).toBe('folder_id is not an integer');
  });

  it('group-setting changes', () => {
    expect(parseGroupSettingChange('s', { new: 1 })).toEqual({ new: 1 });
    expect(parseGroupSettingChange('s', { new: 1, old: 2 })).toEqual({ new: 1, old: 2 });
    expect(message(() => parseGroupSettingChange('s', 1))).toBe('s is not a dict');
    expect(message(() => parseGroupSettingChange('s', {}))).toBe('s["new"] field is missing: Field required');
    expect(message(() => parseGroupSettingChange('s', { new: 1, x: 1 }))).toBe('Argument "x" at s is unexpected');
  });

  it('subscription property changes', () => {
    expect(parsePropertyChanges([{ stream_id: 1, property: 'color', value: '#fff' }])).toEqual([
      { streamId: 1, property: 'color', value: '#fff' },
    ]);
    expect(parsePropertyChanges([{ stream_id: 1, property: 'in_home_view', value: false }])).toEqual([
      { streamId: 1, property: 'in_home_view', value: false },
    ]);
    expect(message(() => parsePropertyChanges([{ stream_id: 1, property: 'pin_to_top', value: 1 }]))).toBe(
      'pin_to_top is not a boolean',
    );
    expect(message(() => parsePropertyChanges([{ stream_id: 1, property: 5, value: true }]))).toBe(
      'subscription_data[0]["property"] is not a string',
    );
  });
});
