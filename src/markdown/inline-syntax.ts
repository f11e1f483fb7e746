/**
 * Zulip's inline objects: how mentions, channel links, TeX and code spans
 * are recognised and resolved, and the HTML Zulip renders for them.
 * Shared by the inline rules and by the "atomic span" scan that keeps
 * emphasis from pairing across these objects.
 */
import type MarkdownIt from 'markdown-it';
import { escapeText, openTag } from './html';
import type { RenderEnv } from './context';
import { encodeChannel, hashUtilEncode } from './url';

export type StateInline = MarkdownIt.StateInline;

export function envOf(state: StateInline): RenderEnv {
  return state.env as RenderEnv;
}

// ---------------------------------------------------------------------------
// Shared matchers (also used to find atomic spans)
// ---------------------------------------------------------------------------

/** Zulip's BEFORE_MENTION_ALLOWED_REGEX: start, whitespace, or one of ' " ( { [ / < */
const MENTION_PRECEDERS = new Set(["'", '"', '(', '{', '[', '/', '<']);
function mentionAllowedAfter(prev: string | undefined): boolean {
  return prev === undefined || MENTION_PRECEDERS.has(prev) || /\s/.test(prev);
}

const USER_MENTION_RE = /@(_?)\*\*([^*]+)\*\*/y;
const GROUP_MENTION_RE = /@(_?)\*([^*]+)\*/y;
const MESSAGE_LINK_RE = /#\*\*([^*>]+)>([^*]*)@(\d+)\*\*/y;
const TOPIC_LINK_RE = /#\*\*([^*>]+)>([^*]*)\*\*/y;
const CHANNEL_LINK_RE = /#\*\*([^*]+)\*\*/y;
const TEX_RE = /\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$/y;
// Real times are short; the bound keeps a run of unclosed "<time:" linear.
export const TIME_RE = /<time:([^>]{1,200})>/y;
export const EMOJI_SYNTAX_RE = /:([\p{L}\p{N}_+-]+):/uy;
const WORD_CHAR_RE = /[\p{L}\p{N}_]/u;
export const ESCAPABLE = new Set('\\`*{}[]()#+-.!_>~'.split(''));

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);
const TOPIC_WILDCARDS = new Set(['topic']);

export function stickyMatch(re: RegExp, src: string, pos: number): RegExpExecArray | null {
  re.lastIndex = pos;
  return re.exec(src);
}

/** Length of a code span starting at `pos` (a backtick run), or 0. */
export function codeSpanLength(src: string, pos: number, max: number): number {
  let run = 0;
  while (pos + run < max && src.charCodeAt(pos + run) === 0x60) run++;
  let i = pos + run;
  while (i < max) {
    const ch = src.charCodeAt(i);
    if (ch === 0x0a) return 0;
    if (ch === 0x60) {
      let closing = 0;
      while (i + closing < max && src.charCodeAt(i + closing) === 0x60) closing++;
      if (closing === run) return i + closing - pos;
      i += closing;
    } else {
      i++;
    }
  }
  return 0;
}

export interface TexMatch {
  body: string;
  end: number;
}

/** `$$…$$` per Zulip's TEX_RE, including its word-boundary conditions. */
export function matchTex(src: string, pos: number, max: number): TexMatch | null {
  const prev = src[pos - 1];
  if (prev !== undefined && (prev === '$' || WORD_CHAR_RE.test(prev))) return null;
  const m = stickyMatch(TEX_RE, src, pos);
  if (!m) return null;
  const end = pos + m[0].length;
  if (end > max) return null;
  const after = src[end];
  if (after !== undefined && end < max && (after === '$' || WORD_CHAR_RE.test(after))) return null;
  return { body: m[1], end };
}

// ---------------------------------------------------------------------------
// HTML for Zulip objects
// ---------------------------------------------------------------------------

export function emojiSpan(code: string, displayName: string): string {
  const title = displayName.replace(/_/g, ' ');
  return (
    openTag('span', { 'aria-label': title, class: `emoji emoji-${code}`, role: 'img', title }) +
    escapeText(`:${displayName}:`) +
    '</span>'
  );
}

