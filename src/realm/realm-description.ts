import { renderDescription } from '../markdown';

/** HTML of a realm description (Zulip's Markdown, without previews). */
export function renderRealmDescription(text: string): string {
  return renderDescription(text);
}
