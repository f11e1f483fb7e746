/**
 * Zulip-flavoured Markdown.  Two phases, no database access:
 *
 *   const refs = collectReferences(content);          // names/ids to load
 *   const result = renderMarkdown(content, context);  // html + message flags
 */
export { collectReferences } from './references';
import { renderMarkdown } from './render';

export { renderMarkdown };
export { DEFAULT_LIMITS } from './limits';
export { sanitizeHtml, isSafeUrl } from './sanitize';
export { compileLinkifiers, compileRe2, namedGroups, type CompiledLinkifier, type LinkifierDef } from './linkifiers';
export { topicLinks, type TopicLink } from './topic-links';
export { isValidUriTemplate, parseUriTemplate, uriTemplateVariables } from './uri-template';
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

/**
 * HTML of a description (realm, channel, channel folder, profile-field hint): Zulip renders these
 * with the message renderer but without link previews, and without realm data for mentions.
 */
export function renderDescription(text: string): string {
  if (!text) return '';
  return renderMarkdown(text, { imagePreviews: false }).html;
}
