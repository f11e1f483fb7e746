/**
 * After parsing: link bookkeeping (has_link, uploads) and inline previews
 * for image and YouTube links, placed the way Zulip's
 * InlineInterestingLinkProcessor places them:
 *
 *   - links inside quotes are never previewed, and a message with more
 *     than 24 distinct previewable links gets no previews;
 *   - each URL is previewed once, links visited breadth-first;
 *   - a link directly in a tight list item gets its preview at the end of
 *     that item; a link directly in a paragraph gets it right after the
 *     paragraph; any other link gets it at the end of the message;
 *   - a bare URL that is all of its paragraph (or list item) is replaced by
 *     its preview; a named link keeps its text and titles the preview.
 */
import type MarkdownIt from 'markdown-it';
import type { RenderEnv } from './context';
import { openTag } from './html';
import { actualImageUrl, looksLikeImage, uploadPathId, youtubeVideoId } from './url';

type Token = MarkdownIt.Token;
/** markdown-it's Token class (as `state.Token` gives it). */
type TokenConstructor = MarkdownIt.StateCore['Token'];

interface FoundLink {
  href: string;
  text: string;
  /** Depth in the element tree, for breadth-first order. */
  depth: number;
  order: number;
  quoted: boolean;
  /** Index of the block token (paragraph_open etc.) holding the inline token. */
  blockIndex: number;
  inline: Token;
  /** Index of link_open in inline.children, or -1 when not a direct child. */
  childIndex: number;
}

export interface LinkSummary {
  hasLink: boolean;
  hasImage: boolean;
  uploadPathIds: string[];
}

const CONTAINER_OPEN = new Set(['blockquote_open', 'bullet_list_open', 'ordered_list_open', 'list_item_open']);

function previewToken(TokenClass: TokenConstructor, html: string): Token {
  const token = new TokenClass('zulip_preview', 'div', 0);
  token.content = html;
  token.block = true;
  return token;
}

function imagePreviewHtml(env: RenderEnv, href: string, title: string | undefined): string {
  const image = actualImageUrl(href);
  const thumbnail = env.ctx.thumbnailUrl;
  return (
    '<div class="message_inline_image">' +
    openTag('a', { href, title }) +
    openTag('img', { 'data-src-fullsize': thumbnail(image, 'full'), src: thumbnail(image, 'thumbnail') }) +
    '</a></div>'
  );
}

function youtubePreviewHtml(env: RenderEnv, href: string, id: string): string {
  const image = `https://i.ytimg.com/vi/${id}/default.jpg`;
  return (
    '<div class="youtube-video message_inline_image">' +
    openTag('a', { 'data-id': id, href }) +
    openTag('img', { src: env.ctx.thumbnailUrl(image, 'thumbnail') }) +
    '</a></div>'
  );
}

/** Number of child elements (not text) in an inline token's children. */
function countElements(children: Token[]): number {
  return children.filter((t) => t.nesting === 1 || (t.nesting === 0 && t.type !== 'text')).length;
}

function isEmptyText(t: Token): boolean {
  return t.type === 'text' && t.content === '';
}

/** No text before the first child element (ElementTree's `parent.text` is empty). */
function noLeadingText(children: Token[]): boolean {
  for (const child of children) {
    if (child.type !== 'text') return true;
    if (child.content !== '') return false;
  }
  return true;
}

/** No text right after the element closing at `closeIndex` (its `tail` is empty). */
function noTail(children: Token[], closeIndex: number): boolean {
  const after = children[closeIndex + 1];
  return after === undefined || after.type !== 'text' || after.content === '';
}

/** Every link_open of the message, with what placing its preview needs (and the link bookkeeping). */
function collectLinks(tokens: Token[], env: RenderEnv): { found: FoundLink[]; uploadIds: string[]; hasLink: boolean } {
  const found: FoundLink[] = [];
  const uploadIds: string[] = [];
  let hasLink = env.collector.channelLinks > 0;
  let quoteDepth = 0;
  let order = 0;

  tokens.forEach((token, index) => {
    if (token.type === 'blockquote_open') quoteDepth++;
    else if (token.type === 'blockquote_close') quoteDepth--;
    if (token.type !== 'inline' || !token.children) return;
    const block = tokens[index - 1];
    let depth = 0;
    token.children.forEach((child, childIndex) => {
      if (child.type === 'link_open') {
        hasLink = true;
        const href = String(child.attrGet('href') ?? '');
        const id = uploadPathId(href, env.ctx.realmUrl);
        if (id !== null && !uploadIds.includes(id)) uploadIds.push(id);
        const meta = (child.meta ?? {}) as { text?: string };
        found.push({
          href,
          text: meta.text ?? href,
          depth: block.level + 1 + depth,
          order: order++,
          quoted: quoteDepth > 0,
          blockIndex: index - 1,
          inline: token,
          childIndex: depth === 0 ? childIndex : -1,
        });
      }
      if (child.nesting === 1) depth++;
      else if (child.nesting === -1) depth--;
    });
  });
  return { found, uploadIds, hasLink };
}

/** Where the previews go and what they replace. */
interface PreviewPlan {
  insertAfter: Map<number, Token[]>;
  insertBefore: Map<number, Token[]>;
  removedBlocks: Set<number>;
  removedChildren: Set<Token>;
  touchedInlines: Set<Token>;
  atEnd: Token[];
}

