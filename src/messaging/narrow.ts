import { Limits } from '../common/limits';
import { mapTopicPlaceholder } from './message-text';
import { ParamErrors } from '../common/errors/param.errors';
import { NarrowErrors } from './message.errors';

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

export { badNarrow } from './message.errors';

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
  if (!Array.isArray(raw)) throw ParamErrors.notAList('narrow');
  if (raw.length > Limits.MAX_NARROW_TERMS) throw NarrowErrors.tooManyTerms(Limits.MAX_NARROW_TERMS);
  return raw.map((elem: unknown, i) => {
    let operator: unknown;
    let operand: unknown;
    let negated: unknown = false;
    if (Array.isArray(elem)) {
      if (elem.length !== 2 || elem.some((x) => typeof x !== 'string')) {
        throw NarrowErrors.notAStringPair(i);
      }
      [operator, operand] = elem as string[];
    } else if (elem !== null && typeof elem === 'object') {
      const obj = elem as Record<string, unknown>;
      if (obj.operand === undefined || obj.operand === null) {
        throw NarrowErrors.operandMissing(i);
      }
      if (obj.operator === undefined || obj.operator === null) {
        throw NarrowErrors.operatorMissing(i);
      }
      operator = obj.operator;
      operand = obj.operand;
      if (obj.negated !== undefined && obj.negated !== null) negated = obj.negated;
    } else {
      throw NarrowErrors.dictOrListRequired(i);
    }
    if (typeof operator !== 'string') throw ParamErrors.notAString('operator');
    if (OPERATORS_SUPPORTING_ID.includes(operator)) {
      if (typeof operand !== 'string' && !isInt(operand)) throw NarrowErrors.operandNotStringOrInteger();
    } else if (OPERATORS_SUPPORTING_IDS.includes(operator)) {
      if (typeof operand !== 'string' && !(Array.isArray(operand) && operand.every(isInt))) {
        throw NarrowErrors.operandNotStringOrIntegerList();
      }
    } else if (operator === 'search') {
      if (typeof operand !== 'string') throw ParamErrors.notAString('operand');
      if (operand.trim() === '') throw ParamErrors.cannotBeBlank('operand');
    } else if (typeof operand !== 'string') {
      throw ParamErrors.notAString('operand');
    }
    if (typeof negated !== 'boolean') throw ParamErrors.notABoolean('negated');
    let value = operand;
    if (operator === 'topic' && typeof value === 'string') value = mapTopicPlaceholder(value);
    return { operator, operand: value, negated };
  });
}

/** Python's str() of an operand, for error texts ("unknown user in [1, 2]"). */
export function operandText(operand: string | number | number[]): string {
  return Array.isArray(operand) ? `[${operand.join(', ')}]` : String(operand);
}
