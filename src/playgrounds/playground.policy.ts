import { ModelValidationTexts, type ValidationErrors } from '../linkifiers/linkifier.errors';
import { addError, checkUrlTemplateField } from '../linkifiers/linkifier.policy';
import { parseUriTemplate, uriTemplateVariables } from '../markdown';
import { PlaygroundValidationTexts as T } from './playground.errors';

/** Zulip's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

/**
 * The characters of a language name (Zulip's view and model both check them): letters, digits,
 * space, `_ + , - . / #` (Zulip's `+-.` is a range).
 */
export const LANGUAGE_RE = /^[ a-zA-Z0-9_+,\-./#]*$/;

/**
 * RealmPlayground.full_clean without the uniqueness check, in Django's order: the fields
 * (url_template, name, pygments_language), then clean(): a valid template's only variable must be
 * `code`. Values arrive stripped.
 */
export function playgroundErrors(name: string, language: string, urlTemplate: string): ValidationErrors {
  const errors: ValidationErrors = {};
  checkUrlTemplateField(errors, urlTemplate);
  if (name === '') addError(errors, 'name', ModelValidationTexts.blank);
  if (language === '') addError(errors, 'pygments_language', ModelValidationTexts.blank);
  else if (!LANGUAGE_RE.test(language)) addError(errors, 'pygments_language', T.invalidLanguage);
  const template = parseUriTemplate(urlTemplate);
  if (template !== null) {
    const variables = uriTemplateVariables(template);
    if (!variables.has('code')) addError(errors, '__all__', T.missingCode);
    else if (variables.size !== 1) addError(errors, '__all__', T.onlyCode);
  }
  return errors;
}