/** The preview's HTML (null: not previewable) and whether it may replace a bare URL. */
function previewFor(env: RenderEnv, link: FoundLink): { html: string; removable: boolean } | null {
  const urlIsText = link.text === link.href;
  if (looksLikeImage(link.href)) {
    return { html: imagePreviewHtml(env, link.href, urlIsText ? undefined : link.text), removable: urlIsText };
  }
  const videoId = youtubeVideoId(link.href);
  if (videoId !== null) return { html: youtubePreviewHtml(env, link.href, videoId), removable: false };
  return null;
}

/** Places one link's preview (see the file comment). */
function placePreview(plan: PreviewPlan, tokens: Token[], link: FoundLink, preview: Token, removable: boolean): void {
  const block = tokens[link.blockIndex];
  const children = link.inline.children as Token[];
  if (link.childIndex >= 0 && block.type === 'paragraph_open' && block.hidden) {
    // Directly in a tight list item: append to the item.
    const itemClose = findItemClose(tokens, link.blockIndex);
    pushTo(plan.insertBefore, itemClose, preview);
    const closeIndex = findLinkClose(children, link.childIndex);
    if (removable && noLeadingText(children) && noTail(children, closeIndex)) {
      for (const t of children.slice(link.childIndex, closeIndex + 1)) plan.removedChildren.add(t);
      plan.touchedInlines.add(link.inline);
    }
  } else if (link.childIndex >= 0 && block.type === 'paragraph_open') {
    // Directly in a paragraph: right after it, replacing a paragraph that is just this URL.
    const closeIndex = link.blockIndex + 2;
    pushTo(plan.insertAfter, closeIndex, preview);
    const linkClose = findLinkClose(children, link.childIndex);
    const onlyLink =
      countElements(children) === 1 &&
      children.slice(0, link.childIndex).every(isEmptyText) &&
      children.slice(linkClose + 1).every(isEmptyText);
    if (removable && onlyLink) {
      plan.removedBlocks.add(link.blockIndex);
      plan.removedBlocks.add(link.blockIndex + 1);
      plan.removedBlocks.add(link.blockIndex + 2);
    }
  } else {
    plan.atEnd.push(preview);
  }
}

/** The token stream with the plan's previews inserted and the replaced URLs removed. */
function applyPreviewPlan(tokens: Token[], plan: PreviewPlan): Token[] {
  for (const inline of plan.touchedInlines) {
    inline.children = (inline.children as Token[]).filter((t) => !plan.removedChildren.has(t));
  }
  const out: Token[] = [];
  tokens.forEach((token, index) => {
    const before = plan.insertBefore.get(index);
    if (before) out.push(...before);
    if (!plan.removedBlocks.has(index)) out.push(token);
    const after = plan.insertAfter.get(index);
    if (after) out.push(...after);
  });
  out.push(...plan.atEnd);
  return out;
}

export function processLinks(
  tokens: Token[],
  env: RenderEnv,
  TokenClass: TokenConstructor,
): { tokens: Token[]; summary: LinkSummary } {
  const { found, uploadIds, hasLink } = collectLinks(tokens, env);
  const summary: LinkSummary = { hasLink, hasImage: false, uploadPathIds: uploadIds };
  if (!env.ctx.imagePreviews || found.length === 0) return { tokens, summary };

  const previewable = new Set(found.filter((f) => !f.quoted).map((f) => f.href));
  if (previewable.size > env.ctx.limits.maxInlinePreviews) return { tokens, summary };

  const plan: PreviewPlan = {
    insertAfter: new Map(),
    insertBefore: new Map(),
    removedBlocks: new Set(),
    removedChildren: new Set(),
    touchedInlines: new Set(),
    atEnd: [],
  };
  const seen = new Set<string>();
  const ordered = [...found].sort((a, b) => a.depth - b.depth || a.order - b.order);
  for (const link of ordered) {
    if (link.quoted || seen.has(link.href)) continue;
    seen.add(link.href);
    const preview = previewFor(env, link);
    if (preview === null) continue;
    summary.hasImage = true;
    placePreview(plan, tokens, link, previewToken(TokenClass, preview.html), preview.removable);
  }
  return { tokens: applyPreviewPlan(tokens, plan), summary };
}

function pushTo(map: Map<number, Token[]>, index: number, token: Token): void {
  const list = map.get(index);
  if (list) list.push(token);
  else map.set(index, [token]);
}

function findLinkClose(children: Token[], openIndex: number): number {
  let depth = 0;
  for (let i = openIndex; i < children.length; i++) {
    if (children[i].nesting === 1) depth++;
    else if (children[i].nesting === -1) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return children.length - 1;
}

/** The list_item_close of the item containing the block at `index`. */
function findItemClose(tokens: Token[], index: number): number {
  let depth = 0;
  for (let i = index; i < tokens.length; i++) {
    const t = tokens[i];
    if (CONTAINER_OPEN.has(t.type)) depth++;
    else if (t.type === 'list_item_close') {
      if (depth === 0) return i;
      depth--;
    } else if (t.type === 'blockquote_close' || t.type === 'bullet_list_close' || t.type === 'ordered_list_close') {
      depth--;
    }
  }
  return tokens.length - 1;
}
