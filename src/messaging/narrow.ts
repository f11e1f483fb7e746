import { Errors, ZulipError } from '../common/errors/zulip-error';
import { mapTopicPlaceholder } from './message-text';

/** One narrow term (Zulip's NarrowParameter after validation). */
export interface NarrowTerm {
  operator: string;
  operand: string | number | number[];
  negated: boolean;
}

export const CHANNEL_OPERATORS = ['channel', 'stream'];
export const CHANNELS_OPERATORS = ['channels', 'streams'];
const OPERATORS_SUPPORTING_ID = [...CHANNEL_OPERATORS, 'id', 'sender', 'group-pm-with', 'dm-including'];
const OPERATORS_SUPPORTING_IDS = ['pm-with', 'dm'];

/** Zulip's BadNarrowOperatorError. */
export function badNarrow(desc: string): ZulipError {
  return new ZulipError(`Invalid narrow operator: ${desc}`, 'BAD_NARROW', 400, { desc });
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

/**
 * Validates the `narrow` parameter (a JSON list) into terms, as Zulip's NarrowParameter does:
 * each element is a `[operator, operand]` string pair or an object with `operator`, `operand`
 * and optional `negated`; operands are type-checked per operator. The topic placeholders
 * `(no topic)` and `general chat` mean the empty topic (DECISIONS #9).
 */
export function parseNarrow(raw: unknown): NarrowTerm[] {
  if (!Array.isArray(raw)) throw Errors.badRequest('narrow is not a list');
  return raw.map((elem: unknown, i) => {
    let operator: unknown;
    let operand: unknown;
    let negated: unknown = false;
    if (Array.isArray(elem)) {
      if (elem.length !== 2 || elem.some((x) => typeof x !== 'string')) {
        throw Errors.badRequest(`Invalid narrow[${i}]: Value error, element is not a string pair`);
      }
      [operator, operand] = elem as string[];
    } else if (elem !== null && typeof elem === 'object') {
      const obj = elem as Record<string, unknown>;
      if (obj.operand === undefined || obj.operand === null) {
        throw Errors.badRequest(`Invalid narrow[${i}]: Value error, operand is missing`);
      }
      if (obj.operator === undefined || obj.operator === null) {
        throw Errors.badRequest(`Invalid narrow[${i}]: Value error, operator is missing`);
      }
      operator = obj.operator;
      operand = obj.operand;
      if (obj.negated !== undefined && obj.negated !== null) negated = obj.negated;
    } else {
      throw Errors.badRequest(`Invalid narrow[${i}]: Value error, dict or list required`);
    }
    if (typeof operator !== 'string') throw Errors.badRequest('operator is not a string');
    if (OPERATORS_SUPPORTING_ID.includes(operator)) {
      if (typeof operand !== 'string' && !isInt(operand))
        throw Errors.badRequest('operand is not a string or an integer');
    } else if (OPERATORS_SUPPORTING_IDS.includes(operator)) {
      if (typeof operand !== 'string' && !(Array.isArray(operand) && operand.every(isInt))) {
        throw Errors.badRequest('operand is not a string or integer list');
      }
    } else if (operator === 'search') {
      if (typeof operand !== 'string') throw Errors.badRequest('operand is not a string');
      if (operand.trim() === '') throw Errors.badRequest('operand cannot be blank');
    } else if (typeof operand !== 'string') {
      throw Errors.badRequest('operand is not a string');
    }
    if (typeof negated !== 'boolean') throw Errors.badRequest('negated is not a boolean');
    let value = operand;
    if (operator === 'topic' && typeof value === 'string') value = mapTopicPlaceholder(value);
    return { operator, operand: value, negated };
  });
}

/** Python's str() of an operand, for error texts ("unknown user in [1, 2]"). */
export function operandText(operand: string | number | number[]): string {
  return Array.isArray(operand) ? `[${operand.join(', ')}]` : String(operand);
}
