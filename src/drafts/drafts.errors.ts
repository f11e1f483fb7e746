import { badRequest, ZulipError } from '../common/errors/zulip-error';

/** Errors of drafts and saved snippets (zerver/lib/drafts.py, zerver/actions/saved_snippets.py). */
export const DraftErrors = {
  syncDisabled: () => badRequest('User has disabled synchronizing drafts.'),
  doesNotExist: () => new ZulipError('Draft does not exist', 'BAD_REQUEST', 404),
  negativeTimestamp: () => badRequest('Timestamp must not be negative.'),
  topicNullBytes: () => badRequest('Topic must not contain null bytes'),
  oneChannel: () => badRequest('Must specify exactly 1 channel ID for channel messages'),
};

export const SavedSnippetErrors = {
  doesNotExist: () => new ZulipError('Saved snippet does not exist.', 'BAD_REQUEST', 404),
};
