import { ParamErrors } from '../common/errors/param.errors';

/** Errors of alert words (parameter texts in Zulip's pydantic words). */
export const AlertWordErrors = {
  /** PostgreSQL text cannot hold NUL characters. */
  invalidCharacter: (position: number) => ParamErrors.invalidCharacter('alert word', position),
};
