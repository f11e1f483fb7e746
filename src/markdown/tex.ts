/**
 * TeX rendering with KaTeX, as Zulip does for `$$…$$` and ```math blocks.
 *
 * Zulip renders with KaTeX 0.16, and Zulip clients ship KaTeX 0.16's
 * stylesheet.  KaTeX 0.19 prefixed a few generic class names with "katex-"
 * (base, strut, sizing, ...); we map them back so the HTML we store still
 * matches the stylesheet clients have.  With KaTeX 0.16 installed this is a
 * no-op.
 */
import katex from 'katex';

const UNPREFIXED_IN_KATEX_016 = new Set([
  'accent',
  'base',
  'fix',
  'hdashline',
  'hline',
  'inner',
  'newline',
  'overlay',
  'overline',
  'root',
  'rule',
  'sizing',
  'smash',
  'sout',
  'stretchy',
  'strut',
  'tag',
  'thinbox',
  'underline',
  'vbox',
]);

function restoreKatex016ClassNames(html: string): string {
  if (!html.includes('katex-')) return html;
  return html.replace(/ class="([^"]*)"/g, (whole, classes: string) => {
    if (!classes.includes('katex-')) return whole;
    const fixed = classes
      .split(' ')
      .map((c) =>
        c.startsWith('katex-') && UNPREFIXED_IN_KATEX_016.has(c.slice('katex-'.length)) ? c.slice('katex-'.length) : c,
      )
      .join(' ');
    return ` class="${fixed}"`;
  });
}

/**
 * Renders TeX to HTML, or returns null if KaTeX cannot parse it (the caller
 * shows the source in a `tex-error` span).  Never throws.
 */
export function renderTex(source: string, displayMode: boolean): string | null {
  try {
    const html = katex.renderToString(source, {
      displayMode,
      throwOnError: true,
      // \href, \url, \includegraphics, \htmlClass ... stay disabled.
      trust: false,
      // Same output as the default "warn", without logging to our console.
      strict: 'ignore',
      output: 'htmlAndMathml',
    });
    return restoreKatex016ClassNames(html);
  } catch {
    return null;
  }
}

export const katexVersion: string = katex.version;
