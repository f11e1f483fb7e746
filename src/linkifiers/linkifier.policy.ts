import { compileRe2, namedGroups, parseUriTemplate, uriTemplateVariables } from '../markdown';
import { ModelValidationTexts as T, type ValidationErrors } from './linkifier.errors';

/** Adds a text under a field, keeping Django's order of fields. */
export function addError(errors: ValidationErrors, field: string, text: string): void {
  (errors[field] ??= []).push(text);
}

/** url_template_validator on a non-blank value; blank values get Django's blank text. */
export function checkUrlTemplateField(errors: ValidationErrors, urlTemplate: string): void {
  if (urlTemplate === '') addError(errors, 'url_template', T.blank);
  else if (parseUriTemplate(urlTemplate) === null) addError(errors, 'url_template', T.invalidUrlTemplate);
}

/** Python's min() over names. */
const first = (names: Iterable<string>) => [...names].sort()[0];

/**
 * RealmFilter.full_clean without the uniqueness check, in Django's order: the fields (pattern,
 * url_template: blank or an invalid template), then clean(): the pattern must compile with RE2,
 * and, when the template is valid, its variables and the pattern's named groups must be the same
 * set (one missing name reported, the smallest). Both values arrive stripped.
 */
export function linkifierErrors(pattern: string, urlTemplate: string): ValidationErrors {
  const errors: ValidationErrors = {};
  if (pattern === '') addError(errors, 'pattern', T.blank);
  checkUrlTemplateField(errors, urlTemplate);
  const compiled = compileRe2(pattern);
  if ('error' in compiled) {
    addError(errors, '__all__', T.badRegex(compiled.error));
    return errors;
  }
  const template = parseUriTemplate(urlTemplate);
  if (template === null) return errors;
  const groups = namedGroups(pattern);
  const variables = uriTemplateVariables(template);
  const notInPattern = [...variables].filter((v) => !groups.has(v));
  if (notInPattern.length > 0) {
    addError(errors, '__all__', T.groupNotInPattern(first(notInPattern)));
    return errors;
  }
  const notInTemplate = [...groups].filter((g) => !variables.has(g));
  if (notInTemplate.length > 0) addError(errors, '__all__', T.groupNotInTemplate(first(notInTemplate)));
  return errors;
}

/**
 * check_reorder_linkifiers: the list must name every linkifier of the realm exactly once;
 * returns the error's kind, or null.
 */
export function reorderProblem(
  ordered: readonly number[],
  existing: readonly number[],
): 'duplicates' | 'incomplete' | null {
  const wanted = new Set(ordered);
  if (wanted.size < ordered.length) return 'duplicates';
  const have = new Set(existing);
  if (have.size !== wanted.size || [...have].some((id) => !wanted.has(id))) return 'incomplete';
  return null;
}
