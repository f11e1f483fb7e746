import { ZulipError } from '../common/errors/zulip-error';
import { parseRetentionDays, parseTimeLimit } from './realm-settings.policy';

describe('parseTimeLimit', () => {
  it('maps "unlimited" to null and keeps positive seconds', () => {
    expect(parseTimeLimit('x', 'unlimited')).toBeNull();
    expect(parseTimeLimit('x', 1)).toBe(1);
    expect(parseTimeLimit('x', 604800)).toBe(604800);
  });

  it.each([[0], [-5], ['forever'], [''], [2 ** 31]])('rejects %j with Bad value', (raw) => {
    try {
      parseTimeLimit('message_content_edit_limit_seconds', raw);
      throw new Error('accepted');
    } catch (e) {
      const err = e as ZulipError;
      expect(err.message).toBe(`Bad value for 'message_content_edit_limit_seconds': ${String(raw)}`);
      expect(err.code).toBe('REQUEST_VARIABLE_INVALID');
      expect(err.data).toEqual({ var_name: 'message_content_edit_limit_seconds', bad_value: raw });
    }
  });
});

describe('parseRetentionDays', () => {
  it('maps "unlimited" to -1 and keeps positive days', () => {
    expect(parseRetentionDays('unlimited')).toBe(-1);
    expect(parseRetentionDays(30)).toBe(30);
  });

  it.each([[0], [-1], ['forever'], ['Unlimited'], [2 ** 31]])('rejects %j with Bad value', (raw) => {
    expect(() => parseRetentionDays(raw)).toThrow(`Bad value for 'message_retention_days': ${String(raw)}`);
  });
});
