import { IsArray, IsObject, IsString, ValidateBy } from 'class-validator';
import { ParamErrors } from '../../common/errors/param.errors';
import { Arg, OptionalArg } from '../../common/http/params';

/** A dict whose every value is a string (Zulip's Json[dict[str, str]]). */
function StringValues(name: string): PropertyDecorator {
  const firstBad = (value: unknown) =>
    Object.entries(value as Record<string, unknown>).find(([, v]) => typeof v !== 'string')?.[0];
  return ValidateBy({
    name: 'stringValues',
    validator: {
      validate: (value: unknown) => !!value && typeof value === 'object' && firstBad(value) === undefined,
      defaultMessage: (args) => ParamErrors.notAString(`${name}["${firstBad(args?.value)}"]`).message,
    },
  });
}

/** PUT /bot_storage. */
export class UpdateStorageArgs {
  @Arg({ json: true }) @IsObject() @StringValues('storage') storage: Record<string, string>;
}

/** GET and DELETE /bot_storage: some keys, or (absent) all of them. */
export class StorageKeysArgs {
  @OptionalArg({ json: true }) @IsArray() @IsString({ each: true }) keys?: string[];
}
