/**
 * Last line of defence: every tag and attribute in the rendered HTML is
 * checked against an allow-list before it leaves the renderer.  Our rules
 * only build escaped HTML, so in practice nothing is ever removed here; if
 * something were (a bug, or KaTeX emitting something new), the offending
 * tag is escaped into text, or the attribute dropped, and counted.
 *
 * Allowed: the elements Zulip's rendered_content uses, plus the MathML and
 * SVG elements KaTeX produces.  No `on*` attributes, URLs only relative or
 * http(s)/mailto, inline styles only simple declarations.
 */
import { escapeAttr } from './html';

type AttrCheck = (value: string) => boolean;

const ANY: AttrCheck = () => true;
const CLASS: AttrCheck = (v) => /^[\w -]*$/.test(v);
const DIGITS: AttrCheck = (v) => /^\d+$/.test(v);
const USER_ID: AttrCheck = (v) => /^(?:\d+|\*)$/.test(v);
const URL: AttrCheck = (v) => isSafeUrl(v);
const STYLE: AttrCheck = (v) => isSafeStyle(v);
const TEXT_ALIGN: AttrCheck = (v) => /^text-align: (?:left|right|center);$/.test(v);
const MATHML_NS: AttrCheck = (v) => v === 'http://www.w3.org/1998/Math/MathML';
const SVG_NS: AttrCheck = (v) => v === 'http://www.w3.org/2000/svg';
const NUMBERISH: AttrCheck = (v) => /^[\w .,%#:+-]*$/.test(v);

const NO_ATTRS: Record<string, AttrCheck> = {};

const MATHML_PRESENTATION: Record<string, AttrCheck> = {
  class: CLASS,
  mathvariant: NUMBERISH,
  mathcolor: NUMBERISH,
  mathbackground: NUMBERISH,
  mathsize: NUMBERISH,
  displaystyle: NUMBERISH,
  scriptlevel: NUMBERISH,
  stretchy: NUMBERISH,
  fence: NUMBERISH,
  separator: NUMBERISH,
  lspace: NUMBERISH,
  rspace: NUMBERISH,
  minsize: NUMBERISH,
  maxsize: NUMBERISH,
  movablelimits: NUMBERISH,
  accent: NUMBERISH,
  accentunder: NUMBERISH,
  linethickness: NUMBERISH,
  width: NUMBERISH,
  height: NUMBERISH,
  depth: NUMBERISH,
  voffset: NUMBERISH,
  notation: NUMBERISH,
  rowspacing: NUMBERISH,
  columnspacing: NUMBERISH,
  columnalign: NUMBERISH,
  rowalign: NUMBERISH,
  rowlines: NUMBERISH,
  columnlines: NUMBERISH,
  frame: NUMBERISH,
  framespacing: NUMBERISH,
  equalrows: NUMBERISH,
  equalcolumns: NUMBERISH,
  side: NUMBERISH,
  linebreak: NUMBERISH,
  style: STYLE,
};

const ELEMENTS: Record<string, Record<string, AttrCheck>> = {
  p: NO_ATTRS,
  br: NO_ATTRS,
  hr: NO_ATTRS,
  strong: NO_ATTRS,
  em: NO_ATTRS,
  del: NO_ATTRS,
  code: NO_ATTRS,
  pre: NO_ATTRS,
  blockquote: NO_ATTRS,
  ul: NO_ATTRS,
  ol: { start: DIGITS },
  li: NO_ATTRS,
  h1: NO_ATTRS,
  h2: NO_ATTRS,
  h3: NO_ATTRS,
  h4: NO_ATTRS,
  h5: NO_ATTRS,
  h6: NO_ATTRS,
  table: NO_ATTRS,
  thead: NO_ATTRS,
  tbody: NO_ATTRS,
  tr: NO_ATTRS,
  th: { style: TEXT_ALIGN },
  td: { style: TEXT_ALIGN },
  a: { href: URL, title: ANY, class: CLASS, 'data-stream-id': DIGITS, 'data-id': CLASS },
  span: {
    class: CLASS,
    title: ANY,
    role: CLASS,
    'aria-label': ANY,
    'aria-hidden': CLASS,
    style: STYLE,
    'data-user-id': USER_ID,
    'data-user-group-id': DIGITS,
  },
  div: { class: CLASS, 'aria-hidden': CLASS, 'data-code-language': ANY },
  img: { src: URL, alt: ANY, title: ANY, class: CLASS, 'data-src-fullsize': URL },
  time: { datetime: (v) => /^[\dTZ:-]+$/.test(v) },
  // KaTeX MathML
  math: { xmlns: MATHML_NS, display: CLASS },
  semantics: NO_ATTRS,
  annotation: { encoding: (v) => v === 'application/x-tex' },
  mrow: MATHML_PRESENTATION,
  mi: MATHML_PRESENTATION,
  mn: MATHML_PRESENTATION,
  mo: MATHML_PRESENTATION,
  ms: MATHML_PRESENTATION,
  mtext: MATHML_PRESENTATION,
  mspace: MATHML_PRESENTATION,
  msub: MATHML_PRESENTATION,
  msup: MATHML_PRESENTATION,
  msubsup: MATHML_PRESENTATION,
  mfrac: MATHML_PRESENTATION,
  msqrt: MATHML_PRESENTATION,
  mroot: MATHML_PRESENTATION,
  mstyle: MATHML_PRESENTATION,
  mtable: MATHML_PRESENTATION,
  mtr: MATHML_PRESENTATION,
  mtd: MATHML_PRESENTATION,
  mlabeledtr: MATHML_PRESENTATION,
  mover: MATHML_PRESENTATION,
  munder: MATHML_PRESENTATION,
  munderover: MATHML_PRESENTATION,
  menclose: MATHML_PRESENTATION,
  mpadded: MATHML_PRESENTATION,
  mphantom: MATHML_PRESENTATION,
  merror: MATHML_PRESENTATION,
  // KaTeX SVG (stretchy arrows, radicals, ...)
  svg: {
    xmlns: SVG_NS,
    width: NUMBERISH,
    height: NUMBERISH,
    viewBox: NUMBERISH,
    preserveAspectRatio: NUMBERISH,
    style: STYLE,
  },
  path: { d: (v) => /^[\w\s.,-]*$/.test(v) },
  line: {
    x1: NUMBERISH,
    y1: NUMBERISH,
    x2: NUMBERISH,
    y2: NUMBERISH,
    'stroke-width': NUMBERISH,
  },
};

const VOID_ELEMENTS = new Set(['br', 'hr', 'img']);

/** Relative URLs, or absolute http(s)/mailto ones. */
export function isSafeUrl(rawValue: string): boolean {
  const value = decodeEntities(rawValue)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0020\u007f]/g, '')
    .toLowerCase();
  // Values are re-serialised with only &amp; &lt; &gt; &quot; entities, so an
  // entity-encoded colon cannot sneak a scheme past this check.
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(value);
  if (!scheme) return true;
  return scheme[1] === 'http' || scheme[1] === 'https' || scheme[1] === 'mailto';
}

