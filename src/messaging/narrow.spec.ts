import { ZulipError } from '../common/errors/zulip-error';
import { badNarrow, operandText, parseNarrow } from './narrow';

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as ZulipError).message;
  }
  return 'no error';
}

describe('narrow parameter', () => {
  it('accepts objects and legacy pairs, maps topic placeholders', () => {
    expect(
      parseNarrow([
        ['stream', 'Verona'],
        { operator: 'topic', operand: '(no topic)' },
        { operator: 'sender', operand: 5, negated: true },
        { operator: 'dm', operand: [1, 2] },
      ]),
    ).toEqual([
      { operator: 'stream', operand: 'Verona', negated: false },
      { operator: 'topic', operand: '', negated: false },
      { operator: 'sender', operand: 5, negated: true },
      { operator: 'dm', operand: [1, 2], negated: false },
    ]);
  });

  it("refuses malformed elements with Zulip's texts", () => {
    expect(errorOf(() => parseNarrow({}))).toBe('narrow is not a list');
    expect(errorOf(() => parseNarrow([['a']]))).toBe('Invalid narrow[0]: Value error, element is not a string pair');
    expect(errorOf(() => parseNarrow([5]))).toBe('Invalid narrow[0]: Value error, dict or list required');
    expect(errorOf(() => parseNarrow([{ operand: 'x' }]))).toBe('Invalid narrow[0]: Value error, operator is missing');
    expect(errorOf(() => parseNarrow([{ operator: 'x' }]))).toBe('Invalid narrow[0]: Value error, operand is missing');
    expect(errorOf(() => parseNarrow([{ operator: 'topic', operand: 1 }]))).toBe('operand is not a string');
    expect(errorOf(() => parseNarrow([{ operator: 'sender', operand: [1] }]))).toBe(
      'operand is not a string or an integer',
    );
    expect(errorOf(() => parseNarrow([{ operator: 'dm', operand: ['a'] }]))).toBe(
      'operand is not a string or integer list',
    );
    expect(errorOf(() => parseNarrow([{ operator: 'search', operand: '' }]))).toBe('operand cannot be blank');
    expect(errorOf(() => parseNarrow([{ operator: 'is', operand: 'dm', negated: 1 }]))).toBe(
      'negated is not a boolean',
    );
  });

  it('formats operands and errors like Zulip', () => {
    expect(operandText([1, 2])).toBe('[1, 2]');
    expect(operandText(5)).toBe('5');
    const err = badNarrow('unknown operator x');
    expect(err.toBody()).toEqual({
      result: 'error',
      msg: 'Invalid narrow operator: unknown operator x',
      code: 'BAD_NARROW',
      desc: 'unknown operator x',
    });
  });
});

describe('narrow size', () => {
  it('takes up to 50 terms and refuses more with BAD_NARROW', () => {
    const term = { operator: 'is', operand: 'starred' };
    expect(parseNarrow(Array.from({ length: 50 }, () => term))).toHaveLength(50);
    expect(() => parseNarrow(Array.from({ length: 51 }, () => term))).toThrow(
      'Invalid narrow operator: a narrow may have at most 50 terms',
    );
  });
});
