/**
 * The text of a notification, from a message's rendered HTML, as Zulip's get_mobile_push_content
 * (zerver/lib/push_notifications.py): Unicode emoji for emoji spans, `alt` for images, `> ` quoted
 * blockquotes, numbered ordered lists, spoilers reduced to their header and `(…)`, TeX as `$$…$$`,
 * and quote-and-reply paragraphs collapsed to `[…]` when the message says more than the quote.
 * Then truncate_content: over 200 code points, the first 200 and `…`.
 *
 * The HTML is our own renderer's allow-listed output, so a small tree builder suffices (no lxml).
 */

interface El {
  tag: string;
  attrs: Record<string, string>;
  children: Node[];
  parent: El | undefined;
}
type Node = El | string;

const VOID = new Set(['area', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'wbr']);
const TAG_RE = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>/y;
const ATTR_RE = /([^\s=>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref] ?? whole;
  });
}

function parseAttrs(raw: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of raw.matchAll(ATTR_RE)) attrs[m[1].toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
  return attrs;
}

/** A fragment's tree under a synthetic root (lxml's fragment_fromstring(create_parent=True)). */
export function parseFragment(html: string): El {
  const root: El = { tag: 'div', attrs: {}, children: [], parent: undefined };
  let current = root;
  let i = 0;
  let text = '';
  const flush = () => {
    if (text) current.children.push(decodeEntities(text));
    text = '';
  };
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      text += html.slice(i);
      break;
    }
    text += html.slice(i, lt);
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    TAG_RE.lastIndex = lt;
    const m = TAG_RE.exec(html);
    if (!m) {
      text += '<';
      i = lt + 1;
      continue;
    }
    flush();
    i = lt + m[0].length;
    const tag = m[2].toLowerCase();
    if (m[1] === '/') {
      // Close the nearest open element with this name (and anything left open inside it).
      for (let el: El | undefined = current; el && el !== root; el = el.parent) {
        if (el.tag === tag) {
          current = el.parent ?? root;
          break;
        }
      }
      continue;
    }
    const el: El = { tag, attrs: parseAttrs(m[3]), children: [], parent: current };
    current.children.push(el);
    if (!VOID.has(tag) && m[4] !== '/') current = el;
  }
  flush();
  return root;
}

const isEl = (n: Node): n is El => typeof n !== 'string';
const classesOf = (el: El) => (el.attrs.class ?? '').split(/\s+/).filter(Boolean);

function textContent(node: Node): string {
  return isEl(node) ? node.children.map(textContent).join('') : node;
}

function findAll(el: El, pred: (e: El) => boolean, out: El[] = []): El[] {
  for (const child of el.children) {
    if (!isEl(child)) continue;
    if (pred(child)) out.push(child);
    findAll(child, pred, out);
  }
  return out;
}

/** Zulip's hex_codepoint_to_emoji: "1f1fa-1f1f8" → 🇺🇸. */
function hexCodepointsToEmoji(code: string): string | undefined {
  const parts = code.split('-');
  if (!parts.every((p) => /^[0-9a-fA-F]{1,6}$/.test(p))) return undefined;
  const points = parts.map((p) => parseInt(p, 16));
  return points.every((p) => p <= 0x10ffff) ? String.fromCodePoint(...points) : undefined;
}

export interface MobileContentOptions {
  /** Hosts whose `#narrow/…/near/<id>` links count as links to this server (quote-and-reply detection). */
  serverHosts: readonly string[];
  /** Collapse quotes mixed with other text into `[…]` (default true; false for older Zulip's text). */
  collapseQuotes?: boolean;
}

/** Zulip's is_same_server_message_link. */
function isSameServerMessageLink(href: string, hosts: readonly string[]): boolean {
  let hostname: string | undefined;
  let fragment: string;
  const hash = href.indexOf('#');
  fragment = hash >= 0 ? href.slice(hash + 1) : '';
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(href) || href.startsWith('//')) {
    try {
      const url = new URL(href, 'http://relative.invalid');
      hostname = url.hostname;
      fragment = url.hash.replace(/^#/, '');
    } catch {
      return false;
    }
  }
  if (hostname !== undefined && !hosts.includes(hostname)) return false;
  const parts = fragment.split('/');
  if (parts.length < 5) return false;
  return (
    parts[0] === 'narrow' &&
    (parts[1] === 'channel' || parts[1] === 'dm') &&
    parts[parts.length - 2] === 'near' &&
    /^\d+$/.test(parts[parts.length - 1])
  );
}

/** "@Name [said](…/near/id):" — the line quote-and-reply puts above the quote. */
function isUserSaidParagraph(el: El, hosts: readonly string[]): boolean {
  const mentions = findAll(el, (e) => classesOf(e).includes('user-mention'));
  if (classesOf(el).includes('user-mention')) mentions.unshift(el);
  if (mentions.length !== 1) return false;
  const links = findAll(el, (e) => e.tag === 'a' && e.attrs.href !== undefined).filter((a) =>
    isSameServerMessageLink(a.attrs.href, hosts),
  );
  if (links.length !== 1) return false;
  const remaining = textContent(el).replace(textContent(mentions[0]), '').replace(textContent(links[0]), '');
  return remaining.trim() === ':';
}

/**
 * Zulip's potentially_collapse_quotes: when the message mixes quotes (or "X said:" lines) with its
 * own text, each run of them becomes one `[…]` paragraph.
 */
