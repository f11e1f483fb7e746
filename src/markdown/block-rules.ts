/**
 * Block structure as Zulip parses it.  These replace markdown-it's
 * CommonMark block rules; the grammar follows Zulip's web-client parser
 * (marked) where Zulip's two parsers agree, which differs from CommonMark:
 *
 *   - a paragraph keeps its lines' leading spaces and is ended by a blank
 *     line or by a line starting a heading, rule, quote or list;
 *   - `>` quotes run to the next blank line (lines without `>` included),
 *     and a quote made only of empty `>` lines is just text;
 *   - list items nest by indentation of any width (two spaces is enough),
 *     a change of bullet character starts a new list, and a blank line
 *     between items makes every item of the list "loose" (wrapped in <p>);
 *   - tables and multi-line paragraphs only exist at the top level and in
 *     quotes; inside list items each line is checked for block syntax;
 *   - no setext headings, no HTML blocks, no reference definitions.
 *
 * Nested content (quotes, list items) is re-parsed from its own text with a
 * fresh block state, the way marked re-lexes it, appending to the same
 * token stream.
 */
import type MarkdownIt from 'markdown-it';
import { checkDeadline, type RenderEnv } from './context';
import { PLACEHOLDER_LINE_RE } from './fenced-blocks';

type StateBlock = MarkdownIt.StateBlock;
type Token = MarkdownIt.Token;

const HEADING_RE = /^ {0,3}(#{1,6}) +(.*?)(?: +#+)? *$/;
const HR_RE = /^ {0,3}(?:(?:-[ ]*){3,}|(?:_[ ]*){3,}|(?:\*[ ]*){3,})$/;
const LIST_START_RE = /^( *)([*+-]|\d{1,9}\.) /;
const BULLET_SPACE_RE = /^(?:[*+-]|\d{1,9}\.) /;
const QUOTE_START_RE = /^ {0,3}>/;
const EMPTY_QUOTE_LINE_RE = /^ {0,3}>\s*$/;
const CODE_LINE_RE = /^ {4}/;

const NPTABLE_HEADER_RE = /^ *(\S.*\|.*)$/;
const NPTABLE_ALIGN_RE = /^ *([-:]+ *\|[-| :]*)$/;
const TABLE_HEADER_RE = /^ *\|(.+)$/;
const TABLE_ALIGN_RE = /^ *\|( *[-:]+[-| :]*)$/;

function envOf(state: StateBlock): RenderEnv {
  return state.env as RenderEnv;
}

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line], state.eMarks[line]);
}

function isBlank(state: StateBlock, line: number): boolean {
  return state.bMarks[line] + state.tShift[line] >= state.eMarks[line];
}

/** Parses `src` as the content of a container, appending to the same token stream. */
function parseNested(state: StateBlock, src: string, mode: { top: boolean; tightItem: boolean; quote: boolean }): void {
  const env = envOf(state);
  const saved = { top: env.top, tightItem: env.tightItem };
  env.top = mode.top;
  env.tightItem = mode.tightItem;
  env.blockDepth++;
  if (mode.quote) env.quoteDepth++;
  try {
    const nested = new state.md.block.State(src, state.md, state.env, state.tokens);
    nested.level = state.level;
    state.md.block.tokenize(nested, 0, nested.lineMax);
  } finally {
    env.top = saved.top;
    env.tightItem = saved.tightItem;
    env.blockDepth--;
    if (mode.quote) env.quoteDepth--;
  }
}

function pushInline(state: StateBlock, content: string, startLine: number, endLine: number): Token {
  const token = state.push('inline', '', 0);
  token.content = content;
  token.map = [startLine, endLine];
  token.children = [];
  token.meta = { quoted: envOf(state).quoteDepth > 0 };
  return token;
}

/**
 * marked refuses to start a quote when everything up to the next blank line
 * is empty `>` lines ("> \n>" renders as the text "&gt;").
 */
function quoteHasContent(state: StateBlock, line: number, endLine: number): boolean {
  let l = line;
  while (l < endLine && !isBlank(state, l) && EMPTY_QUOTE_LINE_RE.test(lineText(state, l))) l++;
  return l < endLine && !isBlank(state, l);
}

function startsQuote(state: StateBlock, line: number, endLine: number): boolean {
  return QUOTE_START_RE.test(lineText(state, line)) && quoteHasContent(state, line, endLine);
}

