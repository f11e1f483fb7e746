import { ZulipError } from '../common/errors/zulip-error';
import { checkSettingsValues, REALM_DEFAULT_SETTING_NAMES } from './user-settings-defaults.params';

function message(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return (e as ZulipError).message;
  }
}

describe('realm user-settings defaults', () => {
  it('lists the spec parameters, alphabetically, without the user-only settings', () => {
    expect(REALM_DEFAULT_SETTING_NAMES).toEqual([...REALM_DEFAULT_SETTING_NAMES].sort());
    for (const name of [
      'default_language',
      'enable_login_emails',
      'enable_marketing_emails',
      'allow_private_data_export',
    ]) {
      expect(REALM_DEFAULT_SETTING_NAMES).not.toContain(name);
    }
    expect(REALM_DEFAULT_SETTING_NAMES).toEqual(
      expect.arrayContaining(['web_navigate_to_sent_message', 'emojiset', 'hide_ai_features']),
    );
    expect(REALM_DEFAULT_SETTING_NAMES).toHaveLength(58);
  });

  it.each([
    ['zulip', 120, undefined],
    ['none', 1, undefined],
    ['chime', 604800, undefined],
    ['bell', 120, "Invalid notification sound 'bell'"],
    ['bell', -1, "Invalid notification sound 'bell'"],
    [undefined, 0, 'Invalid email batching period: 0 seconds'],
    [undefined, 604801, 'Invalid email batching period: 604801 seconds'],
    [undefined, undefined, undefined],
  ])('sound %j, batching %j → %s', (sound, period, msg) => {
    expect(message(() => checkSettingsValues(sound, period))).toBe(msg);
  });
});
