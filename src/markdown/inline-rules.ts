/**
 * Inline syntax as Zulip renders it, as markdown-it inline rules.
 *
 * The rules scan left to right like Zulip's web-client parser, but follow
 * the server's precedence where the two differ: code spans, TeX and
 * resolved mentions/channel links are atomic, so `**`, `*` and `~~` never
 * pair across them.  Emphasis is Zulip's, not CommonMark's: `**strong**`,
 * `*em*` (no underscores), `~~del~~`, none spanning lines.
 */
import type MarkdownIt from 'markdown-it';
import { escapeText, openTag } from './html';
import { canStartUrlAfter, matchAutolink, mightBeAutolink } from './autolink';
import { rewriteLocalLink, sanitizeLinkUrl } from './url';
import { renderTex } from './tex';
import { findLinkifierLinks, type LinkifierMatch } from './linkifiers';
import { checkDeadline } from './context';
import { formatIsoSeconds, parseTimestamp } from './timestamp';
import {
  EMOTICON_CONVERSIONS,
  ZULIP_EXTRA_EMOJI,
  createEmojiSequenceMatcher,
  emojiByName,
  resolveUnicodeEmoji,
} from './emoji/emoji';
import {
  EMOJI_SYNTAX_RE,
  ESCAPABLE,
  TIME_RE,
  codeSpanLength,
  emojiSpan,
  envOf,
  findCloser,
  imageEmoji,
  matchTex,
  resolveChannelLink,
  resolveGroupMention,
  resolveUserMention,
  stickyMatch,
  type Resolved,
  type StateInline,
} from './inline-syntax';

// ---------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------

function pushHtml(state: StateInline, html: string, meta?: Record<string, unknown>): void {
  const token = state.push('zulip_html_inline', '', 0);
  token.content = html;
  if (meta) token.meta = meta;
}

/** Parses src[start, end) as nested inline content. */
function tokenizeRange(state: StateInline, start: number, end: number): void {
  const env = envOf(state);
  const oldMax = state.posMax;
  state.pos = start;
  state.posMax = end;
  env.inlineDepth++;
  try {
    state.md.inline.tokenize(state);
  } finally {
    env.inlineDepth--;
    state.posMax = oldMax;
  }
}

/** Formatting may nest up to the limit, and never inside link text (Zulip keeps it literal). */
function canNest(state: StateInline): boolean {
  const env = envOf(state);
  return !env.inLink && env.inlineDepth < env.ctx.limits.maxInlineNesting;
}

/** Backslash escapes, for the characters Zulip's web client allows. */
function escapeRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x5c || pos + 1 >= state.posMax) return false;
  const next = src[pos + 1];
  if (!ESCAPABLE.has(next)) return false;
  if (!silent) state.pending += next;
  state.pos += 2;
  return true;
}

/** Code spans: a backtick run closed by the same run on the same line; content is not trimmed. */
function codeRule(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  if (src.charCodeAt(pos) !== 0x60) return false;
  const len = codeSpanLength(src, pos, posMax);
  if (len === 0) {
    let run = 0;
    while (pos + run < posMax && src.charCodeAt(pos + run) === 0x60) run++;
    if (!silent) state.pending += src.slice(pos, pos + run);
    state.pos += run;
    return true;
  }
  if (!silent) {
    let run = 0;
    while (src.charCodeAt(pos + run) === 0x60) run++;
    const token = state.push('code_inline', 'code', 0);
    token.content = src.slice(pos + run, pos + len - run);
  }
  state.pos += len;
  return true;
}

function delimiterRun(src: string, pos: number, ch: number): number {
  let run = 0;
  while (src.charCodeAt(pos + run) === ch) run++;
  return run;
}

/** Long runs of * or ~ are text (and cannot make the pairing search quadratic). */
function literalRun(state: StateInline, silent: boolean, ch: number): boolean {
  const run = delimiterRun(state.src, state.pos, ch);
  if (run < 4) return false;
  if (!silent) state.pending += state.src.slice(state.pos, state.pos + run);
  state.pos += run;
  return true;
}

function findStrongCloser(state: StateInline, start: number): number {
  const { src } = state;
  return findCloser(state, start + 1, (i) =>
    src.charCodeAt(i) === 0x2a && src.charCodeAt(i + 1) === 0x2a && src.charCodeAt(i + 2) !== 0x2a ? 'close' : 'skip',
  );
}