function collapseQuotes(root: El, hosts: readonly string[]): void {
  const elements = root.children.filter(isEl);
  const collapsible = elements.map((e) => e.tag === 'blockquote' || isUserSaidParagraph(e, hosts));
  if (collapsible.every(Boolean) || !collapsible.some(Boolean)) return;
  const out: Node[] = [];
  let prevCollapsible = false;
  let skipTail = false;
  let elementIndex = -1;
  for (const node of root.children) {
    if (!isEl(node)) {
      // Text after a replaced element was its tail, which lxml's replace() drops.
      if (!skipTail) out.push(node);
      continue;
    }
    elementIndex++;
    skipTail = false;
    if (!collapsible[elementIndex]) {
      out.push(node);
      prevCollapsible = false;
      continue;
    }
    if (!prevCollapsible) {
      out.push({ tag: 'p', attrs: {}, children: ['[…]'], parent: root });
      skipTail = true;
    }
    // A dropped element (drop_tree) keeps its tail, so later text stays.
    prevCollapsible = true;
  }
  root.children = out;
}

/** Zulip's change_katex_to_raw_latex: each `span.katex` becomes its TeX source in `$$…$$`. */
function katexToLatex(el: El): void {
  el.children = el.children.map((child) => {
    if (!isEl(child)) return child;
    if (child.tag === 'span' && child.attrs.class === 'katex') {
      const annotation = findAll(child, (e) => e.tag === 'annotation' && e.attrs.encoding === 'application/x-tex')[0];
      const tex = annotation ? textContent(annotation) : '';
      return { tag: 'span', attrs: {}, children: [`$$${tex}$$`], parent: el };
    }
    katexToLatex(child);
    return child;
  });
}

function ownText(el: El): string {
  let text = '';
  for (const child of el.children) {
    if (isEl(child)) break;
    text += child;
  }
  return text;
}

/** lxml's `elem.text` with Zulip's substitutions (get_text). */
function getText(el: El): string {
  const classes = el.attrs.class ?? '';
  if (classes.includes('emoji')) {
    const m = /emoji-(\S+)/.exec(classes);
    const emoji = m ? hexCodepointsToEmoji(m[1]) : undefined;
    if (emoji !== undefined) return emoji;
  }
  if (el.tag === 'img') return el.attrs.alt ?? '';
  if (el.tag === 'blockquote') return '';
  return ownText(el);
}

function formatAsQuote(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .filter((line) => line)
    .map((line) => `> ${line}\n`)
    .join('');
}

function ancestorsNamed(el: El, tag: string): number {
  let n = 0;
  for (let p = el.parent; p; p = p.parent) if (p.tag === tag) n++;
  return n;
}

/** Zulip's process() returns ordered lists and spoilers without their tail. */
function dropsTail(el: El): boolean {
  return el.tag === 'ol' || classesOf(el).includes('spoiler-block');
}

/** process(elem) without the tail: the caller appends text siblings itself. */
function processElement(el: El): string {
  if (el.tag === 'ol') return renderOrderedList(el);
  if (classesOf(el).includes('spoiler-block')) return renderSpoiler(el);
  let sub = '';
  let seenElement = false;
  let dropTail = false;
  for (const child of el.children) {
    if (isEl(child)) {
      seenElement = true;
      sub += processElement(child);
      dropTail = dropsTail(child);
    } else if (seenElement && !dropTail) {
      sub += child; // a tail
    }
  }
  if (el.tag === 'blockquote') sub = formatAsQuote(sub);
  return getText(el) + sub;
}

/** processElement plus the element's tail (the text nodes right after it). */
function processWithTail(el: El): string {
  if (dropsTail(el)) return processElement(el);
  const siblings = el.parent?.children ?? [];
  let tail = '';
  for (let i = siblings.indexOf(el) + 1; i < siblings.length && !isEl(siblings[i]); i++) tail += siblings[i] as string;
  return processElement(el) + tail;
}

function renderOrderedList(ol: El): string {
  let counter = ol.attrs.start && /^\d+$/.test(ol.attrs.start) ? Number(ol.attrs.start) : 1;
  const nested = ancestorsNamed(ol, 'ol');
  const indent = nested ? '\n' + '  '.repeat(nested) : '';
  const items: string[] = [];
  for (const li of ol.children.filter(isEl)) {
    items.push(`${indent}${counter}. ${processWithTail(li).trim()}`);
    counter++;
  }
  return items.join('\n');
}

function renderSpoiler(el: El): string {
  const header = findAll(el, (e) => classesOf(e).includes('spoiler-header'))[0];
  const text = header ? processWithTail(header).trim() : '';
  return text ? `${text} (…)\n` : '(…)\n';
}

/** The notification text of rendered message HTML (before truncation). */
export function mobilePushContent(renderedHtml: string, options: MobileContentOptions): string {
  const root = parseFragment(renderedHtml);
  katexToLatex(root);
  if (options.collapseQuotes !== false) collapseQuotes(root, options.serverHosts);
  return processElement(root);
}

export const PUSH_CONTENT_MAX = 200;

/** Zulip's truncate_content: 200 code points, then U+2026 HORIZONTAL ELLIPSIS. */
export function truncatePushContent(content: string): { content: string; truncated: boolean } {
  if (content.length <= PUSH_CONTENT_MAX) return { content, truncated: false };
  const points = Array.from(content);
  if (points.length <= PUSH_CONTENT_MAX) return { content, truncated: false };
  return { content: points.slice(0, PUSH_CONTENT_MAX).join('') + '…', truncated: true };
}