export function imageEmoji(src: string, name: string): string {
  return openTag('img', { alt: `:${name}:`, class: 'emoji', src, title: name.replace(/_/g, ' ') });
}

export interface Resolved {
  html: string;
  end: number;
  apply(): void;
}

export function resolveUserMention(state: StateInline, pos: number): Resolved | null {
  if (!mentionAllowedAfter(state.src[pos - 1])) return null;
  const m = stickyMatch(USER_MENTION_RE, state.src, pos);
  if (!m || pos + m[0].length > state.posMax) return null;
  const env = envOf(state);
  const { ctx, collector } = env;
  const name = m[2];
  let silent = m[1] === '_' || env.inQuote;
  const end = pos + m[0].length;

  if (STREAM_WILDCARDS.has(name)) {
    const cls = 'user-mention channel-wildcard-mention' + (silent ? ' silent' : '');
    return {
      end,
      html: openTag('span', { class: cls, 'data-user-id': '*' }) + escapeText(silent ? name : '@' + name) + '</span>',
      apply: () => {
        if (!silent) collector.mentionsStreamWildcard = true;
      },
    };
  }
  if (TOPIC_WILDCARDS.has(name)) {
    const cls = 'topic-mention' + (silent ? ' silent' : '');
    return {
      end,
      html: openTag('span', { class: cls }) + escapeText(silent ? name : '@' + name) + '</span>',
      apply: () => {
        if (!silent) collector.mentionsTopicWildcard = true;
      },
    };
  }
  // `Name|id` and `|id` pick a user by id; the name, if given, must match exactly.
  const idSyntax = /^(.+)?\|(\d+)$/.exec(name);
  const user = idSyntax ? ctx.usersById.get(Number(idSyntax[2])) : ctx.usersByName.get(name.toLowerCase());
  if (!user) return null;
  if (idSyntax && idSyntax[1] !== undefined && idSyntax[1] !== user.fullName) return null;
  if (!user.isActive) silent = true;
  const cls = 'user-mention' + (silent ? ' silent' : '');
  return {
    end,
    html:
      openTag('span', { class: cls, 'data-user-id': String(user.id) }) +
      escapeText(silent ? user.fullName : '@' + user.fullName) +
      '</span>',
    apply: () => {
      if (!silent) collector.mentionedUserIds.add(user.id);
    },
  };
}

export function resolveGroupMention(state: StateInline, pos: number): Resolved | null {
  if (!mentionAllowedAfter(state.src[pos - 1])) return null;
  const m = stickyMatch(GROUP_MENTION_RE, state.src, pos);
  if (!m || pos + m[0].length > state.posMax) return null;
  const env = envOf(state);
  const group = env.ctx.groupsByName.get(m[2].toLowerCase());
  if (!group) return null;
  const silent = m[1] === '_' || env.inQuote || group.deactivated === true;
  const cls = 'user-group-mention' + (silent ? ' silent' : '');
  return {
    end: pos + m[0].length,
    html:
      openTag('span', { class: cls, 'data-user-group-id': String(group.id) }) +
      escapeText(silent ? group.name : '@' + group.name) +
      '</span>',
    apply: () => {
      if (!silent) env.collector.mentionedGroupIds.add(group.id);
    },
  };
}

function topicText(env: RenderEnv, channel: string, topic: string): string {
  return topic === ''
    ? escapeText(`#${channel} > `) + '<em>' + escapeText(env.ctx.emptyTopicDisplayName) + '</em>'
    : escapeText(`#${channel} > ${topic}`);
}