/** Does `line` start a block that ends the paragraph above it? */
function interruptsParagraph(state: StateBlock, line: number, endLine: number, top: boolean): boolean {
  const text = lineText(state, line);
  if (PLACEHOLDER_LINE_RE.test(text)) return true;
  if (!top && CODE_LINE_RE.test(text)) return true;
  return HR_RE.test(text) || HEADING_RE.test(text) || LIST_START_RE.test(text) || startsQuote(state, line, endLine);
}

/** A line holding a placeholder for a fenced block's HTML (code, math, spoiler wrapper). */
function placeholderRule(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  const m = PLACEHOLDER_LINE_RE.exec(lineText(state, startLine));
  if (!m) return false;
  const html = envOf(state).stash.get(Number(m[1]));
  if (html === undefined) return false;
  if (silent) return true;
  const token = state.push('zulip_stash', '', 0);
  token.content = html;
  token.map = [startLine, startLine + 1];
  state.line = startLine + 1;
  return true;
}

/** Four-space indented code; blank lines inside are kept, trailing ones are not. */
function indentedCodeRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (isBlank(state, startLine) || !CODE_LINE_RE.test(lineText(state, startLine))) return false;
  if (silent) return true;
  let last = startLine;
  for (let line = startLine + 1; line < endLine; line++) {
    if (isBlank(state, line)) continue;
    if (!CODE_LINE_RE.test(lineText(state, line))) break;
    last = line;
  }
  const lines: string[] = [];
  for (let line = startLine; line <= last; line++) {
    lines.push(isBlank(state, line) ? '' : lineText(state, line).slice(4));
  }
  const token = state.push('code_block', 'code', 0);
  token.content = lines.join('\n');
  token.map = [startLine, last + 1];
  state.line = last + 1;
  return true;
}

function headingRule(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  const m = HEADING_RE.exec(lineText(state, startLine));
  if (!m) return false;
  if (silent) return true;
  const tag = 'h' + m[1].length;
  state.push('heading_open', tag, 1).map = [startLine, startLine + 1];
  pushInline(state, m[2], startLine, startLine + 1);
  state.push('heading_close', tag, -1);
  state.line = startLine + 1;
  return true;
}

function hrRule(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  if (!HR_RE.test(lineText(state, startLine))) return false;
  if (silent) return true;
  state.push('hr', 'hr', 0).map = [startLine, startLine + 1];
  state.line = startLine + 1;
  return true;
}

function quoteRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const env = envOf(state);
  if (!startsQuote(state, startLine, endLine)) return false;
  if (env.blockDepth >= env.ctx.limits.maxBlockNesting) return false;
  if (silent) return true;
  let end = startLine + 1;
  while (end < endLine && !isBlank(state, end)) end++;
  const lines: string[] = [];
  for (let line = startLine; line < end; line++) {
    lines.push(lineText(state, line).replace(/^ *> ?/, ''));
  }
  state.push('blockquote_open', 'blockquote', 1).map = [startLine, end];
  parseNested(state, lines.join('\n'), { top: env.top, tightItem: false, quote: true });
  state.push('blockquote_close', 'blockquote', -1);
  state.line = end;
  return true;
}

interface ListItem {
  start: number;
  end: number;
}

/** Is this line a horizontal rule that ends a list (marked: optional list indent, then the rule)? */
function endsListAsRule(text: string, indent: string): boolean {
  const body = text.startsWith(indent) ? text.slice(indent.length) : text;
  return /^(?:[-*_] *){3,}$/.test(body);
}

/**
 * One pass over the lines.  Items start at lines with the list's indent and
 * a bullet.  The list ends at a blank line followed by an unindented line
 * that is not such a bullet, at a horizontal rule, at the end of the text,
 * or where the bullet changes kind (`*` to `-`, or bullet to number): the
 * rest is then parsed again as a new list.
 */