/** `**strong**`: the first following `**` not followed by another `*`. */
function strongRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x2a || src.charCodeAt(pos + 1) !== 0x2a) return false;
  if (literalRun(state, silent, 0x2a)) return true;
  if (!canNest(state)) return false;
  const close = findStrongCloser(state, pos + 2);
  if (close < 0 || close + 2 > state.posMax) return false;
  if (silent) {
    state.pos = close + 2;
    return true;
  }
  state.push('strong_open', 'strong', 1);
  tokenizeRange(state, pos + 2, close);
  state.push('strong_close', 'strong', -1);
  state.pos = close + 2;
  return true;
}

/** `*em*`: no space after the opener or before the closer, no bare `*` inside. */
function emRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x2a || src.charCodeAt(pos + 1) === 0x2a) return false;
  const first = src[pos + 1];
  if (first === undefined || /\s/.test(first) || pos + 1 >= state.posMax) return false;
  if (!canNest(state)) return false;
  const close = findCloser(state, pos + 1, (i) => {
    if (src.charCodeAt(i) !== 0x2a) return 'skip';
    if (src.charCodeAt(i + 1) === 0x2a) {
      // A nested **strong** is fine; otherwise this `*` may close us.
      const strongClose = findStrongCloser(state, i + 2);
      if (strongClose >= 0) return strongClose + 2;
    }
    return i > pos + 1 && !/\s/.test(src[i - 1]) ? 'close' : 'fail';
  });
  if (close < 0 || close + 1 > state.posMax) return false;
  if (silent) {
    state.pos = close + 1;
    return true;
  }
  state.push('em_open', 'em', 1);
  tokenizeRange(state, pos + 1, close);
  state.push('em_close', 'em', -1);
  state.pos = close + 1;
  return true;
}

/** `~~del~~`, not touching other tildes, with no `~` inside. */
function delRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x7e || src.charCodeAt(pos + 1) !== 0x7e) return false;
  if (literalRun(state, silent, 0x7e)) return true;
  if (src.charCodeAt(pos - 1) === 0x7e || src.charCodeAt(pos + 2) === 0x7e) return false;
  if (!canNest(state)) return false;
  const close = findCloser(state, pos + 2, (i) => {
    if (src.charCodeAt(i) !== 0x7e) return 'skip';
    return i > pos + 2 && src.charCodeAt(i + 1) === 0x7e && src.charCodeAt(i + 2) !== 0x7e ? 'close' : 'fail';
  });
  if (close < 0 || close + 2 > state.posMax) return false;
  if (silent) {
    state.pos = close + 2;
    return true;
  }
  state.push('del_open', 'del', 1);
  tokenizeRange(state, pos + 2, close);
  state.push('del_close', 'del', -1);
  state.pos = close + 2;
  return true;
}

function pushLink(state: StateInline, href: string, title: string | undefined, meta: Record<string, unknown>): void {
  const open = state.push('link_open', 'a', 1);
  open.attrSet('href', href);
  if (title) open.attrSet('title', title);
  open.meta = meta;
}

