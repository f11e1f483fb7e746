/**
 * Fenced blocks (``` and ~~~), processed line by line before Markdown
 * parsing, the way Zulip's fenced_code preprocessor works:
 *
 *   - a fence opens at the start of a line: three or more backticks or
 *     tildes, then an optional language (`py`, `.py`, `{.py}`) and, for
 *     spoilers, a header;
 *   - it closes only at a line that is exactly the same fence (trailing
 *     whitespace allowed); an unclosed fence runs to the end of the message;
 *   - `quote`/`quoted` blocks become `> ` lines and their content is Markdown,
 *     so fences may nest inside them; `spoiler` blocks work the same way
 *     inside a spoiler wrapper;
 *   - `math` blocks render with KaTeX, every other language is a code block;
 *   - code, math and the spoiler wrapper become placeholders that the block
 *     parser turns back into their (already escaped) HTML.
 */
import { escapeAll, escapeAttr, escapeDjango, escapeText } from './html';
import { codeLanguageName } from './code-languages';

// Zulip's FENCE_RE; the language class `+-.` is a range that also admits ",".
const FENCE_RE = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?$/;

/** Where placeholders live; the block parser looks them up by key. */
export class HtmlStash {
  private readonly entries: string[] = [];

  store(html: string): string {
    this.entries.push(html);
    return `${PLACEHOLDER_START}${this.entries.length - 1}${PLACEHOLDER_END}`;
  }

  get(index: number): string | undefined {
    return this.entries[index];
  }
}

/** Control characters that cannot survive input normalisation, so users cannot forge placeholders. */
export const PLACEHOLDER_START = '\u0002zph';
export const PLACEHOLDER_END = '\u0003';
// eslint-disable-next-line no-control-regex -- the placeholder delimiters are STX/ETX on purpose
export const PLACEHOLDER_LINE_RE = /^ *\u0002zph(\d+)\u0003 *$/;

export interface FenceOptions {
  readonly stash: HtmlStash;
  /** Realm default for fences without a language. */
  readonly defaultLanguage?: string | null;
  /** Renders one TeX paragraph in display mode; null means "show as error". */
  readonly renderDisplayTex: (tex: string) => string | null;
  /** Quote/spoiler blocks nested deeper than this are shown as code blocks instead. */
  readonly maxNesting: number;
  /** Called once per line; may throw to abort a render that is over its time budget. */
  readonly checkBudget?: () => void;
}

interface Handler {
  handleLine(line: string): void;
  done(): void;
}

export function processFencedBlocks(source: string, options: FenceOptions): string {
  const output: string[] = [];
  const handlers: Handler[] = [];
  const push = (h: Handler) => handlers.push(h);
  const pop = () => handlers.pop();

  /** Opens a block if `line` is a fence, else passes the line to `out`. */
  function checkForFence(out: string[], line: string): void {
    const m = FENCE_RE.exec(line);
    if (!m) {
      out.push(line);
      return;
    }
    const fence = m[1];
    let lang: string | undefined = m[2];
    const header: string | undefined = m[3];
    if (!lang && options.defaultLanguage) lang = options.defaultLanguage;
    lang = lang?.toLowerCase();
    const tooDeep = handlers.length > options.maxNesting;
    if (tooDeep && (lang === 'quote' || lang === 'quoted' || lang === 'spoiler')) {
      push(leafHandler(out, fence, (text) => options.stash.store(formatCode(undefined, text))));
    } else if (lang === 'quote' || lang === 'quoted') {
      push(containerHandler(out, fence, formatQuote));
    } else if (lang === 'spoiler') {
      push(containerHandler(out, fence, (text) => formatSpoiler(options.stash, header, text)));
    } else if (lang === 'math') {
      push(leafHandler(out, fence, (text) => options.stash.store(formatTex(options, text))));
    } else {
      const language = lang;
      push(leafHandler(out, fence, (text) => options.stash.store(formatCode(language, text))));
    }
  }

  /** Blocks whose content is Markdown (quotes, spoilers): nested fences allowed. */
  function containerHandler(out: string[], fence: string, format: (text: string) => string): Handler {
    const lines: string[] = [];
    return {
      handleLine(line) {
        if (line.trimEnd() === fence) this.done();
        else checkForFence(lines, line);
      },
      done() {
        emit(out, lines, format);
        pop();
      },
    };
  }

  /** Blocks whose content is opaque (code, math). */
  function leafHandler(out: string[], fence: string, format: (text: string) => string): Handler {
    const lines: string[] = [];
    return {
      handleLine(line) {
        if (line.trimEnd() === fence) this.done();
        else lines.push(line.trimEnd());
      },
      done() {
        emit(out, lines, format);
        pop();
      },
    };
  }

  const outer: Handler = {
    handleLine: (line) => checkForFence(output, line),
    done: () => pop(),
  };
  push(outer);
  for (const line of source.split('\n')) {
    options.checkBudget?.();
    handlers[handlers.length - 1].handleLine(line);
  }
  while (handlers.length > 0) handlers[handlers.length - 1].done();
  return output.join('\n');
}

/** A block with no lines at all renders nothing, as in Zulip. */
function emit(out: string[], lines: string[], format: (text: string) => string): void {
  if (lines.length === 0) return;
  out.push('', ...format(lines.join('\n')).split('\n'), '');
}

function formatSpoiler(stash: HtmlStash, header: string | undefined, text: string): string {
  const parts = [stash.store('<div class="spoiler-block"><div class="spoiler-header">')];
  if (header !== undefined) parts.push(header);
  parts.push(stash.store('</div><div class="spoiler-content" aria-hidden="true">'));
  parts.push(text);
  parts.push(stash.store('</div></div>'));
  return parts.join('\n\n');
}

function formatTex(options: FenceOptions, text: string): string {
  return text
    .split('\n\n')
    .map((paragraph) => {
      const html = options.renderDisplayTex(paragraph);
      return html ?? `<span class="tex-error">${escapeDjango(paragraph)}</span>`;
    })
    .join('\n\n');
}

function formatQuote(text: string): string {
  return text
    .split('\n')
    .map((line) => '> ' + line)
    .join('\n');
}

/**
 * Zulip's code block HTML.  Without highlighting, Pygments escapes quotes
 * too; when a language is set Zulip re-serialises the block (to add
 * data-code-language), which leaves quotes literal.  We reproduce both.
 */
export function formatCode(lang: string | undefined, text: string): string {
  const code = text.replace(/^\n+/, '').replace(/\n+$/, '');
  if (lang) {
    return (
      `<div class="codehilite" data-code-language="${escapeAttr(codeLanguageName(lang))}">` +
      `<pre><span></span><code>${escapeText(code)}\n</code></pre></div>`
    );
  }
  return `<div class="codehilite"><pre><span></span><code>${escapeAll(code)}\n</code></pre></div>`;
}