function findListItems(
  state: StateBlock,
  startLine: number,
  endLine: number,
  indent: string,
  listBullet: string,
): { items: ListItem[]; listEnd: number } {
  const ordered = listBullet.length > 1;
  const sameIndentBullet = (text: string) => text.startsWith(indent) && BULLET_SPACE_RE.test(text.slice(indent.length));
  const items: ListItem[] = [{ start: startLine, end: endLine }];
  let listEnd = endLine;
  for (let line = startLine + 1; line < endLine; line++) {
    if (isBlank(state, line)) {
      let next = line;
      while (next < endLine && isBlank(state, next)) next++;
      if (next >= endLine) {
        listEnd = line;
        break;
      }
      const text = lineText(state, next);
      if (!text.startsWith(' ') && !sameIndentBullet(text)) {
        listEnd = line;
        break;
      }
      line = next - 1;
      continue;
    }
    const text = lineText(state, line);
    if (endsListAsRule(text, indent)) {
      listEnd = line;
      break;
    }
    if (sameIndentBullet(text)) {
      const bullet = (LIST_START_RE.exec(text) as RegExpExecArray)[2];
      const mismatch = ordered ? bullet.length === 1 : bullet.length > 1 || bullet !== listBullet;
      if (mismatch) {
        listEnd = line;
        break;
      }
      items[items.length - 1].end = line;
      items.push({ start: line, end: endLine });
    }
  }
  items[items.length - 1].end = listEnd;
  return { items, listEnd };
}

/** Item texts, with the bullet removed and continuation lines outdented. */
function listItemTexts(state: StateBlock, items: ListItem[]): string[] {
  return items.map((item) => {
    const lines: string[] = [];
    for (let l = item.start; l < item.end; l++) lines.push(isBlank(state, l) ? '' : lineText(state, l));
    const raw = lines.join('\n');
    let text = raw.replace(/^ *(?:[*+-]|\d+\.) */, '');
    if (text.includes('\n ')) {
      const width = raw.length - text.length;
      text = text.replace(new RegExp(`^ {1,${width}}`, 'gm'), '');
    }
    return text;
  });
}

/**
 * Looseness, as marked decides it: a blank line inside an item, or between
 * two items, makes the whole list loose.
 */
function isLooseList(texts: string[]): boolean {
  let loose = false;
  let next = false;
  texts.forEach((text, i) => {
    let itemLoose = next || /\n\n(?!\s*$)/.test(text);
    if (i !== texts.length - 1) {
      next = text.endsWith('\n');
      if (!itemLoose) itemLoose = next;
    }
    if (itemLoose) loose = true;
  });
  return loose;
}

function listRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const env = envOf(state);
  const first = LIST_START_RE.exec(lineText(state, startLine));
  if (!first) return false;
  if (env.blockDepth >= env.ctx.limits.maxBlockNesting) return false;
  if (silent) return true;
  checkDeadline(env);
  const listBullet = first[2];
  const ordered = listBullet.length > 1;
  const { items, listEnd } = findListItems(state, startLine, endLine, first[1], listBullet);
  const texts = listItemTexts(state, items);
  const loose = isLooseList(texts);

  const type = ordered ? 'ordered_list' : 'bullet_list';
  const tag = ordered ? 'ol' : 'ul';
  const open = state.push(`${type}_open`, tag, 1);
  open.map = [startLine, listEnd];
  if (ordered) {
    const start = parseInt(listBullet, 10);
    if (start !== 1) open.attrSet('start', String(start));
  }
  texts.forEach((text, i) => {
    state.push('list_item_open', 'li', 1).map = [items[i].start, items[i].end];
    parseNested(state, text, { top: false, tightItem: !loose, quote: false });
    state.push('list_item_close', 'li', -1);
  });
  state.push(`${type}_close`, tag, -1);
  state.line = listEnd;
  return true;
}

type Alignment = 'left' | 'right' | 'center' | null;

function alignmentOf(cell: string): Alignment {
  if (/^ *-+: *$/.test(cell)) return 'right';
  if (/^ *:-+: *$/.test(cell)) return 'center';
  if (/^ *:-+ *$/.test(cell)) return 'left';
  return null;
}