/** Finds the `)` matching the `(` at `open`, or -1. */
function matchingParen(src: string, open: number, max: number): number {
  let depth = 0;
  for (let i = open; i < max; i++) {
    const ch = src.charCodeAt(i);
    if (ch === 0x5c) {
      i++;
    } else if (ch === 0x28) {
      depth++;
    } else if (ch === 0x29) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

const LINK_TARGET_RE = /^\s*<?([\s\S]*?)>?(?:\s+(['"])([\s\S]*?)\2)?\s*$/;

/** `[text](url "title")`.  No reference links, no images; unsafe URLs are left as text. */
function linkRule(state: StateInline, silent: boolean): boolean {
  const env = envOf(state);
  const { src, pos, posMax } = state;
  if (src.charCodeAt(pos) !== 0x5b || env.inLink) return false;
  const labelEnd = state.md.helpers.parseLinkLabel(state, pos, false);
  if (labelEnd < 0 || src.charCodeAt(labelEnd + 1) !== 0x28) return false;
  const close = matchingParen(src, labelEnd + 1, posMax);
  if (close < 0) return false;
  const target = LINK_TARGET_RE.exec(src.slice(labelEnd + 2, close));
  if (!target) return false;
  const sanitized = sanitizeLinkUrl(target[1].trim());
  if (sanitized === null) return false;
  if (silent) {
    state.pos = close + 1;
    return true;
  }
  const href = rewriteLocalLink(sanitized, env.ctx.realmUrl);
  const label = src.slice(pos + 1, labelEnd);
  const textIsUrl = label.trim() === '';
  pushLink(state, href, target[3], { kind: 'link', text: textIsUrl ? href : label });
  if (textIsUrl) {
    state.push('text', '', 0).content = href;
  } else {
    env.inLink = true;
    try {
      tokenizeRange(state, pos + 1, labelEnd);
    } finally {
      env.inLink = false;
    }
  }
  state.push('link_close', 'a', -1);
  state.pos = close + 1;
  return true;
}

/** Bare URLs, domains and email addresses. */
function autolinkRule(state: StateInline, silent: boolean): boolean {
  const env = envOf(state);
  const { src, pos, posMax } = state;
  if (env.inLink || !isAsciiWordChar(src.charCodeAt(pos)) || !canStartUrlAfter(src[pos - 1])) return false;
  if (!mightBeAutolink(src, pos, posMax)) return false;
  const m = matchAutolink(src, pos, posMax);
  if (!m) return false;
  const sanitized = sanitizeLinkUrl(m.text);
  if (sanitized === null) return false;
  if (!silent) {
    const href = rewriteLocalLink(sanitized, env.ctx.realmUrl);
    pushLink(state, href, undefined, { kind: 'autolink', text: m.text });
    state.push('text', '', 0).content = m.text;
    state.push('link_close', 'a', -1);
  }
  state.pos = m.end;
  return true;
}

/**
 * The linkifier links of the inline text being parsed, found once per text (every linkifier
 * over the whole text, as Zulip applies them to a text node) and sorted by position.
 */
function linkifierLinks(state: StateInline): readonly LinkifierMatch[] {
  const env = envOf(state);
  if (env.ctx.linkifiers.length === 0) return [];
  if (env.linkifierCache?.src !== state.src) {
    env.linkifierCache = {
      src: state.src,
      links: findLinkifierLinks(env.ctx.linkifiers, state.src, () => checkDeadline(env)),
    };
  }
  return env.linkifierCache.links;
}

/** Index of the first link starting at or after `pos` (binary search). */
function firstLinkFrom(links: readonly LinkifierMatch[], pos: number): number {
  let lo = 0;
  let hi = links.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (links[mid].start < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where the text rule must stop for a linkifier link, or posMax. */
function nextLinkifierStart(state: StateInline, pos: number): number {
  const links = linkifierLinks(state);
  if (links.length === 0) return state.posMax;
  const i = firstLinkFrom(links, pos);
  return i < links.length ? Math.min(links[i].start, state.posMax) : state.posMax;
}

/**
 * Does a code span start inside [start, end)? Zulip replaces code spans before linkifiers run,
 * so a match never runs into one. Only the first few backtick runs are tried (a pattern matching
 * long runs of backticks cannot make this quadratic).
 */
function crossesCodeSpan(state: StateInline, start: number, end: number): boolean {
  const { src } = state;
  let runs = 0;
  for (let i = src.indexOf('`', start); i >= 0 && i < end && runs < 4; i = src.indexOf('`', i + 1)) {
    if (src.charCodeAt(i - 1) === 0x60) continue;
    runs++;
    if (codeSpanLength(src, i, state.posMax) > 0) return true;
  }
  return false;
}

/**
 * Realm linkifiers (Zulip's LinkifierPattern): after code, links, autolinks, mentions, channel
 * links, times and TeX, before emphasis and emoji. A URL that fails the link checks leaves the
 * text as it is (url_to_a).
 */
function linkifierRule(state: StateInline, silent: boolean): boolean {
  const env = envOf(state);
  if (env.inLink) return false;
  const links = linkifierLinks(state);
  if (links.length === 0) return false;
  const link = links[firstLinkFrom(links, state.pos)] as LinkifierMatch | undefined;
  if (!link || link.start !== state.pos || link.end > state.posMax) return false;
  if (crossesCodeSpan(state, link.start, link.end)) return false;
  const sanitized = sanitizeLinkUrl(link.url);
  if (sanitized === null) return false;
  if (!silent) {
    pushLink(state, rewriteLocalLink(sanitized, env.ctx.realmUrl), undefined, { kind: 'linkifier', text: link.text });
    state.push('text', '', 0).content = link.text;
    state.push('link_close', 'a', -1);
  }
  state.pos = link.end;
  return true;
}

function applyResolved(
  state: StateInline,
  silent: boolean,
  resolved: Resolved | null,
  meta?: Record<string, unknown>,
): boolean {
  if (!resolved || envOf(state).inLink) return false;
  if (!silent) {
    resolved.apply();
    pushHtml(state, resolved.html, meta);
  }
  state.pos = resolved.end;
  return true;
}

function userMentionRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x40) return false;
  return applyResolved(state, silent, resolveUserMention(state, state.pos));
}

function groupMentionRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x40) return false;
  return applyResolved(state, silent, resolveGroupMention(state, state.pos));
}

function channelLinkRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x23) return false;
  return applyResolved(state, silent, resolveChannelLink(state, state.pos), { kind: 'channel-link' });
}

/** `<time:…>`: a <time> element for parseable times, else the text in a <span>. */
function timestampRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x3c || envOf(state).inLink) return false;
  const m = stickyMatch(TIME_RE, src, pos);
  if (!m || pos + m[0].length > state.posMax) return false;
  if (!silent) {
    const ms = parseTimestamp(m[1]);
    pushHtml(
      state,
      ms === null
        ? `<span>${escapeText(m[1])}</span>`
        : `${openTag('time', { datetime: formatIsoSeconds(ms) })}${escapeText(m[1])}</time>`,
    );
  }
  state.pos += m[0].length;
  return true;
}

