import { ZulipError } from '../common/errors/zulip-error';
import {
  customProfileFieldDict,
  FieldType,
  isDefaultExternalField,
  isUrl,
  storedFieldData,
  validateCustomProfileField,
} from './custom-profile-fields.policy';

function message(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return (e as ZulipError).message;
  }
}

describe('validateCustomProfileField', () => {
  const check = (name: string, hint: string, type: number, data: Record<string, unknown> = {}, summary = false) =>
    message(() => validateCustomProfileField(name, hint, type, data, summary));

  it('checks field data first, then the label and hint, then the type', () => {
    expect(check('', '', FieldType.SELECT, {})).toBe('Field must have at least one choice.');
    expect(check('', 'x'.repeat(81), FieldType.SHORT_TEXT)).toBe('Label cannot be blank.');
    expect(check('x'.repeat(41), 'x'.repeat(81), FieldType.SHORT_TEXT)).toBe('hint is too long (limit: 80 characters)');
    expect(check('x'.repeat(41), '', 99)).toBe('name is too long (limit: 40 characters)');
    expect(check('ok', '', 99)).toBe('Invalid field type.');
    expect(check('ok', '', FieldType.LONG_TEXT, {}, true)).toBe(
      'Field type not supported for display in profile summary.',
    );
    expect(check('ok', '', FieldType.USER, {}, true)).toBe('Field type not supported for display in profile summary.');
    expect(check('ok', '', FieldType.URL, {}, true)).toBeUndefined();
  });

  it('skips the label of default external accounts', () => {
    expect(check('', '', FieldType.EXTERNAL_ACCOUNT, { subtype: 'github' })).toBeUndefined();
    expect(
      check('', '', FieldType.EXTERNAL_ACCOUNT, { subtype: 'custom', url_pattern: 'https://x.com/%(username)s' }),
    ).toBe('Label cannot be blank.');
    expect(isDefaultExternalField(FieldType.EXTERNAL_ACCOUNT, { subtype: 'twitter' })).toBe(true);
    expect(isDefaultExternalField(FieldType.EXTERNAL_ACCOUNT, { subtype: 'custom' })).toBe(false);
    expect(isDefaultExternalField(FieldType.SHORT_TEXT, { subtype: 'github' })).toBe(false);
  });

  it.each([
    [{ '1': { text: 'A', order: '1' } }, undefined],
    [{ ' ': { text: 'A', order: '1' } }, "'value' cannot be blank."],
    [{ '1': { text: 'A' } }, 'order key is missing from field_data'],
    [{ '1': { text: ' ', order: '1' } }, 'field_data["text"] cannot be blank.'],
    [{ '1': { text: 'A', order: 1 } }, 'field_data["order"] is not a string'],
    [{ '1': { text: 'A', order: '1', x: 'y' } }, 'Unexpected arguments: x'],
    [{ '1': { text: 'A', order: '1' }, '2': { text: 'A', order: '2' } }, 'Field must not have duplicate choices.'],
  ])('list options %j → %s', (data, msg) => {
    expect(check('ok', '', FieldType.SELECT, data)).toBe(msg);
  });

  it.each([
    [{ subtype: 'github' }, undefined],
    [{}, 'subtype key is missing from field_data'],
    [{ subtype: '' }, 'field_data["subtype"] cannot be blank.'],
    [{ subtype: 'other' }, 'Invalid external account type'],
    [{ subtype: 'custom' }, 'Custom external account must define URL pattern'],
    [{ subtype: 'custom', url_pattern: 'https://x.com/' }, "URL pattern must contain '%(username)s'."],
    [
      { subtype: 'custom', url_pattern: 'https://x.com/%(username)s/%(username)s' },
      "URL pattern must contain '%(username)s'.",
    ],
    [{ subtype: 'custom', url_pattern: 'x %(username)s' }, 'field_data["url_pattern"] is not a URL'],
    [{ subtype: 'github', other: 1 }, 'Unexpected arguments: other'],
  ])('external account %j → %s', (data, msg) => {
    expect(check('ok', '', FieldType.EXTERNAL_ACCOUNT, data)).toBe(msg);
  });
});

describe('field helpers', () => {
  it('stores field data only for list and external-account fields', () => {
    expect(storedFieldData(FieldType.SELECT, { a: { text: 'A', order: '1' } })).toBe('{"a":{"text":"A","order":"1"}}');
    expect(storedFieldData(FieldType.EXTERNAL_ACCOUNT, undefined)).toBe('{}');
    expect(storedFieldData(FieldType.SHORT_TEXT, { a: 1 })).toBe('');
  });

  it('shows display_in_profile_summary only when true', () => {
    const base = {
      id: 1,
      realmId: 1,
      name: 'n',
      hint: '',
      order: 1,
      required: false,
      editableByUser: true,
      fieldType: 1,
      fieldData: '',
    };
    expect(customProfileFieldDict({ ...base, displayInProfileSummary: false })).not.toHaveProperty(
      'display_in_profile_summary',
    );
    expect(customProfileFieldDict({ ...base, displayInProfileSummary: true })).toMatchObject({
      display_in_profile_summary: true,
      type: 1,
    });
  });

  it('recognizes URLs', () => {
    expect(isUrl('https://github.com/zulip')).toBe(true);
    expect(isUrl('ftp://files.example.org/a')).toBe(true);
    expect(isUrl('https://192.168.0.1/x')).toBe(true);
    expect(isUrl('mailto:a@b.c')).toBe(false);
    expect(isUrl('https://nodot')).toBe(false);
    expect(isUrl('https://exa mple.com')).toBe(false);
  });
});
