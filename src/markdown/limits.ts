import type { MarkdownLimits } from './types';

/**
 * Default bounds.  Zulip messages are at most 10 000 characters
 * (docs/DECISIONS.md #11) and Zulip aborts a render after 5 seconds; we are
 * stricter on time because rendering runs on the request thread.
 */
export const DEFAULT_LIMITS: MarkdownLimits = Object.freeze({
  maxInputLength: 20_000,
  maxRenderMillis: 1_000,
  maxBlockNesting: 16,
  maxInlineNesting: 16,
  maxTexExpressions: 200,
  maxTexLength: 4_000,
  maxInlinePreviews: 24,
});

export function resolveLimits(overrides?: Partial<MarkdownLimits>): MarkdownLimits {
  return overrides ? { ...DEFAULT_LIMITS, ...overrides } : DEFAULT_LIMITS;
}

/** Thrown inside the parser when the time budget is spent; render() catches it. */
export class RenderBudgetExceeded extends Error {
  constructor() {
    super('Markdown render time budget exceeded');
    this.name = 'RenderBudgetExceeded';
  }
}
