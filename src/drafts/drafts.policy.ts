import { ParamErrors } from '../common/errors/param.errors';
import type { DraftDict, SavedSnippetDict } from '../events/client-events';
import { pyStrip } from '../messaging/message-text';
import type { DraftRow, SavedSnippetRow } from './drafts.repository';

/**
 * Drafts' parameter shapes and API dicts (zerver/lib/drafts.py DraftData, Draft.to_dict,
 * SavedSnippet.to_api_dict). Pure functions.
 */

/** A draft as the client sent it, its shape checked (pydantic's DraftData, extra keys forbidden). */
export interface DraftData {
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  timestamp?: number;
}

const DRAFT_KEYS = ['type', 'to', 'topic', 'content', 'timestamp'];
const DRAFT_TYPES = ['', 'stream', 'private'];

/** The largest timestamp a date can hold (Python's datetime: the end of year 9999). */
export const MAX_DRAFT_TIMESTAMP = 253402300799;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Checks one draft dict at `at` (`drafts[0]`, `draft`), in DraftData's field order. */
export function parseDraftData(raw: unknown, at: string): DraftData {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw ParamErrors.notADictionaryOf(at, 'DraftData');
  const obj = raw as Record<string, unknown>;
  const field = (key: string) => `${at}["${key}"]`;

  if (!('type' in obj)) throw ParamErrors.fieldMissing(field('type'));
  if (typeof obj.type !== 'string' || !DRAFT_TYPES.includes(obj.type)) throw ParamErrors.invalid(field('type'));

  if (!('to' in obj)) throw ParamErrors.fieldMissing(field('to'));
  if (!Array.isArray(obj.to)) throw ParamErrors.notAList(field('to'));
  obj.to.forEach((v, i) => {
    if (!isInt(v)) throw ParamErrors.notAnInteger(`${field('to')}[${i}]`);
  });

  if (!('topic' in obj)) throw ParamErrors.fieldMissing(field('topic'));
  if (typeof obj.topic !== 'string') throw ParamErrors.notAString(field('topic'));

  if (!('content' in obj)) throw ParamErrors.fieldMissing(field('content'));
  if (typeof obj.content !== 'string') throw ParamErrors.notAString(field('content'));
  // RequiredStringConstraint: stripped, then at least one character.
  const content = pyStrip(obj.content);
  if (content.length === 0) throw ParamErrors.cannotBeBlank(field('content'));

  let timestamp: number | undefined;
  if (obj.timestamp !== undefined && obj.timestamp !== null) {
    if (typeof obj.timestamp !== 'number' || !Number.isFinite(obj.timestamp)) {
      throw ParamErrors.notAnInteger(field('timestamp'));
    }
    timestamp = obj.timestamp;
  }

  for (const key of Object.keys(obj)) {
    if (!DRAFT_KEYS.includes(key)) throw ParamErrors.unexpectedArgument(key, at);
  }
  return { type: obj.type as DraftData['type'], to: obj.to as number[], topic: obj.topic, content, timestamp };
}

/** `drafts` of POST /drafts: a list of draft dicts. */
export function parseDraftList(raw: unknown): DraftData[] {
  if (!Array.isArray(raw)) throw ParamErrors.notAList('drafts');
  return raw.map((d, i) => parseDraftData(d, `drafts[${i}]`));
}

/**
 * The API's `to` of a direct draft from the ids given (Zulip's recipient_for_user_profiles
 * and get_recipient_ids): the other participants by id, or the user alone for a note to self.
 */
export function directDraftTo(userIds: readonly number[], selfId: number): number[] {
  const others = [...new Set(userIds)].filter((id) => id !== selfId).sort((a, b) => a - b);
  return others.length > 0 ? others : [selfId];
}

/** Seconds since the epoch, whole (Python's int() of a positive float). */
const wholeSeconds = (date: Date) => Math.trunc(date.getTime() / 1000);

/** Draft.to_dict. */
export function draftDict(row: DraftRow): DraftDict {
  return {
    id: row.id,
    type: row.type,
    to: row.type === 'stream' ? [row.streamId!] : row.type === 'private' ? row.toUserIds : [],
    topic: row.topic,
    content: row.content,
    timestamp: wholeSeconds(row.lastEditTime),
  };
}

/** SavedSnippet.to_api_dict. */
export function savedSnippetDict(row: SavedSnippetRow): SavedSnippetDict {
  return { id: row.id, title: row.title, content: row.content, date_created: wholeSeconds(row.dateCreated) };
}
