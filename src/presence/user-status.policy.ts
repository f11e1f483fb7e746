import { ParamErrors } from '../common/errors/param.errors';
import { Errors } from '../common/errors/zulip-error';
import { checkEmojiReaction, resolveEmojiName } from '../markdown/emoji/emoji';
import { EmojiErrors } from '../markdown/emoji/emoji.errors';
import { UserStatusErrors } from './presence.errors';
import type { StatusChange, StatusRow } from './user-status.repository';

export const MAX_STATUS_TEXT_LENGTH = 60;

export interface StatusRequest {
  away?: boolean;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

/**
 * check_update_user_status: the text is stripped (at most 60 characters), an empty emoji name
 * clears the emoji, a name alone is looked up, a code or type needs a name, and the emoji must
 * exist. Throws Zulip's errors; returns what to store.
 */
export function checkStatusRequest(req: StatusRequest, options: { allowAway: boolean }): StatusChange {
  const statusText = req.statusText?.trim();
  if (statusText !== undefined && [...statusText].length > MAX_STATUS_TEXT_LENGTH) {
    throw ParamErrors.tooLong('status_text', MAX_STATUS_TEXT_LENGTH);
  }
  const away = options.allowAway ? req.away : undefined;
  if (away === undefined && statusText === undefined && req.emojiName === undefined) {
    throw UserStatusErrors.noNewValues();
  }
  const { emojiName } = req;
  let { emojiCode, reactionType } = req;
  if (emojiName === '') {
    emojiCode = '';
    reactionType = 'unicode_emoji';
  } else if (emojiName !== undefined) {
    if (emojiCode === undefined || reactionType === undefined) {
      const resolved = resolveEmojiName(emojiName, []);
      if (!resolved) throw EmojiErrors.doesNotExist(emojiName);
      emojiCode ??= resolved.code;
      reactionType ??= resolved.reactionType;
    }
    const error = checkEmojiReaction({ name: emojiName, code: emojiCode, type: reactionType }, []);
    if (error) throw Errors.badRequest(error);
  } else if (emojiCode || reactionType) {
    throw UserStatusErrors.emojiNameRequired();
  }
  return {
    statusText,
    emojiName,
    emojiCode: emojiName === undefined ? undefined : emojiCode,
    reactionType: emojiName === undefined ? undefined : reactionType,
  };
}

/** format_user_status: only what is set (`away` when presence is disabled). */
export function formatUserStatus(row: StatusRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!row.presenceEnabled) out.away = true;
  if (row.statusText) out.status_text = row.statusText;
  if (row.emojiName) {
    out.emoji_name = row.emojiName;
    out.emoji_code = row.emojiCode;
    out.reaction_type = row.reactionType;
  }
  return out;
}
