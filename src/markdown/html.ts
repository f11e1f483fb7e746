/**
 * HTML escaping.  Zulip's rendered_content escapes only `& < >` in text
 * (quotes stay literal), and `& < > "` inside attribute values; we follow
 * that so our output is byte-for-byte comparable with Zulip's.
 */

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const ATTR_ESCAPES: Record<string, string> = { ...TEXT_ESCAPES, '"': '&quot;' };
const ALL_ESCAPES: Record<string, string> = { ...ATTR_ESCAPES, "'": '&#39;' };

export function escapeText(text: string): string {
  return /[&<>]/.test(text) ? text.replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]) : text;
}

export function escapeAttr(value: string): string {
  return /[&<>"]/.test(value) ? value.replace(/[&<>"]/g, (c) => ATTR_ESCAPES[c]) : value;
}

/** Escapes quotes too, the way Pygments escapes code it did not highlight. */
export function escapeAll(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => ALL_ESCAPES[c]) : text;
}

/** Django's `escape()`, used by Zulip for TeX errors in math blocks. */
export function escapeDjango(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;');
}

/**
 * Builds an opening tag with attributes in alphabetical order (Zulip's
 * serializer sorts them).  Values are escaped here; names must be literals.
 */
export function openTag(name: string, attrs: Record<string, string | undefined> = {}): string {
  let out = '<' + name;
  for (const key of Object.keys(attrs).sort()) {
    const value = attrs[key];
    if (value !== undefined) out += ` ${key}="${escapeAttr(value)}"`;
  }
  return out + '>';
}
