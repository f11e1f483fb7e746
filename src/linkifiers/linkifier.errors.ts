import { badRequest, ZulipError } from '../common/errors/zulip-error';

/**
 * Texts of Zulip's model validation (Django's full_clean on RealmFilter and RealmPlayground),
 * reported through ValidationFailureError: the first text as `msg`, all of them in `errors`.
 */
export const ModelValidationTexts = {
  blank: 'This field cannot be blank.',
  invalidUrlTemplate: 'Invalid URL template.',
  badRegex: (detail: string) => `Bad regular expression: ${detail}`,
  groupNotInPattern: (name: string) => `Group '${name}' in URL template is not present in linkifier pattern.`,
  groupNotInTemplate: (name: string) => `Group '${name}' in linkifier pattern is not present in URL template.`,
  linkifierExists: 'Realm filter with this Realm and Pattern already exists.',
};

/** Field → texts, in Django's order (fields in model order, then `__all__`). */
export type ValidationErrors = Record<string, string[]>;

/** Errors of realm linkifiers (zerver/views/realm_linkifiers.py, zerver/actions/realm_linkifiers.py). */
export const LinkifierErrors = {
  /** Zulip's ValidationFailureError. */
  validationFailed: (errors: ValidationErrors) =>
    new ZulipError(Object.values(errors)[0][0], 'BAD_REQUEST', 400, { errors }),
  notFound: () => badRequest('Linkifier not found.'),
  duplicatedInOrder: () => badRequest('The ordered list must not contain duplicated linkifiers'),
  incompleteOrder: () => badRequest('The ordered list must enumerate all existing linkifiers exactly once'),
};