/** Inline `$$TeX$$`, rendered with KaTeX; errors show the source in a tex-error span. */
function texRule(state: StateInline, silent: boolean): boolean {
  const env = envOf(state);
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x24 || env.inLink) return false;
  const m = matchTex(src, pos, state.posMax);
  if (!m) return false;
  if (!silent) {
    const { limits } = env.ctx;
    let html: string | null = null;
    if (env.collector.texRendered < limits.maxTexExpressions && m.body.length <= limits.maxTexLength) {
      env.collector.texRendered++;
      html = renderTex(m.body, false);
    }
    pushHtml(state, html ?? `<span class="tex-error">${escapeText(`$$${m.body}$$`)}</span>`);
  }
  state.pos = m.end;
  return true;
}

/** `:name:`: realm emoji, then `:zulip:`, then Unicode; unknown names stay as typed. */
function emojiRule(state: StateInline, silent: boolean): boolean {
  const env = envOf(state);
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x3a || env.inLink) return false;
  const m = stickyMatch(EMOJI_SYNTAX_RE, src, pos);
  if (!m || pos + m[0].length > state.posMax) return false;
  if (!silent) {
    const name = m[1];
    const realm = env.ctx.realmEmojiByName.get(name);
    const unicode = emojiByName(name);
    if (realm) pushHtml(state, imageEmoji(realm.sourceUrl, name));
    else if (name === ZULIP_EXTRA_EMOJI.name) pushHtml(state, imageEmoji(ZULIP_EXTRA_EMOJI.imageUrl, name));
    else if (unicode) pushHtml(state, emojiSpan(unicode.code, name));
    else state.pending += m[0];
  }
  state.pos += m[0].length;
  return true;
}

const EMOTICON_TERMINALS = new Set([',', '.', ';', '?', '!', '(', ')', '[', ']', ' ', '"', "'", '\n', '\t']);
const EMOTICON_NON_SPACE = new Set([',', '.', ';', '?', '!', '(', ')', '[', ']', '"', "'"]);
const EMOTICONS = Object.keys(EMOTICON_CONVERSIONS);

/**
 * `:)` → 🙂 when the sender enabled translate_emoticons.  An emoticon must
 * stand alone: at a text edge or next to whitespace/punctuation, but not
 * wedged between punctuation on both sides ("Hello!:)?").
 */
function emoticonRule(state: StateInline, silent: boolean): boolean {
  const env = envOf(state);
  if (!env.ctx.translateEmoticons || env.inLink) return false;
  const { src, pos, posMax } = state;
  const emoticon = EMOTICONS.find((e) => src.startsWith(e, pos) && pos + e.length <= posMax);
  if (!emoticon) return false;
  const prev = src[pos - 1];
  const next = pos + emoticon.length < posMax ? src[pos + emoticon.length] : undefined;
  const validStart = prev === undefined || EMOTICON_TERMINALS.has(prev);
  const validEnd = next === undefined || EMOTICON_TERMINALS.has(next);
  const wedged =
    prev !== undefined && next !== undefined && EMOTICON_NON_SPACE.has(prev) && EMOTICON_NON_SPACE.has(next);
  if (!validStart || !validEnd || wedged) return false;
  const name = EMOTICON_CONVERSIONS[emoticon].slice(1, -1);
  const emoji = emojiByName(name);
  if (!emoji) return false;
  if (!silent) pushHtml(state, emojiSpan(emoji.code, name));
  state.pos += emoticon.length;
  return true;
}

