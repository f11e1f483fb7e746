import { renderDescription as renderMarkdownDescription } from '../markdown';

/** HTML of a channel or channel-folder description (Zulip's Markdown, without previews). */
export function renderDescription(text: string): string {
  return renderMarkdownDescription(text);
}
