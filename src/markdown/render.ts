/**
 * Phase two: Markdown → rendered_content plus the facts the caller needs
 * for message flags.  Synchronous, no I/O.
 *
 * Pipeline:
 *   1. normalise the text (newlines, tabs, control characters);
 *   2. fenced blocks (code, quote, spoiler, math) → placeholders / `> ` lines;
 *   3. markdown-it with our block and inline rules;
 *   4. link bookkeeping and inline image previews;
 *   5. render, then check every tag and attribute against the allow-list.
 *
 * Input over the size limit, or a render over the time budget, is shown as
 * escaped plain text instead (and `degraded` says why).
 */
import MarkdownIt from 'markdown-it';
import { installBlockRules } from './block-rules';
import { installInlineRules } from './inline-rules';
import { installRenderer } from './renderer';
import { processFencedBlocks } from './fenced-blocks';
import { processLinks } from './previews';
import { sanitizeHtml } from './sanitize';
import { renderTex } from './tex';
import { escapeText } from './html';
import { checkDeadline, createEnv, resolveContext, type RenderEnv } from './context';
import { RenderBudgetExceeded } from './limits';
import type { DegradedReason, MarkdownContext, RenderedMessage } from './types';

function createParser(): MarkdownIt {
  // markdown-it reads maxNesting from its options (the 'zero' preset sets 20); @types/markdown-it
  // leaves it out of Options.
  const options: MarkdownIt.Options & { maxNesting: number } = {
    html: false,
    breaks: true,
    linkify: false,
    typographer: false,
    // Our own nesting limits apply first; this only guards markdown-it itself.
    maxNesting: 200,
  };
  const md = new MarkdownIt('zero', options);
  installBlockRules(md);
  installInlineRules(md);
  // Parse inline content knowing whether it sits in a quote (mentions there are silent).
  md.core.ruler.at('inline', (state) => {
    const env = state.env as unknown as RenderEnv;
    for (const token of state.tokens) {
      if (token.type !== 'inline') continue;
      checkDeadline(env);
      env.inQuote = Boolean((token.meta as { quoted?: boolean } | null)?.quoted);
      token.children = [];
      state.md.inline.parse(token.content, state.md, state.env, token.children);
    }
    env.inQuote = false;
  });
  installRenderer(md);
  return md;
}

const md = createParser();
const TokenClass = new md.core.State('', md, {}).Token;

/** Expand tabs to 4-column stops, like Python's str.expandtabs(4). */
function expandTabs(text: string): string {
  if (!text.includes('\t')) return text;
  return text
    .split('\n')
    .map((line) => {
      let out = '';
      for (const ch of line) {
        if (ch === '\t') out += ' '.repeat(4 - (out.length % 4));
        else out += ch;
      }
      return out;
    })
    .join('\n');
}

/**
 * Zulip's NormalizeWhitespace: unify newlines, drop the STX/ETX characters
 * (our placeholders use them), expand tabs, blank out whitespace-only lines.
 */
function normalizeInput(content: string): string {
  const text = content
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex -- STX/ETX delimit our placeholders
    .replace(/[\u0002\u0003]/g, '')
    // eslint-disable-next-line no-control-regex -- NUL is never text
    .replace(/\u0000/g, '\uFFFD');
  return expandTabs(text).replace(/^[ ]+$/gm, '');
}

function plainText(content: string, reason: DegradedReason): RenderedMessage {
  const html = `<p>${escapeText(content.replace(/\r\n?/g, '\n')).replace(/\n/g, '<br>\n')}</p>`;
  return {
    html,
    mentionedUserIds: [],
    mentionedGroupIds: [],
    mentionsStreamWildcard: false,
    mentionsTopicWildcard: false,
    isMeMessage: content.startsWith('/me '),
    hasLink: false,
    hasImage: false,
    hasAttachment: false,
    linkedUploadPathIds: [],
    degraded: reason,
  };
}

interface AuditedRender {
  result: RenderedMessage;
  /** What the allow-list pass had to remove; always empty unless a rule builds bad HTML. */
  violations: string[];
}

function render(content: string, context: MarkdownContext): AuditedRender {
  const ctx = resolveContext(context);
  const { limits } = ctx;
  if (content.length > limits.maxInputLength) return { result: plainText(content, 'too_large'), violations: [] };
  const env = createEnv(ctx, Date.now());
  try {
    const source = processFencedBlocks(normalizeInput(content), {
      stash: env.stash,
      defaultLanguage: ctx.defaultCodeBlockLanguage,
      maxNesting: limits.maxBlockNesting,
      checkBudget: () => checkDeadline(env),
      renderDisplayTex: (tex) => {
        if (env.collector.texRendered >= limits.maxTexExpressions || tex.length > limits.maxTexLength) return null;
        checkDeadline(env);
        env.collector.texRendered++;
        return renderTex(tex, true);
      },
    });
    const parsed = md.parse(source, env);
    checkDeadline(env);
    const { tokens, summary } = processLinks(parsed, env, TokenClass);
    const rendered = md.renderer.render(tokens, md.options, env).trim();
    const { html, violations } = sanitizeHtml(rendered);
    if (html.length > limits.maxInputLength * 100) {
      return { result: plainText(content, 'output_too_large'), violations };
    }
    const { collector } = env;
    const result: RenderedMessage = {
      html,
      mentionedUserIds: [...collector.mentionedUserIds],
      mentionedGroupIds: [...collector.mentionedGroupIds],
      mentionsStreamWildcard: collector.mentionsStreamWildcard,
      mentionsTopicWildcard: collector.mentionsTopicWildcard,
      isMeMessage: content.startsWith('/me '),
      hasLink: summary.hasLink,
      hasImage: summary.hasImage,
      hasAttachment: summary.uploadPathIds.length > 0,
      linkedUploadPathIds: summary.uploadPathIds,
      degraded: null,
    };
    return { result, violations };
  } catch (error) {
    if (error instanceof RenderBudgetExceeded) return { result: plainText(content, 'timeout'), violations: [] };
    throw error;
  }
}

/**
 * Renders a message.  `context` carries the rows loaded for the names and
 * ids collectReferences found, and the sender's and realm's settings.
 */
export function renderMarkdown(content: string, context: MarkdownContext = {}): RenderedMessage {
  return render(content, context).result;
}

/** For tests: also returns what the final allow-list pass removed (expected: nothing). */
export function renderMarkdownWithAudit(content: string, context: MarkdownContext = {}): AuditedRender {
  return render(content, context);
}
