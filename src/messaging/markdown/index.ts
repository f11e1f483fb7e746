/**
 * Zulip-flavoured Markdown.  Two phases, no database access:
 *
 *   const refs = collectReferences(content);          // names/ids to load
 *   const result = renderMarkdown(content, context);  // html + message flags
 */
export { collectReferences } from './references';
export { renderMarkdown } from './render';
export { DEFAULT_LIMITS } from './limits';
export { sanitizeHtml, isSafeUrl } from './sanitize';
export type {
  DegradedReason,
  LinkableChannel,
  MarkdownContext,
  MarkdownLimits,
  MarkdownReferences,
  MentionGroup,
  MentionUser,
  RealmEmoji,
  RenderedMessage,
  ThumbnailSize,
} from './types';
