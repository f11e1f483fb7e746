import { REALM_GROUP_SETTING_NAMES } from '../realm/system-groups';
import {
  checkAuthenticationMethods,
  GROUP_SETTING_ORDER,
  parseJitsiServerUrl,
  REALM_PROPERTIES,
} from './realm-properties';

describe('parseJitsiServerUrl (check_jitsi_url)', () => {
  it('maps "default" to null and keeps web URLs', () => {
    expect(parseJitsiServerUrl('default')).toBeNull();
    expect(parseJitsiServerUrl('https://meet.example.org/')).toBe('https://meet.example.org/');
    expect(parseJitsiServerUrl('http://10.0.0.1:8443')).toBe('http://10.0.0.1:8443');
  });

  it.each([
    ['meet.example.org'],
    ['javascript:alert(1)'],
    ['https://'],
    ['https://a b.org'],
    [`https://e.org/${'x'.repeat(190)}`],
  ])('refuses %j', (value) => {
    expect(() => parseJitsiServerUrl(value)).toThrow('jitsi_server_url is not an allowed_type');
  });
});

describe('checkAuthenticationMethods', () => {
  it('accepts known methods with one enabled', () => {
    expect(() => checkAuthenticationMethods({ Email: true })).not.toThrow();
    expect(() => checkAuthenticationMethods({ Email: false, Dev: true })).not.toThrow();
  });

  it('refuses unknown names first, then all-disabled', () => {
    expect(() => checkAuthenticationMethods({ SAML: false, Email: false })).toThrow(
      "Invalid authentication method: SAML. Valid methods are: ['Dev', 'Email']",
    );
    expect(() => checkAuthenticationMethods({})).toThrow('At least one authentication method must be enabled.');
    expect(() => checkAuthenticationMethods({ Email: 'yes', Dev: 0 })).toThrow(
      'At least one authentication method must be enabled.',
    );
    // As in Python, 1 counts as true.
    expect(() => checkAuthenticationMethods({ Email: 1 })).not.toThrow();
  });
});

describe('the settings tables', () => {
  it('order every realm group setting once', () => {
    expect([...GROUP_SETTING_ORDER].sort()).toEqual([...REALM_GROUP_SETTING_NAMES].sort());
  });

  it('owner-only settings are those of update_realm', () => {
    const ownerOnly = Object.keys(REALM_PROPERTIES).filter((n) => REALM_PROPERTIES[n].ownerOnly);
    expect(ownerOnly.sort()).toEqual([
      'disallow_disposable_email_addresses',
      'emails_restricted_to_domains',
      'invite_required',
      'message_retention_days',
      'waiting_period_threshold',
    ]);
  });
});
