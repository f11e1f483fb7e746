import { badRequest, ZulipError } from './zulip-error';

/**
 * Parameter-decoding errors in Zulip's words (typed_endpoint / pydantic): the texts of
 * `common/http/params.ts` and of every hand-written parser of a JSON parameter. `name` is the
 * parameter's name or a path inside it (`profile_data[0]["id"]`).
 */
export const ParamErrors = {
  notValidJson: (name: string) => badRequest(`${name} is not valid JSON`),
  nestedTooDeeply: (name: string) => badRequest(`${name} is nested too deeply`),
  notABoolean: (name: string) => badRequest(`${name} is not a boolean`),
  notAnInteger: (name: string) => badRequest(`${name} is not an integer`),
  notAFloat: (name: string) => badRequest(`${name} is not a float`),
  notAString: (name: string) => badRequest(`${name} is not a string`),
  notAList: (name: string) => badRequest(`${name} is not a list`),
  notADict: (name: string) => badRequest(`${name} is not a dict`),
  notAUrl: (name: string) => badRequest(`${name} is not a URL`),
  notADate: (name: string) => badRequest(`${name} is not a date`),
  invalid: (name: string) => badRequest(`Invalid ${name}`),
  /** A reorder whose list is not exactly every item once (profile fields, channel folders). */
  invalidOrderMapping: () => badRequest('Invalid order mapping.'),
  /** A bulk "add"/"delete" endpoint given neither (user group members, subscriptions). */
  nothingToDo: () => badRequest('Nothing to do. Specify at least one of "add" or "delete".'),
  tooLong: (name: string, limit: number | string) => badRequest(`${name} is too long (limit: ${limit} characters)`),
  tooManyItems: (name: string, limit: number | string) => badRequest(`${name} is too long (limit: ${limit} items)`),
  cannotBeBlank: (name: string) => badRequest(`${name} cannot be blank`),
  invalidFormat: (name: string) => badRequest(`${name} has invalid format`),
  tooSmall: (name: string) => badRequest(`${name} is too small`),
  tooLarge: (name: string) => badRequest(`${name} is too large`),
  /** Zulip's check_dict: a required key is absent from the dict `name`. */
  keyMissing: (key: string, name: string) => badRequest(`${key} key is missing from ${name}`),
  /** Zulip's check_dict_only: keys it does not know (joined as Zulip joins them). */
  unexpectedArguments: (keys: string[]) => badRequest(`Unexpected arguments: ${keys.join(', ')}`),
  /** A required key of a dict parameter is absent: `path` is `name["key"]`. */
  fieldMissing: (path: string) => badRequest(`${path} field is missing: Field required`),
  unexpectedArgument: (key: string, at: string) => badRequest(`Argument "${key}" at ${at} is unexpected`),
  /** Pydantic's model validation error; catalog files build their specific ones from it. */
  valueError: (at: string, detail: string) => badRequest(`Invalid ${at}: Value error, ${detail}`),
  /** An enum parameter outside its values, as pydantic words it. */
  notInList: (name: string) => ParamErrors.valueError(name, 'Not in the list of possible values'),
  notADictionaryOf: (at: string, model: string) =>
    badRequest(`Invalid ${at}: Input should be a valid dictionary or instance of ${model}`),
  /** Zulip's RequestVariableConversionError. */
  badValue: (name: string, value: unknown) =>
    new ZulipError(`Bad value for '${name}': ${String(value)}`, 'REQUEST_VARIABLE_INVALID', 400, {
      var_name: name,
      bad_value: value,
    }),
  /** Zulip's IncompatibleParametersError (`parameters` is the joined list). */
  incompatibleParameters: (names: string[]) => {
    const parameters = names.join(', ');
    return badRequest(unsupportedCombination(parameters), { parameters });
  },
  /** The same text with `parameters` as a list (GET /messages). */
  incompatibleParameterList: (names: string[]) =>
    badRequest(unsupportedCombination(names.join(', ')), { parameters: names }),
  /** The wording of Zulip's name checks: `Invalid character in <what>, at position N.` */
  invalidCharacter: (what: string, position: number) =>
    badRequest(`Invalid character in ${what}, at position ${position}.`),
};

function unsupportedCombination(parameters: string): string {
  return `Unsupported parameter combination: ${parameters}`;
}