const emojiSequence = createEmojiSequenceMatcher();

/** Raw Unicode emoji become Zulip's emoji spans; unknown sequences stay as they are. */
function unicodeEmojiRule(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  if (!mightStartEmoji(src, pos)) return false;
  emojiSequence.lastIndex = pos;
  const m = emojiSequence.exec(src);
  if (!m || pos + m[0].length > posMax) return false;
  if (!silent) {
    const emoji = envOf(state).inLink ? undefined : resolveUnicodeEmoji(m[0]);
    if (emoji) pushHtml(state, emojiSpan(emoji.code, emoji.name));
    else state.pending += m[0];
  }
  state.pos += m[0].length;
  return true;
}

/** Every newline inside a paragraph is a line break; spaces before it are dropped. */
function newlineRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x0a) return false;
  if (!silent) {
    state.pending = state.pending.replace(/ +$/, '');
    state.push('softbreak', 'br', 0);
  }
  state.pos++;
  return true;
}

// ---------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------

// Characters at which some rule may start.
const TERMINATORS = new Uint8Array(128);
for (const ch of '\n\\`*~[]<@#:$(;&') TERMINATORS[ch.charCodeAt(0)] = 1;

function isAsciiWordChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f
  );
}

const EMOJI_START_RE = /[\p{Emoji}\p{RI}]/u;
const bmpEmojiStart = new Uint8Array(0x10000); // 0 = unknown, 1 = no, 2 = yes

function mightStartEmoji(src: string, pos: number): boolean {
  const code = src.charCodeAt(pos);
  if (code < 0x80) {
    // Digits, '#' and '*' are emoji only as keycaps (followed by U+FE0F or U+20E3).
    if ((code >= 0x30 && code <= 0x39) || code === 0x23 || code === 0x2a) {
      const next = src.charCodeAt(pos + 1);
      return next === 0xfe0f || next === 0x20e3;
    }
    return false;
  }
  const cp = src.codePointAt(pos) as number;
  if (cp < 0x10000) {
    let known = bmpEmojiStart[cp];
    if (known === 0) {
      known = EMOJI_START_RE.test(String.fromCharCode(cp)) ? 2 : 1;
      bmpEmojiStart[cp] = known;
    }
    return known === 2;
  }
  return EMOJI_START_RE.test(String.fromCodePoint(cp));
}

/** Plain text up to the next place where another rule might match. */
function textRule(state: StateInline, silent: boolean): boolean {
  const { src } = state;
  let pos = state.pos;
  const posMax = nextLinkifierStart(state, pos);
  while (pos < posMax) {
    const code = src.charCodeAt(pos);
    if (code < 0x80) {
      if (TERMINATORS[code]) break;
      if (isAsciiWordChar(code) && canStartUrlAfter(src[pos - 1]) && mightBeAutolink(src, pos, posMax)) break;
      if (mightStartEmoji(src, pos)) break;
      pos++;
    } else {
      if (mightStartEmoji(src, pos)) break;
      pos += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
    }
  }
  if (pos === state.pos) return false;
  if (!silent) state.pending += src.slice(state.pos, pos);
  state.pos = pos;
  return true;
}

/**
 * Installs our inline rules into a markdown-it instance created with the
 * "zero" preset.  markdown-it's own entity rule stays on (`&amp;` etc.).
 */
export function installInlineRules(md: MarkdownIt): void {
  const ruler = md.inline.ruler;
  ruler.at('text', textRule);
  const rules: [string, (state: StateInline, silent: boolean) => boolean][] = [
    ['zulip_autolink', autolinkRule],
    ['zulip_escape', escapeRule],
    ['zulip_code', codeRule],
    ['zulip_link', linkRule],
    ['zulip_user_mention', userMentionRule],
    ['zulip_group_mention', groupMentionRule],
    ['zulip_channel_link', channelLinkRule],
    ['zulip_timestamp', timestampRule],
    ['zulip_tex', texRule],
    ['zulip_linkifier', linkifierRule],
    ['zulip_strong', strongRule],
    ['zulip_em', emRule],
    ['zulip_del', delRule],
    ['zulip_emoji', emojiRule],
    ['zulip_emoticon', emoticonRule],
    ['zulip_unicode_emoji', unicodeEmojiRule],
    ['zulip_newline', newlineRule],
  ];
  for (const [name, rule] of rules) ruler.push(name, rule);
  ruler.enable('entity');
}