/** Splits a row on `|`, except escaped pipes and pipes inside code spans. */
function splitCells(row: string): string[] {
  const cells: string[] = [];
  let current = '';
  let inCode = 0;
  for (let i = 0; i < row.length; i++) {
    const ch = row[i];
    if (ch === '\\' && row[i + 1] === '|') {
      current += '|';
      i++;
    } else if (ch === '`') {
      let run = 1;
      while (row[i + run] === '`') run++;
      if (inCode === 0) inCode = run;
      else if (inCode === run) inCode = 0;
      current += row.slice(i, i + run);
      i += run - 1;
    } else if (ch === '|' && inCode === 0) {
      cells.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  cells.push(current.trim());
  return cells;
}

function tableRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const env = envOf(state);
  if (!env.top || startLine + 1 >= endLine) return false;
  const headerLine = lineText(state, startLine);
  const alignLine = lineText(state, startLine + 1);
  let header: string;
  let align: string;
  let leadingPipe: boolean;
  let m: RegExpExecArray | null;
  let a: RegExpExecArray | null;
  if ((m = NPTABLE_HEADER_RE.exec(headerLine)) && (a = NPTABLE_ALIGN_RE.exec(alignLine))) {
    header = m[1];
    align = a[1];
    leadingPipe = false;
  } else if ((m = TABLE_HEADER_RE.exec(headerLine)) && (a = TABLE_ALIGN_RE.exec(alignLine))) {
    header = m[1];
    align = a[1];
    leadingPipe = true;
  } else {
    return false;
  }
  if (silent) return true;

  const trimEdges = (s: string) => s.replace(/^ *\|? */, '').replace(/ *\| *$/, '');
  const headerCells = splitCells(header.replace(/^ */, '').replace(/ *\| *$/, ''));
  const aligns = splitCells(align.replace(/^ */, '').replace(/\| *$/, '')).map(alignmentOf);
  let end = startLine + 2;
  const rows: string[][] = [];
  while (end < endLine && !isBlank(state, end)) {
    const text = lineText(state, end);
    if (leadingPipe ? !/^ *\|/.test(text) : !text.includes('|')) break;
    rows.push(splitCells(trimEdges(text)));
    end++;
  }

  const columns = headerCells.length;
  const cellTokens = (cells: string[], cellType: 'th' | 'td', rowLine: number) => {
    state.push('tr_open', 'tr', 1);
    for (let c = 0; c < columns; c++) {
      const open = state.push(`${cellType}_open`, cellType, 1);
      const alignment = aligns[c];
      if (alignment) open.attrSet('style', `text-align: ${alignment};`);
      pushInline(state, cells[c] ?? '', rowLine, rowLine + 1);
      state.push(`${cellType}_close`, cellType, -1);
    }
    state.push('tr_close', 'tr', -1);
  };

  state.push('table_open', 'table', 1).map = [startLine, end];
  state.push('thead_open', 'thead', 1);
  cellTokens(headerCells, 'th', startLine);
  state.push('thead_close', 'thead', -1);
  state.push('tbody_open', 'tbody', 1);
  rows.forEach((row, i) => cellTokens(row, 'td', startLine + 2 + i));
  state.push('tbody_close', 'tbody', -1);
  state.push('table_close', 'table', -1);
  state.line = end;
  return true;
}

/** The fallback: consecutive lines of text. */
function paragraphRule(state: StateBlock, startLine: number, endLine: number): boolean {
  const env = envOf(state);
  checkDeadline(env);
  let next = startLine + 1;
  while (next < endLine && !isBlank(state, next) && !interruptsParagraph(state, next, endLine, env.top)) {
    next++;
  }
  const lines: string[] = [];
  for (let line = startLine; line < next; line++) lines.push(lineText(state, line));
  const open = state.push('paragraph_open', 'p', 1);
  open.map = [startLine, next];
  open.hidden = env.tightItem;
  pushInline(state, lines.join('\n'), startLine, next);
  state.push('paragraph_close', 'p', -1).hidden = env.tightItem;
  state.line = next;
  return true;
}

/**
 * Installs our block rules, in marked's order, into a markdown-it instance
 * created with the "zero" preset (so no CommonMark block rule is enabled).
 */
export function installBlockRules(md: MarkdownIt): void {
  const ruler = md.block.ruler;
  ruler.at('paragraph', paragraphRule);
  ruler.before('paragraph', 'zulip_placeholder', placeholderRule);
  ruler.before('paragraph', 'zulip_code', indentedCodeRule);
  ruler.before('paragraph', 'zulip_heading', headingRule);
  ruler.before('paragraph', 'zulip_table', tableRule);
  ruler.before('paragraph', 'zulip_hr', hrRule);
  ruler.before('paragraph', 'zulip_quote', quoteRule);
  ruler.before('paragraph', 'zulip_list', listRule);
}
