import { ValidateBy, ValidationArguments, ValidationOptions } from 'class-validator';
import { ZulipError } from '../../common/errors/zulip-error';
import { parseGroupSettingChange, parseGroupSettingValue } from '../group-setting-values';
import { ParamErrors } from '../../common/errors/param.errors';

function firstError(check: (name: string, value: unknown) => unknown, args: ValidationArguments): string {
  try {
    check(args.property, args.value);
  } catch (err) {
    if (err instanceof ZulipError) return err.message;
    throw err;
  }
  return ParamErrors.invalid(args.property).message;
}

function passes(check: (name: string, value: unknown) => unknown, name: string, value: unknown): boolean {
  try {
    check(name, value);
    return true;
  } catch (err) {
    if (err instanceof ZulipError) return false;
    throw err;
  }
}

/** A group-setting value: an integer group id or `{direct_members, direct_subgroups}`. */
export function IsGroupSettingValue(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isGroupSettingValue',
      validator: {
        validate: (value: unknown, args?: ValidationArguments) =>
          passes(parseGroupSettingValue, args?.property ?? 'value', value),
        defaultMessage: (args?: ValidationArguments) =>
          args ? firstError(parseGroupSettingValue, args) : 'Invalid value',
      },
    },
    options,
  );
}

/** An update of a group-setting value: `{"new": value, "old": value}` (old optional). */
export function IsGroupSettingChange(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isGroupSettingChange',
      validator: {
        validate: (value: unknown, args?: ValidationArguments) =>
          passes(parseGroupSettingChange, args?.property ?? 'value', value),
        defaultMessage: (args?: ValidationArguments) =>
          args ? firstError(parseGroupSettingChange, args) : 'Invalid value',
      },
    },
    options,
  );
}
