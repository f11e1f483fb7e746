import { ZulipError } from '../common/errors/zulip-error';
import { checkFullName, firstUnprintable, isStrongEnoughPassword } from './user-name.policy';

function error(name: string): string | undefined {
  try {
    checkFullName(name);
    return undefined;
  } catch (e) {
    return (e as ZulipError).message;
  }
}

describe('checkFullName', () => {
  it.each([
    ['King Hamlet', undefined],
    ['  Padded  ', undefined],
    ['शिव', undefined],
    ['x'.repeat(100), undefined],
    ['x'.repeat(101), 'Name too long!'],
    ['x', 'Name too short!'],
    [' x ', 'Name too short!'],
    ['Ham*let', 'Invalid characters in name!'],
    ['Ham@let', 'Invalid characters in name!'],
    ['Ham"let', 'Invalid characters in name!'],
    ['Ham\u0000let', 'Invalid characters in name!'],
    ['Hamlet|15', 'Invalid format!'],
    ['Hamlet|x', undefined],
  ])('%j → %s', (name, msg) => {
    expect(error(name)).toBe(msg);
  });

  it('returns the stripped name', () => {
    expect(checkFullName('  New Name ')).toBe('New Name');
  });

  it('finds the 1-based position of an unprintable character', () => {
    expect(firstUnprintable('ab\u0007c')).toBe(3);
    expect(firstUnprintable('abc')).toBeUndefined();
  });
});

describe('isStrongEnoughPassword', () => {
  it.each([
    ['', false],
    ['abc', false],
    ['aaaaaaaa', false],
    ['abcd12', true],
    ['x'.repeat(101), false],
  ])('%j → %s', (password, ok) => {
    expect(isStrongEnoughPassword(password)).toBe(ok);
  });
});
