/**
 * Token → HTML, formatted like Zulip's rendered_content: each block element
 * on its own line, list items and loose-item paragraphs without extra
 * newlines inside, tight list items without <p>.
 */
import type MarkdownIt from 'markdown-it';
import { escapeText, openTag } from './html';
import { formatCode } from './fenced-blocks';

type Token = MarkdownIt.Token;
type Rule = (tokens: Token[], idx: number) => string;

/** Tags Python-Markdown treats as block-level when deciding whether stashed HTML needs a <p>. */
const BLOCK_HTML_RE = /^<\/?(?:div|p|pre|table|blockquote|ul|ol|h[1-6]|hr)[\s>]/;

const fixed =
  (html: string): Rule =>
  () =>
    html;

function attr(token: Token, name: string): string | undefined {
  const value = token.attrGet(name);
  return value === null ? undefined : String(value);
}

export function installRenderer(md: MarkdownIt): void {
  const rules: Record<string, Rule> = {
    text: (t, i) => escapeText(t[i].content),
    softbreak: fixed('<br>\n'),
    hardbreak: fixed('<br>\n'),
    code_inline: (t, i) => `<code>${escapeText(t[i].content)}</code>`,
    code_block: (t, i) => formatCode(undefined, t[i].content) + '\n',
    paragraph_open: (t, i) => (t[i].hidden ? '' : '<p>'),
    paragraph_close: (t, i) => (t[i].hidden ? '' : '</p>\n'),
    heading_open: (t, i) => `<${t[i].tag}>`,
    heading_close: (t, i) => `</${t[i].tag}>\n`,
    blockquote_open: fixed('<blockquote>\n'),
    blockquote_close: fixed('</blockquote>\n'),
    bullet_list_open: fixed('<ul>\n'),
    bullet_list_close: fixed('</ul>\n'),
    ordered_list_open: (t, i) => openTag('ol', { start: attr(t[i], 'start') }) + '\n',
    ordered_list_close: fixed('</ol>\n'),
    list_item_open: fixed('<li>'),
    list_item_close: fixed('</li>\n'),
    hr: fixed('<hr>\n'),
    table_open: fixed('<table>\n'),
    table_close: fixed('</table>\n'),
    thead_open: fixed('<thead>\n'),
    thead_close: fixed('</thead>\n'),
    tbody_open: fixed('<tbody>\n'),
    tbody_close: fixed('</tbody>\n'),
    tr_open: fixed('<tr>\n'),
    tr_close: fixed('</tr>\n'),
    th_open: (t, i) => openTag('th', { style: attr(t[i], 'style') }),
    th_close: fixed('</th>\n'),
    td_open: (t, i) => openTag('td', { style: attr(t[i], 'style') }),
    td_close: fixed('</td>\n'),
    strong_open: fixed('<strong>'),
    strong_close: fixed('</strong>'),
    em_open: fixed('<em>'),
    em_close: fixed('</em>'),
    del_open: fixed('<del>'),
    del_close: fixed('</del>'),
    link_open: (t, i) => openTag('a', { href: attr(t[i], 'href') ?? '', title: attr(t[i], 'title') }),
    link_close: fixed('</a>'),
    // HTML built (and escaped) by our own rules.
    zulip_html_inline: (t, i) => t[i].content,
    zulip_preview: (t, i) => t[i].content,
    zulip_stash: (t, i) => {
      const html = t[i].content;
      return (BLOCK_HTML_RE.test(html) ? html : `<p>${html}</p>`) + '\n';
    },
  };
  Object.assign(md.renderer.rules, rules);
}
