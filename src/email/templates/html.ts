/**
 * A tiny, safe way to write email HTML: the `html` tag escapes every interpolated value unless it
 * is itself SafeHtml (built by `html` or `raw`), so a user's name can never become markup.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** A value that may be interpolated: strings and numbers are escaped; false, null and undefined vanish. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch]);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  if (value === null || value === undefined || value === false || value === true) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** Markup we wrote ourselves (never user input). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** A link target: only http(s) and mailto URLs; anything else becomes "#". Escaped by `html`. */
export function safeUrl(url: string): string {
  return /^(https?:\/\/|mailto:)/i.test(url.trim()) ? url.trim() : '#';
}
