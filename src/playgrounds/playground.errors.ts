import { badRequest } from '../common/errors/zulip-error';

const INVALID_LANGUAGE = 'Invalid characters in pygments language';

/** Texts of RealmPlayground.full_clean (reported through LinkifierErrors.validationFailed). */
export const PlaygroundValidationTexts = {
  invalidLanguage: INVALID_LANGUAGE,
  missingCode: 'Missing the required variable "code" in the URL template',
  onlyCode: '"code" should be the only variable present in the URL template',
  exists: 'Realm playground with this Realm, Pygments language and Name already exists.',
};

/** Errors of code playgrounds (zerver/views/realm_playgrounds.py). */
export const PlaygroundErrors = {
  /** The view's own check of pygments_language (a plain error, before the model's). */
  invalidLanguage: () => badRequest(INVALID_LANGUAGE),
  notFound: () => badRequest('Invalid playground'),
};
