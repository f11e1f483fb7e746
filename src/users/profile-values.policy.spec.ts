import { ZulipError } from '../common/errors/zulip-error';
import { FieldType } from '../realm/custom-profile-fields.policy';
import {
  checkUserIdList,
  isDate,
  isEmptyProfileValue,
  parseProfileData,
  renderProfileText,
  validateProfileValue,
} from './profile-values.policy';

function message(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return (e as ZulipError).message;
  }
}

const field = (fieldType: number, fieldData = '') => ({ name: 'Field', fieldType, fieldData });

describe('validateProfileValue', () => {
  it.each([
    [FieldType.SHORT_TEXT, 'x'.repeat(50), undefined],
    [FieldType.SHORT_TEXT, 'x'.repeat(51), 'Field is too long (limit: 50 characters)'],
    [FieldType.PRONOUNS, 'x'.repeat(51), 'Field is too long (limit: 50 characters)'],
    [FieldType.EXTERNAL_ACCOUNT, 'x'.repeat(51), 'Field is too long (limit: 50 characters)'],
    [FieldType.LONG_TEXT, 'x'.repeat(500), undefined],
    [FieldType.LONG_TEXT, 'x'.repeat(501), 'Field is too long (limit: 500 characters)'],
    [FieldType.SHORT_TEXT, 5, 'Field is not a string'],
    [FieldType.DATE, '2000-02-29', undefined],
    [FieldType.DATE, '2001-02-29', 'Field is not a date'],
    [FieldType.DATE, '2001-2-3', undefined],
    [FieldType.DATE, 'yesterday', 'Field is not a date'],
    [FieldType.URL, 'https://zulip.com/path?q=1', undefined],
    [FieldType.URL, 'http://localhost:9991', undefined],
    [FieldType.URL, 'zulip.com', 'Field is not a URL'],
    [FieldType.URL, 'javascript:alert(1)', 'Field is not a URL'],
    [FieldType.SELECT, '0', undefined],
    [FieldType.SELECT, '2', "'2' is not a valid choice for 'Field'."],
  ])('type %i, %j → %s', (type, value, msg) => {
    const data = type === FieldType.SELECT ? '{"0":{"text":"Vim","order":"1"}}' : '';
    expect(message(() => validateProfileValue(field(type, data), value))).toBe(msg);
  });
});

describe('profile data helpers', () => {
  it('checks person-picker lists', () => {
    expect(checkUserIdList([1, 2])).toEqual([1, 2]);
    expect(message(() => checkUserIdList('1'))).toBe('User IDs is not a list');
    expect(message(() => checkUserIdList([1, 'a']))).toBe('User IDs[1] is not an integer');
  });

  it('parses the profile_data parameter', () => {
    expect(
      parseProfileData([
        { id: 1, value: 'x' },
        { id: 2, value: [3] },
        { id: 4, value: null },
      ]),
    ).toEqual([
      { id: 1, value: 'x' },
      { id: 2, value: [3] },
      { id: 4, value: null },
    ]);
    expect(message(() => parseProfileData({}))).toBe('profile_data is not a list');
    expect(message(() => parseProfileData([1]))).toBe('profile_data[0] is not a dict');
    expect(message(() => parseProfileData([{ value: 'x' }]))).toBe(
      'profile_data[0]["id"] field is missing: Field required',
    );
    expect(message(() => parseProfileData([{ id: 'x', value: 'x' }]))).toBe('profile_data[0]["id"] is not an integer');
    expect(message(() => parseProfileData([{ id: 1 }]))).toBe(
      'profile_data[0]["value"] field is missing: Field required',
    );
    expect(message(() => parseProfileData([{ id: 1, value: { a: 1 } }]))).toBe(
      'profile_data[0]["value"] is not a string',
    );
    expect(message(() => parseProfileData([{ id: 1, value: 'x', extra: 1 }]))).toBe(
      'Argument "extra" at profile_data[0] is unexpected',
    );
  });

  it('treats null, "" and [] as clearing', () => {
    expect([null, '', []].map((v) => isEmptyProfileValue(v))).toEqual([true, true, true]);
    expect(isEmptyProfileValue('0')).toBe(false);
  });

  it('validates calendar dates', () => {
    expect(isDate('1900-01-01')).toBe(true);
    expect(isDate('2023-13-01')).toBe(false);
    expect(isDate('2023-04-31')).toBe(false);
  });

  it('renders text values as Markdown', () => {
    expect(renderProfileText('I am:\n* The prince')).toBe('<p>I am:</p>\n<ul>\n<li>The prince</li>\n</ul>');
    expect(renderProfileText('<b>x</b>')).toBe('<p>&lt;b&gt;x&lt;/b&gt;</p>');
  });
});
