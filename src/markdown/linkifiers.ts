/**
 * Realm linkifiers (Zulip's LinkifierPattern and topic_links, zerver/lib/markdown/__init__.py).
 *
 * Patterns are user input, so they run on RE2 (the `re2` package, as Zulip's `re2` module):
 * matching takes time linear in the text whatever the pattern, with no backtracking, and a
 * pattern RE2 cannot compile is refused when the linkifier is saved. Each pattern is wrapped as
 * Zulip wraps it: it must follow the start of the text, whitespace, or one of `'"(,:<`, and must
 * not be followed by a letter or digit.
 */
import RE2 from 're2';
import { expandUriTemplate, parseUriTemplate, type TemplatePart } from './uri-template';

/** A linkifier as the realm stores it (Zulip's LinkifierDict). */
export interface LinkifierDef {
  readonly id: number;
  readonly pattern: string;
  readonly url_template: string;
}

/** A linkifier ready to match: compile once per realm and pass to every render. */
export interface CompiledLinkifier {
  readonly id: number;
  readonly regex: RE2;
  readonly template: readonly TemplatePart[];
}

export const BEFORE_GROUP = 'linkifier_before_match';
export const OUTER_GROUP = 'linkifier_actual_match';
export const AFTER_GROUP = 'linkifier_after_match';

/** Zulip's prepare_linkifier_pattern. */
export function prepareLinkifierPattern(source: string): string {
  return (
    `(?P<${BEFORE_GROUP}>^|\\s|\u0085|\\pZ|['"\\(,:<])` +
    `(?P<${OUTER_GROUP}>${source})` +
    `(?P<${AFTER_GROUP}>$|[^\\pL\\pN])`
  );
}

/** Compiles an RE2 pattern; the error's text is RE2's (`missing ): (foo`), as Zulip reports it. */
export function compileRe2(pattern: string, flags = 'u'): RE2 | { error: string } {
  try {
    return new RE2(pattern, flags);
  } catch (err) {
    // RE2's SyntaxError (checked by shape: it may come from another realm's Error class).
    const message = (err as { message?: unknown } | null)?.message;
    return { error: typeof message === 'string' ? message : String(err) };
  }
}

/**
 * The named groups of a pattern that compiles (Zulip's `groupindex`). RE2 reports names only
 * through a match's `groups`, so the pattern is asked with an empty alternative that always
 * matches: every group is then present, undefined.
 */
export function namedGroups(pattern: string): Set<string> {
  const probe = compileRe2(`(?:${pattern})|`);
  if (!(probe instanceof RE2)) return new Set();
  const m = probe.exec('');
  return new Set(m?.groups ? Object.keys(m.groups) : []);
}

/**
 * Compiles the realm's linkifiers for rendering, in their order. A stored pattern that no longer
 * compiles, or a template that does not parse, is skipped (Zulip's topic_links does the same).
 */
export function compileLinkifiers(defs: readonly LinkifierDef[]): CompiledLinkifier[] {
  const out: CompiledLinkifier[] = [];
  for (const def of defs) {
    const regex = compileRe2(prepareLinkifierPattern(def.pattern), 'gu');
    const template = parseUriTemplate(def.url_template);
    if (regex instanceof RE2 && template) out.push({ id: def.id, regex, template });
  }
  return out;
}

export interface LinkifierMatch {
  /** Where the linked text starts and ends (the pattern's own match, without the delimiters). */
  readonly start: number;
  readonly end: number;
  /** Start of the whole match, the delimiter before it included (topic_links reports this). */
  readonly matchStart: number;
  readonly url: string;
  readonly text: string;
  readonly precedence: number;
}

function groupValues(m: RegExpExecArray): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>;
  if (m.groups) for (const [k, v] of Object.entries(m.groups)) values[k] = v;
  return values;
}

/**
 * Every match of one linkifier in `text`, left to right, as Zulip searches: after a match the
 * search resumes where the linked text ended, so the delimiter after it may open the next match.
 * `check` is called between matches (the renderer's time budget).
 */
export function* linkifierMatches(
  linkifier: CompiledLinkifier,
  precedence: number,
  text: string,
  check?: () => void,
): Generator<LinkifierMatch> {
  const { regex } = linkifier;
  regex.lastIndex = 0;
  while (regex.lastIndex <= text.length) {
    const from = regex.lastIndex;
    const m = regex.exec(text);
    if (!m) break;
    const values = groupValues(m);
    const before = values[BEFORE_GROUP] ?? '';
    const outer = values[OUTER_GROUP] ?? '';
    const start = m.index + before.length;
    const end = start + outer.length;
    // An empty match cannot link anything; step past it so the search always moves forward.
    regex.lastIndex = Math.max(end, from + 1);
    if (check) check();
    if (outer.length === 0) continue;
    yield {
      start,
      end,
      matchStart: m.index,
      url: expandUriTemplate(linkifier.template, values),
      text: outer,
      precedence,
    };
  }
}

/**
 * The links the linkifiers make in one run of text: each linkifier in order over the whole text,
 * a match that overlaps one of an earlier linkifier (or an earlier match) left out, as Zulip's
 * inline patterns of equal priority apply one after another. Sorted by position.
 */
export function findLinkifierLinks(
  linkifiers: readonly CompiledLinkifier[],
  text: string,
  check?: () => void,
): LinkifierMatch[] {
  if (linkifiers.length === 0 || text.length === 0) return [];
  const taken = new Uint8Array(text.length);
  const found: LinkifierMatch[] = [];
  linkifiers.forEach((linkifier, precedence) => {
    const accepted: LinkifierMatch[] = [];
    for (const match of linkifierMatches(linkifier, precedence, text, check)) {
      let free = true;
      for (let i = match.start; i < match.end; i++) {
        if (taken[i]) {
          free = false;
          break;
        }
      }
      if (free) accepted.push(match);
    }
    for (const match of accepted) {
      taken.fill(1, match.start, match.end);
      found.push(match);
    }
  });
  return found.sort((a, b) => a.start - b.start);
}
