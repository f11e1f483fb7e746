/**
 * PostgreSQL text cannot hold NUL (U+0000), so it must never reach a query. Names and other
 * identifiers containing it are refused; free text (descriptions, hints, profile values) gets
 * U+FFFD instead, as CommonMark does.
 */

/** 1-based position of the first NUL in `text`, counting code points; undefined when none. */
export function nulPosition(text: string): number | undefined {
  if (!text.includes('\0')) return undefined;
  let position = 0;
  for (const ch of text) {
    position += 1;
    if (ch === '\0') return position;
  }
  return undefined;
}

export function replaceNul(text: string): string {
  return text.includes('\0') ? text.replace(/\0/g, '\uFFFD') : text;
}
