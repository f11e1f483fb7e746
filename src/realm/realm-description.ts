import { renderDescription } from '../markdown';

/** HTML of a realm description: Zulip's Markdown, without link previews or realm data. */
export function renderRealmDescription(text: string): string {
  return renderDescription(text);
}
