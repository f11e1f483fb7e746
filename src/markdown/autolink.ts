/**
 * Bare-URL detection, following Zulip's web link regex:
 *
 *   - a link starts at the start of the text or after whitespace or one of
 *     ' " ( , : <  (so "foo:https://x" and "/google.com" do not link);
 *   - it is `http(s)://host[/path]`, or `labels.tld[/path]` where the TLD is a
 *     real one (minus java, md, mov, py and zip, common file extensions), or
 *     an email address;
 *   - paths may contain balanced parentheses;
 *   - trailing `! : ; ? ) , . ' " >` are not part of the link, and the link
 *     must be followed by whitespace or the end of the text.
 *
 * Written as a scanner instead of one big backtracking regex so that it runs
 * in linear time on hostile input.
 */
import { TOP_LEVEL_DOMAINS } from './tlds';

const EXCLUDED_TLDS = new Set(['java', 'md', 'mov', 'py', 'zip']);
const TLDS: ReadonlySet<string> = new Set(TOP_LEVEL_DOMAINS.filter((t) => !EXCLUDED_TLDS.has(t)));

const TRAILING_PUNCTUATION = new Set(['!', ':', ';', '?', ')', ',', '.', "'", '"', '>']);
const MAX_URL_LENGTH = 2048;
const MAX_PAREN_DEPTH = 7;

const WORD = String.raw`[\p{L}\p{N}_]`;
const HTTP_PREFIX_RE = /^https?:\/\//i;
const HTTP_HOST_RE = new RegExp(String.raw`^(?:${WORD}|[.:@-])+$`, 'u');
const LABEL_RE = new RegExp(String.raw`^(?:${WORD}|-)+$`, 'u');
const EMAIL_RE = new RegExp(String.raw`^(?:${WORD}|[.-])+@(?:${WORD}|[.-])+\.${WORD}+$`, 'u');
const WHITESPACE_RE = /\s/;

/** Characters after which a URL may start (besides whitespace and start of text). */
const URL_PRECEDERS = new Set(["'", '"', '(', ',', ':', '<']);

export function canStartUrlAfter(prev: string | undefined): boolean {
  return prev === undefined || URL_PRECEDERS.has(prev) || WHITESPACE_RE.test(prev);
}

export interface AutolinkMatch {
  /** The matched text, shown as the link text. */
  readonly text: string;
  /** Index just past the match. */
  readonly end: number;
  readonly kind: 'url' | 'domain' | 'email';
}

function validPath(path: string): boolean {
  let depth = 0;
  for (const ch of path) {
    if (ch === '"' || WHITESPACE_RE.test(ch)) return false;
    if (ch === '(') {
      depth++;
      if (depth > MAX_PAREN_DEPTH) return false;
    } else if (ch === ')') {
      depth--;
      if (depth < 0) return false;
    }
  }
  return depth === 0;
}

function classify(candidate: string): AutolinkMatch['kind'] | null {
  if (HTTP_PREFIX_RE.test(candidate)) {
    const rest = candidate.slice(candidate.indexOf('//') + 2);
    const slash = rest.indexOf('/');
    const host = slash === -1 ? rest : rest.slice(0, slash);
    if (!HTTP_HOST_RE.test(host)) return null;
    return slash === -1 || validPath(rest.slice(slash)) ? 'url' : null;
  }
  if (candidate.includes('@')) return EMAIL_RE.test(candidate) ? 'email' : null;
  const slash = candidate.indexOf('/');
  const domain = slash === -1 ? candidate : candidate.slice(0, slash);
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL_RE.test(l))) return null;
  if (!TLDS.has(labels[labels.length - 1])) return null;
  return slash === -1 || validPath(candidate.slice(slash)) ? 'domain' : null;
}

/**
 * Tries to match a bare link starting exactly at `pos` (the caller checks
 * what precedes it).  `max` bounds the text.
 */
export function matchAutolink(src: string, pos: number, max: number): AutolinkMatch | null {
  let end = pos;
  while (end < max && !WHITESPACE_RE.test(src[end])) {
    end++;
    if (end - pos > MAX_URL_LENGTH) return null;
  }
  // Everything between the URL and the whitespace must be trailing punctuation;
  // like Zulip's lazy regex, prefer the shortest URL that satisfies that.
  let shortest = end;
  while (shortest > pos && TRAILING_PUNCTUATION.has(src[shortest - 1])) shortest--;
  for (let stop = shortest; stop <= end; stop++) {
    // Bound the work on long runs of punctuation: try the first few cut
    // points, then only the whole run.
    if (stop === pos || (stop - shortest > 16 && stop !== end)) continue;
    const candidate = src.slice(pos, stop);
    const kind = classify(candidate);
    if (kind) return { text: candidate, end: stop, kind };
  }
  return null;
}

/**
 * Cheap pre-check used by the text scanner: could a link start here?  A link
 * needs "://", an "@", or a dot followed by a letter or digit early on (a
 * domain label is at most 63 characters).
 */
export function mightBeAutolink(src: string, pos: number, max: number): boolean {
  const limit = Math.min(max, pos + 128);
  for (let i = pos; i < limit; i++) {
    const ch = src.charCodeAt(i);
    if (ch === 0x40 /* @ */) return true;
    if (ch === 0x3a /* : */ && src.charCodeAt(i + 1) === 0x2f && src.charCodeAt(i + 2) === 0x2f) return true;
    if (ch === 0x2e /* . */ && isAlnum(src.charCodeAt(i + 1))) return true;
    if (ch === 0x20 || ch === 0x0a || ch === 0x09 || ch === 0x3c /* < */) return false;
  }
  return false;
}

function isAlnum(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code > 0x7f
  );
}