export function resolveChannelLink(state: StateInline, pos: number): Resolved | null {
  if (!mentionAllowedAfter(state.src[pos - 1])) return null;
  const env = envOf(state);
  const { src, posMax } = state;
  const countLink = () => {
    env.collector.channelLinks++;
  };

  let m = stickyMatch(MESSAGE_LINK_RE, src, pos);
  if (m && pos + m[0].length <= posMax) {
    const channel = env.ctx.channelsByName.get(m[1]);
    if (channel) {
      const href = `/#narrow/channel/${encodeChannel(channel.id, m[1])}/topic/${hashUtilEncode(m[2])}/near/${m[3]}`;
      return {
        end: pos + m[0].length,
        html: openTag('a', { class: 'message-link', href }) + topicText(env, m[1], m[2]) + escapeText(' @ 💬') + '</a>',
        apply: countLink,
      };
    }
  }
  m = stickyMatch(TOPIC_LINK_RE, src, pos);
  if (m && pos + m[0].length <= posMax) {
    const channel = env.ctx.channelsByName.get(m[1]);
    if (channel) {
      const href = `/#narrow/channel/${encodeChannel(channel.id, m[1])}/topic/${hashUtilEncode(m[2])}`;
      return {
        end: pos + m[0].length,
        html:
          openTag('a', { class: 'stream-topic', 'data-stream-id': String(channel.id), href }) +
          topicText(env, m[1], m[2]) +
          '</a>',
        apply: countLink,
      };
    }
  }
  m = stickyMatch(CHANNEL_LINK_RE, src, pos);
  if (m && pos + m[0].length <= posMax) {
    const channel = env.ctx.channelsByName.get(m[1]);
    if (channel) {
      const href = `/#narrow/channel/${encodeChannel(channel.id, m[1])}`;
      return {
        end: pos + m[0].length,
        html:
          openTag('a', { class: 'stream', 'data-stream-id': String(channel.id), href }) +
          escapeText('#' + m[1]) +
          '</a>',
        apply: countLink,
      };
    }
  }
  return null;
}

// ---------------------------------------------------------------------------
// Atomic spans: what `**`, `*` and `~~` may not pair across
// ---------------------------------------------------------------------------

interface AtomicCache {
  src: string;
  spans: Map<number, number>;
}
const atomicCache = new WeakMap<StateInline, AtomicCache>();

function atomicSpans(state: StateInline): Map<number, number> {
  const cached = atomicCache.get(state);
  if (cached && cached.src === state.src) return cached.spans;
  const spans = new Map<number, number>();
  const src = state.src;
  const max = src.length;
  // Resolve against the whole text, not just the range being parsed now.
  const savedMax = state.posMax;
  state.posMax = max;
  let i = 0;
  while (i < max) {
    const ch = src[i];
    let end = 0;
    if (ch === '\\' && ESCAPABLE.has(src[i + 1])) {
      end = i + 2;
    } else if (ch === '`') {
      const len = codeSpanLength(src, i, max);
      end = len > 0 ? i + len : i + 1;
      if (len === 0) {
        while (end < max && src[end] === '`') end++;
        i = end;
        continue;
      }
    } else if (ch === '$') {
      end = matchTex(src, i, max)?.end ?? 0;
    } else if (ch === '@') {
      end = resolveUserMention(state, i)?.end ?? resolveGroupMention(state, i)?.end ?? 0;
    } else if (ch === '#') {
      end = resolveChannelLink(state, i)?.end ?? 0;
    }
    if (end > i) {
      spans.set(i, end);
      i = end;
    } else {
      i++;
    }
  }
  state.posMax = savedMax;
  atomicCache.set(state, { src, spans });
  return spans;
}

/**
 * Scans from `from` for a closing delimiter accepted by `isCloser`, skipping
 * atomic spans; gives up at a newline.  Returns the closer's index or -1.
 */
export function findCloser(
  state: StateInline,
  from: number,
  isCloser: (i: number) => 'close' | 'fail' | 'skip' | number,
): number {
  const spans = atomicSpans(state);
  const { src, posMax } = state;
  let i = from;
  while (i < posMax) {
    if (src.charCodeAt(i) === 0x0a) return -1;
    const atomicEnd = spans.get(i);
    if (atomicEnd !== undefined) {
      i = atomicEnd;
      continue;
    }
    const verdict = isCloser(i);
    if (verdict === 'close') return i;
    if (verdict === 'fail') return -1;
    i = typeof verdict === 'number' ? verdict : i + 1;
  }
  return -1;
}
