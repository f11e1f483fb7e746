import { renderDescription } from '../markdown';

/** Rendered descriptions kept (a few per realm this process serves; the oldest goes first). */
const CACHED_DESCRIPTIONS = 256;
const rendered = new Map<string, string>();

/**
 * HTML of a realm description: Zulip's Markdown, without link previews or realm data. The result
 * depends on the text alone, so it is remembered by text (Zulip caches it per realm too):
 * GET /server_settings, which every client calls before logging in, renders nothing.
 */
export function renderRealmDescription(text: string): string {
  const hit = rendered.get(text);
  if (hit !== undefined) return hit;
  const html = renderDescription(text);
  if (rendered.size >= CACHED_DESCRIPTIONS) rendered.delete(rendered.keys().next().value as string);
  rendered.set(text, html);
  return html;
}
