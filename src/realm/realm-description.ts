/**
 * HTML of a realm description. Descriptions are set by administrators; until the Markdown
 * renderer is wired in here, text is escaped and wrapped in a paragraph, which is what Zulip
 * produces for plain-text descriptions.
 */
export function renderRealmDescription(text: string): string {
  if (!text) return '';
  const escaped = text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
  return `<p>${escaped.replace(/\n/g, '<br>\n')}</p>`;
}
