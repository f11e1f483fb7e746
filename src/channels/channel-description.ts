/**
 * HTML of a channel or channel-folder description. Zulip renders these with its Markdown
 * processor (no link previews). The Markdown renderer lives in src/messaging/markdown and is not
 * wired in yet; until then the text is HTML-escaped and wrapped in a paragraph, which is what
 * Zulip produces for descriptions without Markdown syntax. Swap the body of this one function for
 * the real renderer when it lands.
 */
export function renderDescription(text: string): string {
  if (!text) return '';
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<p>${escaped.replace(/\n/g, '<br>\n')}</p>`;
}