/** Simple `prop: value;` declarations without URLs, expressions, escapes or markup. */
export function isSafeStyle(rawValue: string): boolean {
  const value = decodeEntities(rawValue).toLowerCase();
  if (/url\s*\(|expression|javascript|behavior|binding|@import|\\|<|>|\/\*/.test(value)) return false;
  return /^[\w\s#%(),.:;+-]*$/.test(value);
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|#39);/gi, (_, e: string) => {
    const lower = e.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16) || 0xfffd);
    if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10) || 0xfffd);
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[lower] ?? '';
  });
}

export interface SanitizeResult {
  html: string;
  /** Descriptions of everything that had to be removed; empty for our own output. */
  violations: string[];
}

// KaTeX occasionally writes `class ="x"`, so allow spaces around "=".
const TAG_RE = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:\s*=\s*"[^"<>]*")?)*)\s*(\/?)>/y;
const ATTR_RE = /\s+([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*"([^"]*)")?/g;
const ENTITY_RE = /&(?:[a-zA-Z][a-zA-Z0-9]{1,31}|#\d{1,7}|#[xX][0-9a-fA-F]{1,6});/y;

export function sanitizeHtml(html: string): SanitizeResult {
  const violations: string[] = [];
  let out = '';
  let i = 0;
  let textStart = 0;
  const flushText = (end: number) => {
    if (end > textStart) out += html.slice(textStart, end);
  };
  while (i < html.length) {
    const ch = html.charCodeAt(i);
    if (ch === 0x3c /* < */) {
      TAG_RE.lastIndex = i;
      const m = TAG_RE.exec(html);
      const name = m?.[2];
      const allowed = name !== undefined ? ELEMENTS[name] : undefined;
      if (!m || !allowed) {
        flushText(i);
        violations.push(m ? `element <${m[2]}>` : 'stray "<"');
        out += '&lt;';
        i++;
        textStart = i;
        continue;
      }
      flushText(i);
      const closing = m[1] === '/';
      let tag = '<' + (closing ? '/' : '') + name;
      if (!closing) {
        ATTR_RE.lastIndex = 0;
        let a: RegExpExecArray | null;
        while ((a = ATTR_RE.exec(m[3])) !== null) {
          const [, attr, value = ''] = a;
          const check = allowed[attr];
          if (!check || !check(value)) {
            violations.push(`attribute ${attr} on <${name}>`);
            continue;
          }
          tag += ` ${attr}="${escapeAttr(decodeEntities(value))}"`;
        }
      }
      // Keep "/>" only where it means something (SVG/MathML leaves such as <path/>).
      out += tag + (m[4] === '/' && !VOID_ELEMENTS.has(name as string) ? '/>' : '>');
      i += m[0].length;
      textStart = i;
    } else if (ch === 0x3e /* > */) {
      flushText(i);
      out += '&gt;';
      i++;
      textStart = i;
    } else if (ch === 0x26 /* & */) {
      ENTITY_RE.lastIndex = i;
      if (!ENTITY_RE.test(html)) {
        flushText(i);
        out += '&amp;';
        i++;
        textStart = i;
      } else {
        i++;
      }
    } else {
      i++;
    }
  }
  flushText(i);
  return { html: out, violations };
}
